// A job's progress sent and relayed in the one vocabulary of pool-types.ts (Progress), and a claim's key.
import type { Progress, RunHooks } from './pool-types.ts'
import type { CompileOutcome } from './types.ts'

/** Hooks that send each step's end as a Progress message. */
export const sendProgress = (send: (m: Progress) => void): RunHooks => ({
  onCompiled: (outcome) => send({ type: 'compiled', outcome }),
  onTest: (index, outcome) => send({ type: 'test', index, outcome }),
})

/**
 * How long a pool thread holds a compile step's report (v4 CODE_COMPILED) before sending it. A job whose
 * run ends sooner (most do) carries its compile step in its result instead: the completion stores both in
 * one commit and sends CODE_COMPILED just before REQUEST_COMPLETED, and no progress message, extra commit
 * or extra wake-up of the main thread is spent on it (~0.7 ms of the server's CPU a v4 C job,
 * docs/sandbox/performance.md). A run that lasts longer still shows CODE_COMPILED while it runs, this
 * much after its compile step ended.
 */
export const COMPILED_REPORT_DELAY_MS = 100

/**
 * Hooks whose compile report waits `delayMs` (COMPILED_REPORT_DELAY_MS), and `settle()` for the job's end,
 * which drops a report still waiting (the result carries it). A test's end sends a waiting report
 * first, so the compile step is always heard of before any test.
 */
export function deferCompiled(hooks: RunHooks, delayMs: number): RunHooks & { settle(): void } {
  let waiting: CompileOutcome | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    clearTimeout(timer)
    timer = undefined
    const outcome = waiting
    waiting = undefined
    if (outcome) hooks.onCompiled?.(outcome)
  }
  return {
    onCompiled(outcome) {
      flush()
      waiting = outcome
      timer = setTimeout(flush, delayMs)
    },
    onTest(index, outcome) {
      flush()
      hooks.onTest?.(index, outcome)
    },
    settle() {
      clearTimeout(timer)
      timer = undefined
      waiting = undefined
    },
  }
}

/** A progress message from a pool thread: the run it belongs to (its number in pool.ts) and the Progress. */
export interface ThreadProgress {
  progressOf: number
  progress: Progress
}

export const isThreadProgress = (m: unknown): m is ThreadProgress =>
  typeof m === 'object' && m !== null && typeof (m as ThreadProgress).progressOf === 'number' && typeof (m as ThreadProgress).progress === 'object'

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
