// Where a submission's time goes in the core, summed since start (GET /metrics shows the sums; the
// bench-apis breakdown reads their differences over a window): the accept (validation, the payload's
// files, the insert), the wait in the queue (accept → claim), the claim, the pool's round trip (the
// hand-off to a worker thread, the worker's own work and the jail's steps; metrics.ts sets the jailed
// steps' own wall time beside it) and the store of the result (completion, callbacks enqueued).
// Sums and counts only: no submission, client or content is named.

export const CORE_PHASES = ['accept', 'queued', 'claim', 'pool', 'store'] as const
export type CorePhase = (typeof CORE_PHASES)[number]

const totals: Record<CorePhase, { seconds: number; count: number }> = {
  accept: { seconds: 0, count: 0 },
  queued: { seconds: 0, count: 0 },
  claim: { seconds: 0, count: 0 },
  pool: { seconds: 0, count: 0 },
  store: { seconds: 0, count: 0 },
}

export function notePhase(phase: CorePhase, ms: number): void {
  totals[phase].seconds += ms / 1000
  totals[phase].count++
}

export const corePhaseTotals = (): Readonly<Record<CorePhase, { readonly seconds: number; readonly count: number }>> => totals
