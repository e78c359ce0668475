// The interview service: create / read / update / report / delete. The spec's rules become AppError(ecode);
// every write is one synchronous SQLite transaction, so a failed request leaves nothing behind.
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Db } from '../storage/db.ts'
import { companies, interviewFeedback, interviewParticipants, interviews } from '../storage/schema.ts'
import type { ApiUser } from './accounts.ts'
import { formatOffsetDateTime, parseOffsetDateTime } from './datetime.ts'
import { hashToken, linkUrl, mintToken } from './links.ts'
import { downloadResume, removeResume, signedResumeUrl, storeResume, verifyResumeSignature, readStoredResume } from './resume.ts'
import {
  crossFieldProblem,
  normalizePhone,
  RATING_KEYS,
  RATING_MESSAGES,
  type DeleteRequest,
  type Feedback,
  type InterviewCreate,
  type InterviewerInput,
  type InterviewUpdate,
  type Rating,
  type ReportRequest,
} from './schemas.ts'
import { endOf, statusAt, type InterviewStatus } from './status.ts'

type Interview = typeof interviews.$inferSelect
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

export interface Links {
  interview_id: string
  candidate_interview_link: string
  interviewer_interview_links: Record<string, string>
}

const notFound = () => new AppError('INTERVIEWNOTFOUND')
const maxDurationMs = (deps: Pick<Deps, 'config'>) => deps.config.interviews.max_duration_min * 60_000

/** A new interview id: a UUID written as 32 lowercase hex characters. */
export const newInterviewId = () => randomUUID().replace(/-/g, '')

/** 32 hex digits or the hyphenated UUID form, any case → the stored form; anything else → null. */
export function normalizeInterviewId(raw: string): string | null {
  const s = raw.trim().toLowerCase()
  if (/^[0-9a-f]{32}$/.test(s)) return s
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(s)) return s.replace(/-/g, '')
  return null
}

/**
 * The live interview with this id, of the caller's company. Another company's interview answers
 * INTERVIEWNOTFOUND exactly like an unknown one, so ids cannot be probed across companies.
 */
function findInterview(db: Pick<Db, 'select'>, user: ApiUser, rawId: string): Interview {
  const id = normalizeInterviewId(rawId)
  if (!id) throw notFound()
  const row = db
    .select()
    .from(interviews)
    .where(and(eq(interviews.id, id), eq(interviews.companyId, user.companyId), isNull(interviews.deletedAt)))
    .get()
  if (!row) throw notFound()
  return row
}

/**
 * The status now, with the lifecycle markers written the first time it is seen ongoing or completed,
 * so a later update of start_datetime cannot make it go back.
 */
function settle(tx: Pick<Db, 'update'>, row: Interview, now: Date, maxMs: number): { row: Interview; status: InterviewStatus } {
  const status = statusAt(row, now, maxMs)
  const set: Partial<Interview> = {}
  if (status !== 'upcoming' && !row.startedAt) set.startedAt = row.startAt
  if (status === 'completed' && !row.endedAt) set.endedAt = endOf(row, maxMs)
  if (Object.keys(set).length === 0) return { row, status }
  tx.update(interviews).set(set).where(eq(interviews.id, row.id)).run()
  return { row: { ...row, ...set }, status }
}

function insertParticipants(
  tx: Tx,
  deps: Pick<Deps, 'config'>,
  interviewId: string,
  candidate: { full_name: string; email_id: string },
  interviewers: InterviewerInput[],
  now: Date
): Links {
  const publicUrl = deps.config.server.public_url
  const rows = [
    { role: 'candidate' as const, fullName: candidate.full_name.trim(), email: candidate.email_id.trim(), feedbackRedirectUrl: null, position: 0 },
    ...interviewers.map((i, n) => ({
      role: 'interviewer' as const,
      fullName: i.full_name.trim(),
      email: i.email_id.trim(),
      feedbackRedirectUrl: i.feedback_redirect_url ?? null,
      position: n,
    })),
  ].map((r) => ({ ...r, token: mintToken() }))
  tx.insert(interviewParticipants)
    .values(rows.map(({ token, ...r }) => ({ ...r, interviewId, tokenHash: hashToken(token), createdAt: now })))
    .run()
  const [cand, ...rest] = rows
  return {
    interview_id: interviewId,
    candidate_interview_link: linkUrl(publicUrl, cand.token),
    interviewer_interview_links: Object.fromEntries(rest.map((r) => [r.email, linkUrl(publicUrl, r.token)])),
  }
}

const revokeParticipants = (tx: Pick<Db, 'update'>, interviewId: string, now: Date) =>
  tx
    .update(interviewParticipants)
    .set({ revokedAt: now })
    .where(and(eq(interviewParticipants.interviewId, interviewId), isNull(interviewParticipants.revokedAt)))
    .run()

function checkCrossFields(input: Parameters<typeof crossFieldProblem>[0]) {
  const problem = crossFieldProblem(input)
  if (problem) throw new AppError(problem)
}

// ── B2 ─────────────────────────────────────────────────────────────────────────────────────────────

/** B2: one credit is spent in the same transaction as the insert; with none left, BUYCREDITS. */
export async function createInterview(deps: Deps, user: ApiUser, input: InterviewCreate): Promise<Links> {
  checkCrossFields(input)
  const start = parseOffsetDateTime(input.start_datetime)!
  const contact = input.candidate_details.contact_number ? normalizePhone(input.candidate_details.contact_number) : null
  const hasCredit = () =>
    (deps.db.select({ credits: companies.credits }).from(companies).where(eq(companies.id, user.companyId)).get()?.credits ?? 0) > 0
  // fail before the download when the credits are already gone; the transaction below is what decides
  if (!hasCredit()) throw new AppError('BUYCREDITS')

  let resumeFile: string | null = null
  if (input.candidate_details.resume_url) {
    const bytes = await downloadResume(deps, input.candidate_details.resume_url)
    resumeFile = await storeResume(deps.config.dataDir, bytes)
  }
  try {
    return deps.db.transaction(
      (tx) => {
        const now = deps.now()
        const spent = tx
          .update(companies)
          .set({ credits: sql`${companies.credits} - 1` })
          .where(and(eq(companies.id, user.companyId), gt(companies.credits, 0)))
          .run()
        if (spent.changes !== 1) throw new AppError('BUYCREDITS')
        const id = newInterviewId()
        tx.insert(interviews)
          .values({
            id,
            companyId: user.companyId,
            createdBy: user.id,
            title: input.title.trim(),
            startAt: start.at,
            startOffsetMin: start.offsetMin,
            candidateName: input.candidate_details.full_name.trim(),
            candidateEmail: input.candidate_details.email_id.trim(),
            candidateContact: contact,
            resumeFile,
            evalParams: (input.eval_params ?? []).map((p) => p.trim()),
            callbackUrl: input.callback_url ?? null,
            informCandidate: input.inform_candidate ?? true,
            informInterviewers: input.inform_interviewers ?? true,
            createdAt: now,
            updatedAt: now,
          })
          .run()
        // TODO(#6): enqueue invite e-mails (jobs/outbox.ts enqueueDelivery, kind 'email') here, in this
        // transaction, for the candidate unless inform_candidate is false and each interviewer unless
        // inform_interviewers is false; the mailer does not exist yet.
        return insertParticipants(tx, deps, id, input.candidate_details, input.interviewers, now)
      },
      { behavior: 'immediate' }
    )
  } catch (err) {
    await removeResume(deps.config.dataDir, resumeFile)
    throw err
  }
}

// ── B1 ─────────────────────────────────────────────────────────────────────────────────────────────

export function readInterview(deps: Deps, user: ApiUser, rawId: string) {
  return deps.db.transaction((tx) => {
    const { row, status } = settle(tx, findInterview(tx, user, rawId), deps.now(), maxDurationMs(deps))
    const people = currentParticipants(tx, row.id)
    return {
      interview_id: row.id,
      title: row.title,
      start_datetime: formatOffsetDateTime(row.startAt, row.startOffsetMin),
      status,
      candidate_details: {
        full_name: row.candidateName,
        email_id: row.candidateEmail,
        contact_number: row.candidateContact,
        resume_url: row.resumeFile ? signedResumeUrl(deps, row.id, row.resumeFile) : null,
      },
      interviewers: people
        .filter((p) => p.role === 'interviewer')
        .map((p) => ({ full_name: p.fullName, email_id: p.email, feedback_redirect_url: p.feedbackRedirectUrl })),
      eval_params: row.evalParams,
    }
  })
}

const currentParticipants = (db: Pick<Db, 'select'>, interviewId: string) =>
  db
    .select()
    .from(interviewParticipants)
    .where(and(eq(interviewParticipants.interviewId, interviewId), isNull(interviewParticipants.revokedAt)))
    .orderBy(asc(interviewParticipants.role), asc(interviewParticipants.position))
    .all()

// ── B3 ─────────────────────────────────────────────────────────────────────────────────────────────

/**
 * B3: replaces the schedule and the interviewers. Every participant gets a fresh link and the old ones
 * stop working (links are stored hashed, so the reply can only carry new ones). Optional members that
 * are left out (contact_number, eval_params) keep their stored values.
 */
export function updateInterview(deps: Deps, user: ApiUser, rawId: string, input: InterviewUpdate): Links {
  checkCrossFields(input)
  const start = parseOffsetDateTime(input.start_datetime)!
  const contact = input.candidate_details.contact_number ? normalizePhone(input.candidate_details.contact_number) : undefined
  return deps.db.transaction(
    (tx) => {
      const now = deps.now()
      const { row, status } = settle(tx, findInterview(tx, user, rawId), now, maxDurationMs(deps))
      if (status === 'completed') throw new AppError('ENDEDINTERVIEWUPDATIONDENIED')
      if (input.candidate_details.email_id.trim().toLowerCase() !== row.candidateEmail.toLowerCase()) {
        throw new AppError('CANDIDATEEMAILUPDATENOTALLOWED')
      }
      if (start.at.getTime() < now.getTime() - deps.config.interviews.start_time_grace_sec * 1000) {
        throw new AppError('INVALIDINTERVIEWSTARTTIME')
      }
      tx.update(interviews)
        .set({
          title: input.title.trim(),
          startAt: start.at,
          startOffsetMin: start.offsetMin,
          candidateName: input.candidate_details.full_name.trim(),
          ...(contact !== undefined && { candidateContact: contact }),
          ...(input.eval_params != null && { evalParams: input.eval_params.map((p) => p.trim()) }),
          informCandidate: input.inform_candidate ?? true,
          informInterviewers: input.inform_interviewers ?? true,
          sequence: row.sequence + 1,
          updatedAt: now,
        })
        .where(eq(interviews.id, row.id))
        .run()
      revokeParticipants(tx, row.id, now)
      // TODO(#6): enqueue updated invites (SEQUENCE = row.sequence + 1) and cancellations for removed
      // interviewers, honouring inform_candidate / inform_interviewers.
      return insertParticipants(tx, deps, row.id, { full_name: input.candidate_details.full_name, email_id: row.candidateEmail }, input.interviewers, now)
    },
    { behavior: 'immediate' }
  )
}

// ── B4 ─────────────────────────────────────────────────────────────────────────────────────────────

type StoredRatings = Record<string, { rating: number; comment: string }>

const emptyRating = (verbose: string): Rating => ({ rating: null, comment: null, verbose_name: verbose, rating_message: null })

function renderRatings(stored: StoredRatings, keys: [key: string, verbose: string][]): Record<string, Rating> {
  return Object.fromEntries(
    keys.map(([key, verbose]) => {
      const r = Object.hasOwn(stored, key) ? stored[key] : undefined
      if (!r) return [key, emptyRating(verbose)]
      return [key, { rating: String(r.rating), comment: r.comment, verbose_name: verbose, rating_message: RATING_MESSAGES[r.rating] ?? null }]
    })
  )
}

const unsubmitted = (): Feedback => ({ result: null, ratings: null, eval_params_ratings: null })

/**
 * B4. interviewer_feedbacks is null until the interview is completed. Then it maps each current
 * interviewer e-mail to the feedback (all members null when none was submitted): every interviewer
 * for a super-admin, only the caller's own for a member; filters.interviewer_emails narrows it further.
 */
export function reportInterview(deps: Deps, user: ApiUser, input: ReportRequest) {
  return deps.db.transaction((tx) => {
    const maxMs = maxDurationMs(deps)
    const { row, status } = settle(tx, findInterview(tx, user, input.interview_id), deps.now(), maxMs)
    let feedbacks: Record<string, Feedback> | null = null
    if (status === 'completed') {
      const wanted = input.filters?.interviewer_emails?.length
        ? new Set(input.filters.interviewer_emails.map((e) => e.trim().toLowerCase()))
        : null
      const visible = currentParticipants(tx, row.id).filter(
        (p) =>
          p.role === 'interviewer' &&
          (user.role === 'super_admin' || p.email.toLowerCase() === user.email) &&
          (!wanted || wanted.has(p.email.toLowerCase()))
      )
      const stored = new Map(
        tx
          .select()
          .from(interviewFeedback)
          .where(eq(interviewFeedback.interviewId, row.id))
          .all()
          .map((f) => [f.interviewerEmail, f])
      )
      const fixedKeys = Object.entries(RATING_KEYS)
      const paramKeys = row.evalParams.map((p): [string, string] => [p, p])
      feedbacks = Object.fromEntries(
        visible.map((p) => {
          const f = stored.get(p.email.toLowerCase())
          if (!f) return [p.email, unsubmitted()]
          return [
            p.email,
            { result: f.result, ratings: renderRatings(f.ratings, fixedKeys), eval_params_ratings: renderRatings(f.evalParamsRatings, paramKeys) },
          ]
        })
      )
    }
    return {
      interview_id: row.id,
      start_datetime: formatOffsetDateTime(row.startAt, row.startOffsetMin),
      end_datetime: formatOffsetDateTime(endOf(row, maxMs), row.startOffsetMin),
      status,
      interviewer_feedbacks: feedbacks,
    }
  })
}

// ── B5 ─────────────────────────────────────────────────────────────────────────────────────────────

/** B5: marks the interview deleted (later calls answer INTERVIEWNOTFOUND), revokes its links, drops the resume. */
export async function deleteInterview(deps: Deps, user: ApiUser, input: DeleteRequest): Promise<void> {
  const resumeFile = deps.db.transaction(
    (tx) => {
      const now = deps.now()
      const { row, status } = settle(tx, findInterview(tx, user, input.interview_id), now, maxDurationMs(deps))
      if (status === 'completed') throw new AppError('ENDEDINTERVIEWDELETIONDENIED')
      tx.update(interviews).set({ deletedAt: now, updatedAt: now, resumeFile: null }).where(eq(interviews.id, row.id)).run()
      revokeParticipants(tx, row.id, now)
      // TODO(#6): enqueue cancellation e-mails unless inform_candidate / inform_interviewers is false.
      return row.resumeFile
    },
    { behavior: 'immediate' }
  )
  await removeResume(deps.config.dataDir, resumeFile)
}

// ── the stored resume ──────────────────────────────────────────────────────────────────────────────

/**
 * The PDF behind B1's resume_url: allowed with the URL's valid signature, or for a user of the
 * interview's company. Anything else answers like an unknown interview.
 */
export async function resumeFile(
  deps: Deps,
  rawId: string,
  access: { user: ApiUser } | { expires?: string; signature?: string }
): Promise<Buffer> {
  const id = normalizeInterviewId(rawId)
  if (!id) throw notFound()
  const row = deps.db
    .select()
    .from(interviews)
    .where(and(eq(interviews.id, id), isNull(interviews.deletedAt)))
    .get()
  if (!row?.resumeFile) throw notFound()
  const allowed =
    'user' in access
      ? access.user.companyId === row.companyId
      : verifyResumeSignature(deps, row.id, row.resumeFile, access.expires, access.signature)
  if (!allowed) throw notFound()
  try {
    return await readStoredResume(deps.config.dataDir, row.resumeFile)
  } catch {
    throw notFound()
  }
}
