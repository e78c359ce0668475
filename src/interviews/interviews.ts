// The interview partner API's service: create / read / update / report / delete (B1–B5) and the stored
// resume. The life of an interview after that is lifecycle.ts; its mails mails.ts; its report report.ts. The spec's
// rules become AppError(ecode); every write is one synchronous SQLite transaction, and the e-mails and the
// report callback it owes are outbox rows of that same transaction, so a crash loses neither.
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { companies, interviews } from '../storage/schema.ts'
import type { ApiUser } from './accounts.ts'
import { formatOffsetDateTime, parseOffsetDateTime } from './datetime.ts'
import type { MailKind } from './invites.ts'
import { downloadResume, removeResume, signedResumeUrl, storeResume, verifyResumeSignature, readStoredResume } from './resume.ts'
import {
  crossFieldProblem,
  normalizePhone,
  type DeleteRequest,
  type Feedback,
  type InterviewCreate,
  type InterviewUpdate,
  type ReportRequest,
} from './schemas.ts'
import { endOf } from './status.ts'
import { currentParticipants, findInterview, insertParticipants, maxDurationMs, newInterviewId, normalizeInterviewId, notFound, revokeParticipants, type Links, type Recipient } from './records.ts'
import { settle } from './lifecycle.ts'
import { enqueueMails } from './mails.ts'
import { feedbacksOf } from './report.ts'

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
