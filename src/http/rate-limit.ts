// Per-subject rate limits (interview API: 60 per minute and 5000 per day per user). Counters live in
// SQLite so a restart does not hand out a fresh allowance.
import { and, eq } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { rateCounters } from '../storage/schema.ts'

export interface RateLimits {
  perMinute: number
  perDay: number
}

const WINDOWS = [
  { window: 'minute', ms: 60_000, limit: (l: RateLimits) => l.perMinute },
  { window: 'day', ms: 86_400_000, limit: (l: RateLimits) => l.perDay },
] as const

/** Seconds until `subject` may be counted again (0: it may now), without counting anything. */
export function rateRefusal(deps: Pick<Deps, 'db' | 'now'>, subject: string, limits: RateLimits): number {
  const now = deps.now()
  let wait = 0
  for (const w of WINDOWS) {
    const row = deps.db
      .select()
      .from(rateCounters)
      .where(and(eq(rateCounters.subject, subject), eq(rateCounters.window, w.window)))
      .get()
    if (!row || now.getTime() - row.startedAt.getTime() >= w.ms || now < row.startedAt) continue
    if (row.count >= w.limit(limits)) wait = Math.max(wait, Math.ceil((row.startedAt.getTime() + w.ms - now.getTime()) / 1000))
  }
  return wait
}

/**
 * Counts one call for `subject`, or throws RATELIMITEXCEEDED (data.retryAfterSec) without counting it.
 * Each window starts at the first call it counts and lasts its length, so N calls in a burst always
 * meet the limit at call N+1 however they fall against the wall clock.
 */
export function consumeRate(deps: Pick<Deps, 'db' | 'now'>, subject: string, limits: RateLimits): void {
  const now = deps.now()
  // one synchronous transaction: concurrent requests cannot both take the last slot
  const refusedFor = deps.db.transaction(
    (tx) => {
      const next = []
      for (const w of WINDOWS) {
        const row = tx
          .select()
          .from(rateCounters)
          .where(and(eq(rateCounters.subject, subject), eq(rateCounters.window, w.window)))
          .get()
        const fresh = !row || now.getTime() - row.startedAt.getTime() >= w.ms || now < row.startedAt
        const startedAt = fresh ? now : row.startedAt
        const count = fresh ? 0 : row.count
        if (count >= w.limit(limits)) return Math.max(1, Math.ceil((startedAt.getTime() + w.ms - now.getTime()) / 1000))
        next.push({ subject, window: w.window, startedAt, count: count + 1 })
      }
      for (const v of next) {
        tx.insert(rateCounters)
          .values(v)
          .onConflictDoUpdate({ target: [rateCounters.subject, rateCounters.window], set: { startedAt: v.startedAt, count: v.count } })
          .run()
      }
      return 0
    },
    { behavior: 'immediate' }
  )
  if (refusedFor > 0) throw new AppError('RATELIMITEXCEEDED', '', { retryAfterSec: refusedFor })
}
