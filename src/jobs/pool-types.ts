// The contract of the worker pool as the rest of the app sees it (tests pass a fake).
import type { Config } from '../config.ts'
import type { CompileOutcome, Job, JobResult, TestOutcome } from './types.ts'

export interface RunHooks {
  /** Called once the compile step is over, before the run step starts (v4 CODE_COMPILED). */
  onCompiled?: (outcome: CompileOutcome) => void
  /** A graded job's test `index` (0-based) is over (a poll shows result.tests filling in). */
  onTest?: (index: number, outcome: TestOutcome) => void
}

export interface Pool {
  run(job: Job, hooks?: RunHooks): Promise<JobResult>
  /** Jobs running now. */
  readonly busy: number
  readonly size: number
  /** A reloaded config (SIGHUP): later jobs use its limits; jobs in flight finish as they started. */
  reconfigure?(config: Config): void
  close(): Promise<void>
}
