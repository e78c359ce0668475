// What the sandbox hosts' queue reports for /health and /metrics (remote-pool.ts builds it), types only:
// deps.ts names it without loading BullMQ.
export interface RemoteStatus {
  redis: 'ok' | 'unreachable'
  url: string
  hosts: { id: string; languages: number; slots: number }[]
  slots: number
  /** Every language some live host has. */
  languages: string[]
  out: number
  /** Jobs out for a language no live host has (they wait, and go as soon as one advertises it). */
  waiting_for_a_host: Record<string, number>
}
