// Runs one analysis in a child process (analyse-child.ts), off the server's event loop and out of the
// sandbox's way: with `yieldTo` (the server's: "this machine's jails have work"), the child is stopped
// (SIGSTOP) while the local sandbox has work that uses the CPU and continued once it has been idle for
// YIELD_IDLE_MS, so a report never takes CPU from a job — niceness alone does not do that: the jails run in cgroups (and
// under systemd another unit) of their own, which the kernel shares the CPU with at equal weight
// whatever a process's nice value (measured: a queue of python runs at 63% of its throughput beside a
// report at nice 19; scripts/bench-similarity-queue.ts). Also niced to 19, its heap capped with
// --max-old-space-size, its resident memory watched (killed beyond the cap: tree-sitter's native memory
// is outside the heap), and killed once it has run (stopped time not counted) longer than its deadline.
// Work that holds the pool without using the CPU (a program that sleeps) does not stop it, and a floor
// lets it run FLOOR_RUN_MS after MAX_STOPPED_MS stopped whatever the sandbox does: no client can hold a
// report for ever by keeping the pool busy. The sources go to the child in batches, each sent
// once the previous one is written to the pipe: the server holds one batch at a time, not the report.
import { fork, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { setPriority } from 'node:os'
import type { AnalysisInput, AnalysisResult } from './analyse.ts'
import type { ChildMessage, ParentMessage } from './analyse-child.ts'

type SourceFile = AnalysisInput['files'][number]

/** Sources per IPC message: bounds what the server holds of a report's sources at any moment. */
export const SOURCE_BATCH_BYTES = 4 * 1024 * 1024

/** What runAnalysis sends: the analysis' settings, and its sources as batches read one at a time. */
export interface RunInput extends Omit<AnalysisInput, 'files'> {
  /** Batches of sources, in order; a generator lets the caller read each from storage when it is sent. */
  batches: Iterable<SourceFile[]>
}

/** An array of sources as batches of at most maxBytes (UTF-8) each; a larger source is a batch alone. */
export function* inBatches(files: SourceFile[], maxBytes = SOURCE_BATCH_BYTES): Generator<SourceFile[]> {
  let batch: SourceFile[] = []
  let bytes = 0
  for (const f of files) {
    const b = Buffer.byteLength(f.source)
    if (batch.length && bytes + b > maxBytes) {
      yield batch
      batch = []
      bytes = 0
    }
    batch.push(f)
    bytes += b
  }
  if (batch.length) yield batch
}

export interface RunLimits {
  /** Deadline of the whole analysis, in wall-clock time it was let run (time stopped for the sandbox not counted). */
  timeSec: number
  /** Resident memory the child may reach (and its V8 heap cap). */
  memoryMb: number
  /** Nice value of the child (19 = only idle CPU). */
  nice?: number
  /** True while this machine's sandbox has work: the analysis is stopped until it has been idle YIELD_IDLE_MS. */
  yieldTo?: () => boolean
  /**
   * True while processes other than the analysis use the CPU (default: this machine's /proc/stat, less
   * the child's own time, over the last CPU_WINDOW_MS): the sandbox's work stops the analysis only then.
   */
  othersBusy?: () => boolean
}

/** How long the CPU is measured over, and the share of one core others must use to count as busy. */
export const CPU_WINDOW_MS = 250
export const CPU_BUSY_CORES = 0.5
/** The floor: stopped this long in a row, the analysis runs FLOOR_RUN_MS whatever the sandbox does (a fifth of the time at worst). */
export const MAX_STOPPED_MS = 4000
export const FLOOR_RUN_MS = 1000

/** Clock ticks of the whole machine's busy CPU (/proc/stat) and of one process (/proc/<pid>/stat). */
function busyTicks(): number | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal: all but idle and iowait
    return f.slice(0, 8).reduce((a, b) => a + b, 0) - (f[3] ?? 0) - (f[4] ?? 0)
  } catch {
    return undefined
  }
}
function processTicks(pid: number): number | undefined {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // after the command's closing parenthesis: field 3 on; utime and stime are fields 14 and 15
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ')
    return Number(rest[11]) + Number(rest[12])
  } catch {
    return undefined
  }
}

/** Whether the machine's CPU, less one process's, was busy over the last window (USER_HZ ticks: 100 a second). */
export function cpuMeter(pid: () => number | undefined): () => boolean {
  let last: { at: number; busy: number; own: number } | undefined
  let busy = true
  return () => {
    const at = performance.now()
    if (last && at - last.at < CPU_WINDOW_MS) return busy
    const all = busyTicks()
    const p = pid()
    const own = p ? (processTicks(p) ?? 0) : 0
    if (all === undefined) return (busy = true) // cannot tell: yield, as before
    if (last) busy = (all - last.busy - (own - last.own)) / 100 / ((at - last.at) / 1000) >= CPU_BUSY_CORES
    last = { at, busy: all, own }
    return busy
  }
}

/** How often the sandbox is looked at (a job waits at most about this long for the CPU the analysis held). */
export const YIELD_POLL_MS = 20
/** How long the sandbox must have been idle before the analysis continues (bursts of jobs are not split). */
export const YIELD_IDLE_MS = 200
/** The stage a running report shows while it is stopped for the sandbox. */
export const WAITING_STAGE = 'waiting for the sandbox'

export interface RunOutcome {
  result: AnalysisResult
  /** The child's own peak RSS and time. */
  maxRssKb: number
  ms: number
}

/** An analysis that did not finish: over time, over memory, or the child failed. */
export class AnalysisFailed extends Error {}

const childFile = import.meta.url.endsWith('.ts')
  ? { url: new URL('./analyse-child.ts', import.meta.url), execArgv: ['--import', 'tsx'] }
  : { url: new URL('./analyse-child.js', import.meta.url), execArgv: [] as string[] }

function rssKb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : undefined
  } catch {
    return undefined
  }
}

export function runAnalysis(input: RunInput, limits: RunLimits, onProgress: (fraction: number, stage: string) => void = () => {}, signal?: AbortSignal): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = fork(childFile.url, [], {
      execArgv: [...childFile.execArgv, `--max-old-space-size=${Math.max(64, Math.floor(limits.memoryMb * 0.75))}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-2000)))
    let failure: string | undefined
    let outcome: RunOutcome | undefined
    const kill = (why: string) => {
      failure ??= why
      child.kill('SIGKILL')
    }
    try {
      if (child.pid) setPriority(child.pid, limits.nice ?? 19)
    } catch {
      // not fatal: the analysis still runs, just at the server's own priority
    }
    // the deadline counts the time the child was let run
    let ranMs = 0
    let since = performance.now()
    let stopped = false
    let stoppedSince = 0
    // the floor: until this moment the analysis runs whatever the sandbox does
    let floorUntil = 0
    let idleSince = 0
    let last = { fraction: 0, stage: '' }
    const clock = () => {
      const now = performance.now()
      if (!stopped) ranMs += now - since
      since = now
      if (ranMs > limits.timeSec * 1000) kill(`the analysis took longer than ${limits.timeSec} s`)
    }
    const watch = setInterval(() => {
      clock()
      const kb = child.pid ? rssKb(child.pid) : undefined
      if (kb !== undefined && kb > limits.memoryMb * 1024) kill(`the analysis needed more than ${limits.memoryMb} MB`)
    }, 250)
    const yieldTo = limits.yieldTo
    const othersBusy = limits.othersBusy ?? cpuMeter(() => child.pid)
    const resume = (floor: boolean) => {
      clock()
      stopped = !child.kill('SIGCONT')
      if (!stopped && floor) floorUntil = performance.now() + FLOOR_RUN_MS
      if (!stopped && last.stage) onProgress(last.fraction, last.stage)
    }
    const gate = yieldTo
      ? setInterval(() => {
          if (failure || child.exitCode !== null) return
          const now = performance.now()
          // only work that uses the CPU stops the analysis (a job that sleeps holds the pool, not the CPU)
          if (yieldTo() && othersBusy()) {
            idleSince = 0
            if (stopped && now - stoppedSince >= MAX_STOPPED_MS) resume(true)
            else if (!stopped && now >= floorUntil) {
              clock()
              stopped = child.kill('SIGSTOP')
              stoppedSince = now
              if (stopped) onProgress(last.fraction, WAITING_STAGE)
            }
          } else if (stopped) {
            idleSince ||= now
            if (now - idleSince >= YIELD_IDLE_MS) resume(false)
          }
        }, YIELD_POLL_MS)
      : undefined
    const onAbort = () => kill('stopped')
    signal?.addEventListener('abort', onAbort, { once: true })
    child.on('message', (m: ChildMessage) => {
      if (m.type === 'progress') {
        last = { fraction: m.fraction, stage: m.stage }
        if (!stopped) onProgress(m.fraction, m.stage) // sent before the stop: shown at the continue
      }
      else if (m.type === 'result') outcome = { result: m.result, maxRssKb: m.maxRssKb, ms: m.ms }
      else failure ??= m.message
    })
    child.on('exit', (code, sig) => {
      clearInterval(watch)
      clearInterval(gate)
      signal?.removeEventListener('abort', onAbort)
      if (outcome && !failure) return resolve(outcome)
      const heap = /heap out of memory/i.test(stderr) ? `the analysis needed more than ${limits.memoryMb} MB` : undefined
      reject(new AnalysisFailed(failure ?? heap ?? `the analysis stopped (${sig ?? `exit ${code}`})`))
    })
    const send = (m: ParentMessage) =>
      new Promise<boolean>((done) => {
        try {
          child.send(m, undefined, undefined, (err) => done(!err))
        } catch {
          done(false) // the channel is closed: the child is gone, its exit says why
        }
      })
    const { batches, ...settings } = input
    void (async () => {
      // one batch in flight: the next is read (from storage, when batches is a generator) once this one is written
      for (const files of batches) if (failure || !(await send({ type: 'files', files }))) return
      if (!failure) await send({ type: 'start', input: settings })
    })().catch((err: Error) => kill(`the sources could not be read: ${err.message}`))
  })
}
