// The interview service: create / read / update / report / delete (B1–B5), and the life of an interview
// after that: the room's view, feedback, ending it, the minute sweep (concludeDueInterviews). The spec's
// rules become AppError(ecode); every write is one synchronous SQLite transaction, and the e-mails and the
// report callback it owes are outbox rows of that same transaction, so a crash loses neither.
import { and, asc, eq, gt, isNotNull, isNull, lte, or, sql } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { normaliseCallbackUrl } from '../jobs/callback.ts'
import { addressOf, mailFrom } from '../jobs/mailer.ts'
import { enqueueDelivery, type OutboxRow } from '../jobs/outbox.ts'
import type { Db } from '../storage/db.ts'
import { companies, interviewFeedback, interviewParticipants, interviews } from '../storage/schema.ts'
import type { ApiUser } from './accounts.ts'
import { formatOffsetDateTime, parseOffsetDateTime } from './datetime.ts'
import { RATING_KEYS, ratingMessage, verboseName, type FeedbackSubmission } from './feedback.ts'
import { renderMail, type MailKind } from './invites.ts'
import { hashToken, linkUrl, mintToken } from './links.ts'
import { downloadResume, removeResume, signedResumeUrl, storeResume, verifyResumeSignature, readStoredResume } from './resume.ts'
import {
  crossFieldProblem,
  normalizePhone,
  success,
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
type Participant = typeof interviewParticipants.$inferSelect
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
type LifeDeps = Pick<Deps, 'config'>

/** Outbox kinds this area enqueues (main.ts registers their senders). */

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
 * so a later update of start_datetime cannot make it go back. Seeing it completed for the first time is
 * its conclusion: the report callback is enqueued in the same transaction.
 */
function settle(deps: LifeDeps, tx: Tx, row: Interview, now: Date): { row: Interview; status: InterviewStatus } {
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

/** Someone an e-mail may go to, with their fresh link (only known here, before it is hashed). */
interface Recipient {
  role: 'candidate' | 'interviewer'
  name: string
  email: string
  link?: string
}

function insertParticipants(
  tx: Tx,
  deps: Pick<Deps, 'config'>,
  interviewId: string,
  candidate: { full_name: string; email_id: string },
  interviewers: InterviewerInput[],
  now: Date
): { links: Links; recipients: Recipient[] } {
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
    links: {
      interview_id: interviewId,
      candidate_interview_link: linkUrl(publicUrl, cand.token),
      interviewer_interview_links: Object.fromEntries(rest.map((r) => [r.email, linkUrl(publicUrl, r.token)])),
    },
    recipients: rows.map((r) => ({ role: r.role, name: r.fullName, email: r.email, link: linkUrl(publicUrl, r.token) })),
  }
}

// ── e-mails ────────────────────────────────────────────────────────────────────────────────────────

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '') || 'arbiter'
  } catch {
    return 'arbiter'
  }
}

/**
 * One outbox row per e-mail, rendered now (invites.ts) with the recipient's own link. Each recipient of
 * an interview is one group, so their mails go out in order and a failed old one gives way to a newer one.
 */
function enqueueMails(deps: LifeDeps, tx: Tx, row: Interview, mails: { kind: MailKind; to: Recipient }[], everyone: Recipient[], now: Date) {
  if (mails.length === 0) return
  const from = mailFrom(deps.config)
  const organizer = { name: from.replace(/<[^<>]*>\s*$/, '').replace(/"/g, '').trim() || 'Arbiter', email: addressOf(from) }
  for (const { kind, to } of mails) {
    const message = renderMail({
      kind,
      interview: {
        id: row.id,
        title: row.title,
        startAt: row.startAt,
        offsetMin: row.startOffsetMin,
        durationMin: deps.config.interviews.max_duration_min,
        sequence: row.sequence,
      },
      recipient: to,
      others: everyone.filter((p) => p.email.toLowerCase() !== to.email.toLowerCase()).map((p) => ({ name: p.name, role: p.role })),
      from: organizer,
      uidDomain: hostOf(deps.config.server.public_url),
      now,
    })
    enqueueDelivery(
      tx,
      {
        kind: 'email',
        subjectId: row.id,
        target: to.email,
        body: JSON.stringify(message),
        contentType: 'application/json',
        groupKey: `mail:${row.id}:${to.email.toLowerCase()}`,
      },
      now
    )
  }
}

// ── the report callback ────────────────────────────────────────────────────────────────────────────

/** The B4 body with every interviewer's feedback: what callback_url receives. */
function callbackReport(deps: LifeDeps, tx: Tx, row: Interview) {
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
function enqueueReport(deps: LifeDeps, tx: Tx, row: Interview, now: Date) {
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
    const links = deps.db.transaction(
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
        const { links, recipients } = insertParticipants(tx, deps, id, input.candidate_details, input.interviewers, now)
        const row = tx.select().from(interviews).where(eq(interviews.id, id)).get()!
        const informed = recipients.filter((r) => (r.role === 'candidate' ? row.informCandidate : row.informInterviewers))
        enqueueMails(deps, tx, row, informed.map((to) => ({ kind: 'invite' as const, to })), recipients, now)
        return links
      },
      { behavior: 'immediate' }
    )
    deps.outbox.wake()
    return links
  } catch (err) {
    await removeResume(deps.config.dataDir, resumeFile)
    throw err
  }
}

// ── B1 ─────────────────────────────────────────────────────────────────────────────────────────────

export function readInterview(deps: Deps, user: ApiUser, rawId: string) {
  // seeing it completed for the first time may have enqueued its report
  const view = deps.db.transaction((tx) => {
    const { row, status } = settle(deps, tx, findInterview(tx, user, rawId), deps.now())
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
  deps.outbox.wake()
  return view
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
  const links = deps.db.transaction(
    (tx) => {
      const now = deps.now()
      const { row, status } = settle(deps, tx, findInterview(tx, user, rawId), now)
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
      const before = currentParticipants(tx, row.id).filter((p) => p.role === 'interviewer')
      revokeParticipants(tx, row.id, now)
      const { links, recipients } = insertParticipants(
        tx,
        deps,
        row.id,
        { full_name: input.candidate_details.full_name, email_id: row.candidateEmail },
        input.interviewers,
        now
      )
      // the candidate and the interviewers who stay hear of the change, new interviewers get an
      // invitation, removed ones a cancellation; each group only when its inform flag allows
      const updated = tx.select().from(interviews).where(eq(interviews.id, row.id)).get()!
      const known = new Set(before.map((p) => p.email.toLowerCase()))
      const kept = new Set(recipients.map((r) => r.email.toLowerCase()))
      const mails: { kind: MailKind; to: Recipient }[] = []
      for (const to of recipients) {
        if (to.role === 'candidate' ? !updated.informCandidate : !updated.informInterviewers) continue
        mails.push({ kind: to.role === 'interviewer' && !known.has(to.email.toLowerCase()) ? 'invite' : 'update', to })
      }
      if (updated.informInterviewers) {
        for (const p of before) if (!kept.has(p.email.toLowerCase())) mails.push({ kind: 'cancel', to: { role: 'interviewer', name: p.fullName, email: p.email } })
      }
      enqueueMails(deps, tx, updated, mails, recipients, now)
      return links
    },
    { behavior: 'immediate' }
  )
  deps.outbox.wake()
  return links
}

// ── B4 ─────────────────────────────────────────────────────────────────────────────────────────────

type StoredRatings = Record<string, { rating: number; comment: string }>

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
function feedbacksOf(tx: Pick<Db, 'select'>, row: Interview, visible: (p: Participant) => boolean): Record<string, Feedback> {
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

/**
 * B4. interviewer_feedbacks is null until the interview is completed. Then it maps each current
 * interviewer e-mail to the feedback (all members null when none was submitted): every interviewer
 * for a super-admin, only the caller's own for a member; filters.interviewer_emails narrows it further.
 */
export function reportInterview(deps: Deps, user: ApiUser, input: ReportRequest) {
  const report = deps.db.transaction((tx) => {
    const { row, status } = settle(deps, tx, findInterview(tx, user, input.interview_id), deps.now())
    let feedbacks: Record<string, Feedback> | null = null
    if (status === 'completed') {
      const wanted = input.filters?.interviewer_emails?.length
        ? new Set(input.filters.interviewer_emails.map((e) => e.trim().toLowerCase()))
        : null
      feedbacks = feedbacksOf(
        tx,
        row,
        (p) => (user.role === 'super_admin' || p.email.toLowerCase() === user.email) && (!wanted || wanted.has(p.email.toLowerCase()))
      )
    }
    return {
      interview_id: row.id,
      start_datetime: formatOffsetDateTime(row.startAt, row.startOffsetMin),
      end_datetime: formatOffsetDateTime(endOf(row, maxDurationMs(deps)), row.startOffsetMin),
      status,
      interviewer_feedbacks: feedbacks,
    }
  })
  deps.outbox.wake()
  return report
}

// ── B5 ─────────────────────────────────────────────────────────────────────────────────────────────

/** B5: marks the interview deleted (later calls answer INTERVIEWNOTFOUND), revokes its links, drops the resume. */
export async function deleteInterview(deps: Deps, user: ApiUser, input: DeleteRequest): Promise<void> {
  const resumeFile = deps.db.transaction(
    (tx) => {
      const now = deps.now()
      const { row, status } = settle(deps, tx, findInterview(tx, user, input.interview_id), now)
      if (status === 'completed') throw new AppError('ENDEDINTERVIEWDELETIONDENIED')
      const people = currentParticipants(tx, row.id)
      // a cancellation is one more version of the calendar event
      const sequence = row.sequence + 1
      tx.update(interviews).set({ deletedAt: now, updatedAt: now, resumeFile: null, sequence }).where(eq(interviews.id, row.id)).run()
      revokeParticipants(tx, row.id, now)
      const everyone = people.map((p): Recipient => ({ role: p.role, name: p.fullName, email: p.email }))
      const informCandidate = input.inform_candidate ?? true
      const informInterviewers = input.inform_interviewers ?? true
      const told = everyone.filter((p) => (p.role === 'candidate' ? informCandidate : informInterviewers))
      enqueueMails(deps, tx, { ...row, sequence }, told.map((to) => ({ kind: 'cancel' as const, to })), everyone, now)
      return row.resumeFile
    },
    { behavior: 'immediate' }
  )
  deps.outbox.wake()
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

// ── the room and the lifecycle ─────────────────────────────────────────────────────────────────────

/** The live (not deleted) interview with this id, any company: the room has checked its session. */
function liveInterview(db: Pick<Db, 'select'>, id: string): Interview {
  const row = db
    .select()
    .from(interviews)
    .where(and(eq(interviews.id, id), isNull(interviews.deletedAt)))
    .get()
  if (!row) throw notFound()
  return row
}

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
