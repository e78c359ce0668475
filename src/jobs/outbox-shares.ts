// How the outbox's delivery slots are shared (docs/admin/outbox.md): by share (an API client, a company,
// e-mail), then by destination, taken in turn; a destination that times out is held back and probed
// with one slot until it answers again. Pure rules and the destinations' state; outbox.ts applies them.
import type { OutboxKind } from '../storage/outbox-kinds.ts'

/** The share of every e-mail (one SMTP server: one destination). */
export const EMAIL_SHARE = 'email'
export const SMTP_DESTINATION = 'smtp'

/** The share and destination a new row is stored with. */
export function shareOf(kind: OutboxKind, target: string, owner: string | undefined): { share: string; destination: string } {
  if (kind === 'email') return { share: EMAIL_SHARE, destination: SMTP_DESTINATION }
  const destination = destinationOf(target)
  // a delivery no one owns (none today) shares with the rest of its destination's
  return { share: owner ?? `destination:${destination}`, destination }
}

/** A URL's origin (scheme, host, port), lower case: what one receiver is. */
export function destinationOf(target: string): string {
  try {
    return new URL(target).origin.toLowerCase()
  } catch {
    return target
  }
}

export interface SlotCaps {
  /** Slots e-mails may hold (kept for them: callbacks never take them). */
  email: number
  /** Slots all callbacks together may hold. */
  callbacks: number
  /** Slots one share (a client, a company) may hold. */
  perShare: number
  /** Slots one healthy destination may hold (of one share). */
  perDestination: number
}

/** The caps for outbox.concurrency slots (16: e-mail 4, callbacks 12, a client 6, a destination 3). */
export function slotCaps(concurrency: number): SlotCaps {
  const email = Math.max(1, Math.floor(concurrency / 4))
  const callbacks = Math.max(1, concurrency - email)
  return { email, callbacks, perShare: Math.max(1, Math.ceil(callbacks / 2)), perDestination: Math.max(1, Math.ceil(callbacks / 4)) }
}

/** An error that means the destination did not answer in time (it held a slot for the whole timeout). */
export const isTimeout = (err: unknown): boolean =>
  err instanceof Error && (err.name === 'TimeoutError' || (err as NodeJS.ErrnoException).code === 'ETIMEDOUT')

interface Sick {
  /** Timeouts in a row. */
  streak: number
  /** No new delivery to it before this (ms since the epoch). */
  holdUntil: number
}

/**
 * The destinations that timed out: each is held back for a backoff that grows with its streak of
 * timeouts, then given one slot at a time until a delivery to it succeeds (or fails fast: it answered).
 */
export function destinationHealth(backoff: (streak: number) => number) {
  const sick = new Map<string, Sick>()
  return {
    /** Slots this destination may hold now: 0 while held back, 1 while sick, else the healthy cap. */
    cap(destination: string, healthy: number, now: number): number {
      const s = sick.get(destination)
      if (!s) return healthy
      return now < s.holdUntil ? 0 : 1
    },
    /** The streak of timeouts (0 = healthy). */
    streak: (destination: string) => sick.get(destination)?.streak ?? 0,
    timedOut(destination: string, now: number): void {
      const streak = (sick.get(destination)?.streak ?? 0) + 1
      sick.set(destination, { streak, holdUntil: now + backoff(streak) })
    },
    answered(destination: string): void {
      sick.delete(destination)
    },
    /** The earliest moment a held destination may be tried again, after now. */
    nextRelease(now: number): number | undefined {
      let next: number | undefined
      for (const s of sick.values()) if (s.holdUntil > now && (next === undefined || s.holdUntil < next)) next = s.holdUntil
      return next
    },
    get size() {
      return sick.size
    },
  }
}
