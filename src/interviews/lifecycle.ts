// The life of an interview after B2: its status settled as time passes (started, completed, the report
// enqueued once), the room's view, feedback, ending it, and the minute sweep (concludeDueInterviews).
import { and, eq, isNotNull, isNull, lte, or } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { interviewFeedback, interviews } from '../storage/schema.ts'
import { formatOffsetDateTime } from './datetime.ts'
import type { FeedbackSubmission } from './feedback.ts'
import { endOf, statusAt, type InterviewStatus } from './status.ts'
import { currentParticipants, liveInterview, maxDurationMs, type Interview, type LifeDeps, type Tx } from './records.ts'
import { enqueueReport, type StoredRatings } from './report.ts'

/**
 * The status now, with the lifecycle markers written the first time it is seen ongoing or completed,
 * so a later update of start_datetime cannot make it go back. Seeing it completed for the first time is
 * its conclusion: the report callback is enqueued in the same transaction.
 */
export function settle(deps: LifeDeps, tx: Tx, row: Interview, now: Date): { row: Interview; status: InterviewStatus } {
  const maxMs = maxDurationMs(deps)
  const status = statusAt(row, now, maxMs)
  const set: Partial<Interview> = {}
  if (status !== 'upcoming' && !row.startedAt) set.startedAt = row.startAt
  if (status === 'completed' && !row.endedAt) set.endedAt = endOf(row, maxMs)
  if (Object.keys(set).length === 0) return { row, status }
  const changed = tx
    .update(interviews)
    .set(set)
    .where(and(eq(interviews.id, row.id), set.endedAt ? isNull(interviews.endedAt) : undefined))
    .run().changes
  const next = { ...row, ...set }
  if (set.endedAt && changed === 1) enqueueReport(deps, tx, next, now)
  return { row: next, status }
}

// ── the room and the lifecycle ─────────────────────────────────────────────────────────────────────

/** What the room shows: the interview, its status now, and the current participants. */
export function roomInterview(deps: Deps, interviewId: string) {
  return deps.db.transaction((tx) => {
    const { row, status } = settle(deps, tx, liveInterview(tx, interviewId), deps.now())
    return {
      row,
      status,
      startDatetime: formatOffsetDateTime(row.startAt, row.startOffsetMin),
      endDatetime: formatOffsetDateTime(endOf(row, maxDurationMs(deps)), row.startOffsetMin),
      participants: currentParticipants(tx, row.id),
    }
  })
}

/** An interviewer's own stored feedback (the room's form starts from it), or null. */
export function storedFeedback(deps: Pick<Deps, 'db'>, interviewId: string, interviewerEmail: string) {
  const f = deps.db
    .select()
    .from(interviewFeedback)
    .where(and(eq(interviewFeedback.interviewId, interviewId), eq(interviewFeedback.interviewerEmail, interviewerEmail.toLowerCase())))
    .get()
  return f ? { result: f.result, ratings: f.ratings, evalParamsRatings: f.evalParamsRatings } : null
}

/** The status now (and the markers it implies), for the room's periodic check. */
export const interviewStatus = (deps: Deps, interviewId: string): InterviewStatus =>
  deps.db.transaction((tx) => settle(deps, tx, liveInterview(tx, interviewId), deps.now()).status)

/**
 * An interviewer ends the interview: completed now, and the report goes out. Ending one that has not
 * reached its start counts it as started now. Ending it twice changes nothing.
 */
export function endInterview(deps: Deps, interviewId: string): { status: InterviewStatus; ended: boolean } {
  const result = deps.db.transaction(
    (tx) => {
      const now = deps.now()
      const { row, status } = settle(deps, tx, liveInterview(tx, interviewId), now)
      if (status === 'completed') return { status, ended: false }
      const set = { startedAt: row.startedAt ?? now, endedAt: now }
      tx.update(interviews)
        .set(set)
        .where(and(eq(interviews.id, row.id), isNull(interviews.endedAt)))
        .run()
      enqueueReport(deps, tx, { ...row, ...set }, now)
      return { status: 'completed' as const, ended: true }
    },
    { behavior: 'immediate' }
  )
  // the report (and anything else enqueued) goes out now, not at the outbox's next look
  deps.outbox.wake()
  return result
}

/**
 * Stores (or replaces) an interviewer's feedback. Feedback given after the end is still taken: the
 * report is then sent to callback_url again, with it.
 */
export function submitFeedback(deps: Deps, interviewId: string, interviewerEmail: string, input: FeedbackSubmission): void {
  deps.db.transaction(
    (tx) => {
      const now = deps.now()
      const { row, status } = settle(deps, tx, liveInterview(tx, interviewId), now)
      const unknown = Object.keys(input.eval_params_ratings).find((k) => !row.evalParams.includes(k))
      if (unknown !== undefined) throw new AppError('BADDATA', `"${unknown}" is not an eval_param of this interview`)
      const values = {
        result: input.result,
        ratings: input.ratings as StoredRatings,
        evalParamsRatings: input.eval_params_ratings,
        submittedAt: now,
      }
      tx.insert(interviewFeedback)
        .values({ interviewId: row.id, interviewerEmail: interviewerEmail.toLowerCase(), ...values })
        .onConflictDoUpdate({ target: [interviewFeedback.interviewId, interviewFeedback.interviewerEmail], set: values })
        .run()
      if (status === 'completed') enqueueReport(deps, tx, row, now)
    },
    { behavior: 'immediate' }
  )
  deps.outbox.wake()
}

/**
 * The minute sweep (schedule.ts): every live interview that has started and not ended is settled, so
 * interviews move to ongoing and, after interviews.max_duration_min, to completed with their report
 * sent, even when nobody asks about them.
 */
export function concludeDueInterviews(deps: Deps): { started: number; completed: number } {
  const now = deps.now()
  const due = deps.db
    .select({ id: interviews.id })
    .from(interviews)
    .where(and(isNull(interviews.deletedAt), isNull(interviews.endedAt), or(lte(interviews.startAt, now), isNotNull(interviews.startedAt))))
    .all()
  let started = 0
  let completed = 0
  for (const { id } of due) {
    deps.db.transaction(
      (tx) => {
        const row = tx.select().from(interviews).where(eq(interviews.id, id)).get()
        if (!row || row.deletedAt || row.endedAt) return
        const after = settle(deps, tx, row, now).row
        if (!row.startedAt && after.startedAt) started++
        if (after.endedAt) completed++
      },
      { behavior: 'immediate' }
    )
  }
  return { started, completed }
}
