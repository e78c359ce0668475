// <data>/arbiter.pid: which process serves this data directory (and on which port), so that
// `cli restore` can refuse to replace the data under a running server. A crash leaves the file;
// a pid that is gone (or is no longer our server) does not count.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const fileOf = (dataDir: string) => join(dataDir, 'arbiter.pid')

export function writePidFile(dataDir: string, port: number): void {
  writeFileSync(fileOf(dataDir), JSON.stringify({ pid: process.pid, port }) + '\n')
}

export function releasePidFile(dataDir: string): void {
  try {
    if ((JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as { pid: number }).pid === process.pid) rmSync(fileOf(dataDir))
  } catch {
    // already gone
  }
}

/** The live server of this data directory, if any. */
export function runningServer(dataDir: string): { pid: number; port: number } | undefined {
  let rec: { pid: number; port: number }
  try {
    rec = JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as { pid: number; port: number }
  } catch {
    return undefined
  }
  try {
    // a recycled pid would belong to some other program: the command line must be a node process
    const cmdline = readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8')
    return /node|main/.test(cmdline) ? rec : undefined
  } catch {
    return undefined
  }
}
