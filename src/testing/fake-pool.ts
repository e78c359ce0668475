// A Pool for tests of everything above the sandbox: no threads, no jail. Each job is answered by a
// behaviour function (default: an echo that prints its stdin); `hold()` parks jobs until released, so
// tests can look at the queued and compiled states.
import type { RunResult } from '../sandbox/types.ts'
import type { Pool, RunHooks } from '../jobs/pool-types.ts'
import type { CompileOutcome, Job, JobResult } from '../jobs/types.ts'
import { readStoredFile } from '../jobs/job-files.ts'

export type Behaviour = (job: Job) => JobResult | Promise<JobResult>

export const okRun = (over: Partial<RunResult> = {}): RunResult => ({
  status: 'ok',
  exitCode: 0,
  signal: null,
  cpuSec: 0.01,
  wallSec: 0.02,
  memoryKb: 3072,
  stdout: '',
  stderr: '',
  ...over,
})

/** Compiles unless the source contains COMPILE_ERROR; prints the input. */
export const echo: Behaviour = (job) => {
  if (job.source.includes('COMPILE_ERROR'))
    return { compile: { ok: false, message: "main.c:1:1: error: expected ';' before '}' token", step: okRun({ status: 'exit', exitCode: 1 }) } }
  const compile: CompileOutcome = { ok: true, message: '' }
  return job.compileOnly ? { compile } : { compile, run: okRun({ stdout: job.input }) }
}

export interface FakePool extends Pool {
  /** Every job handed to run(), in order. */
  readonly jobs: Job[]
  /** Each job's files as the worker would write them (inline ones, then the stored ones read when it ran), in order. */
  readonly files: { name: string; contentBase64: string }[][]
  /** Parks jobs after their compile step until release() (or for good). */
  hold(): void
  release(): void
}

export function createFakePool(opts: { size?: number; behave?: Behaviour } = {}): FakePool {
  const behave = opts.behave ?? echo
  const jobs: Job[] = []
  const files: { name: string; contentBase64: string }[][] = []
  let busy = 0
  let gate: { promise: Promise<void>; open: () => void } | undefined
  return {
    size: opts.size ?? 2,
    get busy() {
      return busy
    },
    jobs,
    files,
    hold() {
      let open!: () => void
      gate = { promise: new Promise<void>((r) => (open = r)), open }
    },
    release() {
      gate?.open()
      gate = undefined
    },
    async run(job: Job, hooks: RunHooks = {}) {
      jobs.push(job)
      files.push([...(job.files ?? []), ...(job.filesAt ?? []).map((f) => ({ name: f.name, contentBase64: readStoredFile(f).toString('base64') }))])
      busy++
      try {
        await Promise.resolve()
        const result = await behave(job)
        hooks.onCompiled?.(result.compile)
        if (gate) await gate.promise
        return result
      } finally {
        busy--
      }
    },
    reconfigure() {},
    resumesInFlight: false,
    available: () => undefined,
    onCapacity() {},
    async close() {},
  }
}
