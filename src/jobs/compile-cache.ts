// The compile cache: what a successful compile step left in the box (the program, and the source
// beside it), kept on disk under a key of everything that decides the compile's result — the
// toolchain's version, the language, the compile command, its limits and the source — and of whose
// compile it was (the job's cacheScope: one client's compiles are never found by another, so neither
// compile_cached nor a compile's speed tells a client what someone else submitted). A resubmission of
// the same source skips the compile, and is told what the compile printed (its warnings: kept with the
// program, replayed on each hit, as a compiler prints them every time). Entries are written to a
// temporary folder and renamed into place (several worker threads share the folder); the least
// recently used are evicted beyond maxBytes.
// The folder is root's and outside the data directory: the unprivileged server cannot change what jails run.
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { copyMeasured, type measureTree, type TreeSize } from '../sandbox/copy-tree.ts'
import { readRegularFile } from '../sandbox/host-files.ts'

/** What the compile step printed, as it was read back (each stream's head, up to the output cap). */
export interface CompiledOutput {
  stdout: string
  stderr: string
  /** A stream was longer than the cap: the text is its head (RunResult.textCut). */
  textCut?: boolean
}

export interface CacheEntry {
  /** The kept tree, to copy into a fresh box. */
  tree: string
  size: TreeSize
  output: CompiledOutput
}

const META = 'size.json'
const OUTPUT = 'output.json'

/**
 * The entries' layout, part of every key: entries kept before the compile's output was (a tree and
 * size.json, no output.json) are never found, so no hit replays an output that was never stored; they
 * are used no more and go first when the folder passes maxBytes.
 */
const LAYOUT = 'tree+output'

export function compileCacheKey(parts: { scope: string; version: string; language: string; argv: string[]; limits: unknown; source: string }): string {
  const source = createHash('sha256').update(parts.source).digest('hex')
  return createHash('sha256').update(JSON.stringify([LAYOUT, parts.scope, parts.version, parts.language, parts.argv, parts.limits, source])).digest('hex')
}

/**
 * The most output.json may hold for texts read back up to capBytes a stream: JSON writes at most 6
 * bytes for one byte read (a control character as \u00XX; an invalid byte's U+FFFD takes 3).
 */
const outputFileCap = (capBytes: number) => 2 * 6 * capBytes + 1024

function readOutput(file: string, capBytes: number): CompiledOutput | undefined {
  const o = JSON.parse(readRegularFile(file, outputFileCap(capBytes)).toString('utf8')) as Partial<CompiledOutput>
  if (typeof o?.stdout !== 'string' || typeof o.stderr !== 'string' || (o.textCut !== undefined && typeof o.textCut !== 'boolean')) return undefined
  return { stdout: o.stdout, stderr: o.stderr, ...(o.textCut && { textCut: true }) }
}

/**
 * The entry for key, marked as just used; undefined when there is none, or when it has no output
 * kept (or one larger than texts read back up to outputCapBytes a stream could be): then the
 * source is compiled again, and the compile's real output shown.
 */
export function lookupCompiled(dir: string, key: string, outputCapBytes: number): CacheEntry | undefined {
  const entry = join(dir, key)
  try {
    const size = JSON.parse(readFileSync(join(entry, META), 'utf8')) as TreeSize
    const output = readOutput(join(entry, OUTPUT), outputCapBytes)
    if (!output) return undefined
    const now = new Date()
    utimesSync(entry, now, now)
    return { tree: join(entry, 'tree'), size, output }
  } catch {
    return undefined
  }
}

/**
 * Keeps a copy of box, as measureTree found it (bounded, each file checked again as it is copied),
 * and what the compile step printed, under key (unless another worker just did), then evicts beyond
 * maxBytes. The temporary folder goes whatever happens.
 */
export function storeCompiled(dir: string, key: string, box: string, maxBytes: number, measured: ReturnType<typeof measureTree>, output: CompiledOutput): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const entry = join(dir, key)
  if (existsSync(join(entry, OUTPUT))) return
  const tmp = join(dir, `.new-${process.pid}-${Math.random().toString(36).slice(2)}`)
  // an entry without its output (left by an older layout under this key) is put aside, to be replaced
  const old = `${tmp}-old`
  let stored = 0
  try {
    if (measured.size.bytes > maxBytes) return // would evict everything and itself
    mkdirSync(tmp, { mode: 0o700 })
    const size = copyMeasured(box, join(tmp, 'tree'), measured)
    writeFileSync(join(tmp, META), JSON.stringify(size))
    writeFileSync(join(tmp, OUTPUT), JSON.stringify({ stdout: output.stdout, stderr: output.stderr, ...(output.textCut && { textCut: true }) }))
    if (existsSync(entry)) renameSync(entry, old)
    renameSync(tmp, entry)
    stored = size.bytes
  } catch {
    // another worker stored the same key first, or the disk is full: the job goes on without the cache
  } finally {
    rmSync(tmp, { recursive: true, force: true })
    rmSync(old, { recursive: true, force: true })
  }
  const seen = scans.get(dir)
  if (seen) {
    seen.total += stored
    seen.sinceScan += stored
  }
  // the scan reads every entry: once per store it cost 30 ms a compile with 8,800 entries kept
  if (!seen || seen.total > maxBytes || seen.sinceScan > maxBytes / SCAN_EVERY) scans.set(dir, { total: evict(dir, maxBytes), sinceScan: 0 })
}

/**
 * What this worker knows of each cache folder since it last scanned it: the bytes kept then plus
 * what it stored since. A scan (evict) runs when that passes maxBytes or when this worker has stored
 * 1/SCAN_EVERY of maxBytes since its last scan, so the folder passes maxBytes by at most that much per
 * worker sharing it (what the others stored meanwhile).
 */
const scans = new Map<string, { total: number; sinceScan: number }>()
const SCAN_EVERY = 10

/** A temporary folder older than this was left by a killed worker (a copy takes seconds at most). */
const STALE_MS = 3600_000

/** Removes the least recently used entries until the rest fit in maxBytes, and what killed workers left; the bytes kept. */
export function evict(dir: string, maxBytes: number, now = Date.now()): number {
  const names = readdirSync(dir)
  for (const name of names.filter((n) => n.startsWith('.new-'))) {
    try {
      if (now - lstatSync(join(dir, name)).mtimeMs > STALE_MS) rmSync(join(dir, name), { recursive: true, force: true })
    } catch {
      // removed by another worker
    }
  }
  const entries = names
    .filter((name) => /^[0-9a-f]{64}$/.test(name))
    .flatMap((name) => {
      try {
        const size = JSON.parse(readFileSync(join(dir, name, META), 'utf8')) as TreeSize
        return [{ name, bytes: size.bytes, used: statSync(join(dir, name)).mtimeMs }]
      } catch {
        return [] // being written or removed by another worker
      }
    })
    .sort((a, b) => b.used - a.used)
  let total = 0
  let kept = 0
  for (const e of entries) {
    total += e.bytes
    if (total > maxBytes) rmSync(join(dir, e.name), { recursive: true, force: true })
    else kept = total
  }
  return kept
}
