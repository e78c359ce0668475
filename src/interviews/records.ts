// The interview's stored records, shared by the partner API (interviews.ts), the lifecycle and the
// mails: row types, lookups by id (the caller's company, or any live one for the room), participants
// and their links.
import { and, asc, eq, isNull } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Db } from '../storage/db.ts'
import { interviewParticipants, interviews } from '../storage/schema.ts'
import type { ApiUser } from './accounts.ts'
import { hashToken, linkUrl, mintToken } from './links.ts'
import type { InterviewerInput } from './schemas.ts'

export type Interview = typeof interviews.$inferSelect
export type Participant = typeof interviewParticipants.$inferSelect
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
export type LifeDeps = Pick<Deps, 'config'>

export interface Links {
  interview_id: string
  candidate_interview_link: string
  interviewer_interview_links: Record<string, string>
}

export const notFound = () => new AppError('INTERVIEWNOTFOUND')
export const maxDurationMs = (deps: Pick<Deps, 'config'>) => deps.config.interviews.max_duration_min * 60_000

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
export function findInterview(db: Pick<Db, 'select'>, user: ApiUser, rawId: string): Interview {
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

/** Someone an e-mail may go to, with their fresh link (only known here, before it is hashed). */
export interface Recipient {
  role: 'candidate' | 'interviewer'
  name: string
  email: string
  link?: string
}

export function insertParticipants(
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

export const revokeParticipants = (tx: Pick<Db, 'update'>, interviewId: string, now: Date) =>
  tx
    .update(interviewParticipants)
    .set({ revokedAt: now })
    .where(and(eq(interviewParticipants.interviewId, interviewId), isNull(interviewParticipants.revokedAt)))
    .run()

export const currentParticipants = (db: Pick<Db, 'select'>, interviewId: string) =>
  db
    .select()
    .from(interviewParticipants)
    .where(and(eq(interviewParticipants.interviewId, interviewId), isNull(interviewParticipants.revokedAt)))
    .orderBy(asc(interviewParticipants.role), asc(interviewParticipants.position))
    .all()

/** The live (not deleted) interview with this id, any company: the room has checked its session. */
export function liveInterview(db: Pick<Db, 'select'>, id: string): Interview {
  const row = db
    .select()
    .from(interviews)
    .where(and(eq(interviews.id, id), isNull(interviews.deletedAt)))
    .get()
  if (!row) throw notFound()
  return row
}
