// The contract of the worker pool as the rest of the app sees it (tests pass a fake). Types only: deps.ts
// and every pool import it without loading any pool (progress.ts holds the helpers of its vocabulary).
import type { Config } from '../config.ts'
import type { CompileOutcome, Job, JobResult, TestOutcome } from './types.ts'

export interface RunHooks {
  /**
   * Called once the compile step is over (v4 CODE_COMPILED). A pool thread holds it
   * COMPILED_REPORT_DELAY_MS (progress.ts) and drops it when the job ends sooner: then only the result
   * carries the step, and a caller takes a step not reported as one reported with the result.
   */
  onCompiled?: (outcome: CompileOutcome) => void
  /** A graded job's test `index` (0-based) is over (a poll shows result.tests filling in). */
  onTest?: (index: number, outcome: TestOutcome) => void
  /** The claim this run belongs to (submission id and claim token): a shared queue's job id, so a job is never out twice. */
  jobKey?: string
}

/**
 * A job's progress in the one vocabulary every carrier uses: a pool thread's messages, the jail daemon's
 * socket (the sandbox hosts' wire says the same with `kind`, src/sandbox-hosts/wire.ts).
 */
export type Progress = { type: 'compiled'; outcome: CompileOutcome } | { type: 'test'; index: number; outcome: TestOutcome }

export interface Pool {
  run(job: Job, hooks?: RunHooks): Promise<JobResult>
  /** Jobs running now. */
  readonly busy: number
  readonly size: number
  /** A reloaded config (SIGHUP): later jobs use its limits; jobs in flight finish as they started. */
  reconfigure(config: Config): void
  /** Languages a job may be handed over in now; undefined = any (while busy < size). Sandbox hosts take only their own. */
  available(): ReadonlySet<string> | undefined
  /**
   * Jobs out when the server stopped may still be running elsewhere (sandbox hosts): the dispatcher runs
   * them again under the same claim, and the pool attaches to the job already out instead of starting one.
   */
  readonly resumesInFlight: boolean
  /** Called when the pool can take more jobs than before (a host joined, Redis came back); a fixed pool never calls it. */
  onCapacity(fn: () => void): void
  close(): Promise<void>
}
