// Pure: an interview's status (upcoming | ongoing | completed) and its end, from its times and markers.
export type InterviewStatus = 'upcoming' | 'ongoing' | 'completed'

export interface StatusInput {
  startAt: Date
  /** Set once the interview was seen ongoing; an update that moves startAt later cannot undo it. */
  startedAt: Date | null
  /** Set when an interviewer ended it (or when it was concluded after the maximum duration). */
  endedAt: Date | null
}

/** When the interview counts as started: the earlier of the schedule and the recorded start. */
const effectiveStart = (i: StatusInput): number =>
  i.startedAt ? Math.min(i.startedAt.getTime(), i.startAt.getTime()) : i.startAt.getTime()

/** The end: when it was ended, else the scheduled start plus the maximum duration. */
export function endOf(i: StatusInput, maxDurationMs: number): Date {
  if (i.endedAt) return i.endedAt
  return new Date(effectiveStart(i) + maxDurationMs)
}

/** Status at `now`. Monotonic as long as the markers are kept: upcoming → ongoing → completed. */
export function statusAt(i: StatusInput, now: Date, maxDurationMs: number): InterviewStatus {
  const t = now.getTime()
  if (i.endedAt && i.endedAt.getTime() <= t) return 'completed'
  if (t >= effectiveStart(i) + maxDurationMs) return 'completed'
  if (i.startedAt || t >= i.startAt.getTime()) return 'ongoing'
  return 'upcoming'
}
