// The contract of the worker pool as the rest of the app sees it (tests pass a fake).
import type { Config } from '../config.ts'
import type { CompileOutcome, Job, JobResult, TestOutcome } from './types.ts'

export interface RunHooks {
  /** Called once the compile step is over, before the run step starts (v4 CODE_COMPILED). */
  onCompiled?: (outcome: CompileOutcome) => void
  /** A graded job's test `index` (0-based) is over (a poll shows result.tests filling in). */
  onTest?: (index: number, outcome: TestOutcome) => void
  /** The claim this run belongs to (submission id and claim token): a shared queue's job id, so a job is never out twice. */
  jobKey?: string
}

/**
 * A job's progress in the one vocabulary every carrier uses: a pool thread's port, the jail daemon's
 * socket (the sandbox hosts' wire says the same with `kind`, src/sandbox-hosts/wire.ts).
 */
export type Progress = { type: 'compiled'; outcome: CompileOutcome } | { type: 'test'; index: number; outcome: TestOutcome }

/** Hooks that send each step's end as a Progress message. */
export const sendProgress = (send: (m: Progress) => void): RunHooks => ({
  onCompiled: (outcome) => send({ type: 'compiled', outcome }),
  onTest: (index, outcome) => send({ type: 'test', index, outcome }),
})

/** Hands a Progress message to the hooks; false for any other message (a result, an error). */
export function relayProgress(hooks: RunHooks, m: { type: string }): m is Progress {
  const p = m as Progress
  if (p.type === 'compiled') hooks.onCompiled?.(p.outcome)
  else if (p.type === 'test') hooks.onTest?.(p.index, p.outcome)
  else return false
  return true
}

/** A claim's key (submission id and attempt): RunHooks.jobKey, the shared queue's job id. */
export const jobKey = (id: number, attempt: number) => `s${id}-a${attempt}`

export function parseJobKey(key: string): { id: number; attempt: number } | undefined {
  const m = /^s(\d{1,15})-a(\d{1,6})$/.exec(key)
  return m ? { id: Number(m[1]), attempt: Number(m[2]) } : undefined
}

export interface Pool {
  run(job: Job, hooks?: RunHooks): Promise<JobResult>
  /** Jobs running now. */
  readonly busy: number
  readonly size: number
  /** A reloaded config (SIGHUP): later jobs use its limits; jobs in flight finish as they started. */
  reconfigure?(config: Config): void
  /** Languages a job may be handed over in now; absent or undefined = any (while busy < size). Sandbox hosts take only their own. */
  available?(): ReadonlySet<string> | undefined
  /**
   * Jobs out when the server stopped may still be running elsewhere (sandbox hosts): the dispatcher runs
   * them again under the same claim, and the pool attaches to the job already out instead of starting one.
   */
  readonly resumesInFlight?: boolean
  /** Called when the pool can take more jobs than before (a host joined, Redis came back). */
  onCapacity?(fn: () => void): void
  close(): Promise<void>
}
