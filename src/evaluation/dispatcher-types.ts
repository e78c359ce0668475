// The dispatcher's contract (dispatcher.ts builds it), types only: deps.ts names it without loading the dispatcher.
import type { Submission } from './model.ts'

export interface Dispatcher {
  /** Re-queues what a crash left running, then starts claiming. */
  start(): void
  /** A submission was queued: claim while slots are free. */
  wake(): void
  /** Resolves once the submission is completed (synchronous requests wait on this; no polling). */
  waitFor(id: number): Promise<Submission>
  /** The same with a deadline: undefined when the submission is not completed within timeoutMs. */
  waitFor(id: number, timeoutMs: number): Promise<Submission | undefined>
  /** Stops claiming and waits (up to graceMs) for the jobs in flight; the rest are re-run after restart. */
  stop(graceMs?: number): Promise<void>
  readonly inFlight: number
}
