// The report of an interview: every interviewer's feedback rendered on the 1–5 scale (B4's body), and
// the signed report callback it sends to callback_url when the interview ends (and again on later feedback).
import { eq } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { normaliseCallbackUrl } from '../jobs/callback.ts'
import { enqueueDelivery, type OutboxRow } from '../jobs/outbox.ts'
import type { Db } from '../storage/db.ts'
import { companies, interviewFeedback, interviews } from '../storage/schema.ts'
import { formatOffsetDateTime } from './datetime.ts'
import { RATING_KEYS, ratingMessage, verboseName, type SubmittedRating } from './feedback.ts'
import { success, type Feedback, type Rating } from './schemas.ts'
import { endOf } from './status.ts'
import { currentParticipants, maxDurationMs, type Interview, type LifeDeps, type Participant, type Tx } from './records.ts'

export type StoredRatings = Record<string, SubmittedRating>

const emptyRating = (verbose: string): Rating => ({ rating: null, comment: null, verbose_name: verbose, rating_message: null })

function renderRatings(stored: StoredRatings, keys: string[], evalParams: boolean): Record<string, Rating> {
  return Object.fromEntries(
    keys.map((key) => {
      const verbose = evalParams ? key : verboseName(key)
      const r = Object.hasOwn(stored, key) ? stored[key] : undefined
      if (!r) return [key, emptyRating(verbose)]
      return [key, { rating: String(r.rating), comment: r.comment, verbose_name: verbose, rating_message: ratingMessage(key, r.rating, evalParams) }]
    })
  )
}

const unsubmitted = (): Feedback => ({ result: null, ratings: null, eval_params_ratings: null })

/** Current interviewer e-mail → rendered feedback, for the interviewers `visible` lets through. */
export function feedbacksOf(tx: Pick<Db, 'select'>, row: Interview, visible: (p: Participant) => boolean): Record<string, Feedback> {
  const stored = new Map(
    tx
      .select()
      .from(interviewFeedback)
      .where(eq(interviewFeedback.interviewId, row.id))
      .all()
      .map((f) => [f.interviewerEmail, f])
  )
  return Object.fromEntries(
    currentParticipants(tx, row.id)
      .filter((p) => p.role === 'interviewer' && visible(p))
      .map((p) => {
        const f = stored.get(p.email.toLowerCase())
        if (!f) return [p.email, unsubmitted()]
        return [
          p.email,
          { result: f.result, ratings: renderRatings(f.ratings, RATING_KEYS, false), eval_params_ratings: renderRatings(f.evalParamsRatings, row.evalParams, true) },
        ]
      })
  )
}

// ── the report callback ────────────────────────────────────────────────────────────────────────────

/** The B4 body with every interviewer's feedback: what callback_url receives. */
export function callbackReport(deps: LifeDeps, tx: Tx, row: Interview) {
  const maxMs = maxDurationMs(deps)
  return {
    ...success(),
    interview_id: row.id,
    start_datetime: formatOffsetDateTime(row.startAt, row.startOffsetMin),
    end_datetime: formatOffsetDateTime(endOf(row, maxMs), row.startOffsetMin),
    status: 'completed' as const,
    interviewer_feedbacks: feedbacksOf(tx, row, () => true),
  }
}

/** Enqueues the report for callback_url (if one was given); signed when it is sent (jobs/signature.ts). */
export function enqueueReport(deps: LifeDeps, tx: Tx, row: Interview, now: Date) {
  if (!row.callbackUrl) return
  enqueueDelivery(
    tx,
    {
      kind: 'interview_report',
      subjectId: row.id,
      target: normaliseCallbackUrl(row.callbackUrl),
      body: JSON.stringify(callbackReport(deps, tx, row)),
      contentType: 'application/json',
      headers: { 'x-arbiter-event': 'interview.report' },
      // later reports (feedback after the end) follow the first in order and replace a failing one
      groupKey: `report:${row.id}`,
      owner: `company:${row.companyId}`,
    },
    now
  )
}

/** The signing key of a report delivery: its company's webhook secret (null once the interview is gone). */
export function reportSecret(deps: Pick<Deps, 'db'>, row: Pick<OutboxRow, 'subjectId'>): string | null {
  const id = row.subjectId
  if (!id) return null
  return (
    deps.db
      .select({ secret: companies.webhookSecret })
      .from(interviews)
      .innerJoin(companies, eq(companies.id, interviews.companyId))
      .where(eq(interviews.id, id))
      .get()?.secret ?? null
  )
}
