// <data>/arbiter.pid: which process serves this data directory (and on which port), so that
// `cli restore` can refuse to replace the data under a running server. A crash leaves the file;
// a pid that is gone (or is no longer our server) does not count.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const fileOf = (dataDir: string) => join(dataDir, 'arbiter.pid')

/** A process's start time (field 22 of /proc/<pid>/stat): a recycled pid has another. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

export function writePidFile(dataDir: string, port: number): void {
  writeFileSync(fileOf(dataDir), JSON.stringify({ pid: process.pid, port, started: startTime(process.pid) }) + '\n')
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
  let rec: { pid: number; port: number; started?: string }
  try {
    rec = JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as { pid: number; port: number; started?: string }
  } catch {
    return undefined
  }
  if (rec.started !== undefined && startTime(rec.pid) !== rec.started) return undefined
  try {
    // a recycled pid would belong to some other program: the command line must be a node process
    const cmdline = readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8')
    return /node|main/.test(cmdline) ? { pid: rec.pid, port: rec.port } : undefined
  } catch {
    return undefined
  }
}
