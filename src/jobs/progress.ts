// A job's progress sent and relayed in the one vocabulary of pool-types.ts (Progress), and a claim's key.
import type { Progress, RunHooks } from './pool-types.ts'

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
