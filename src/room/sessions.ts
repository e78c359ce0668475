// Room sessions: opening a link swaps its token for a random session cookie (only the SHA-256 stored)
// bound to one participant of one interview, with a CSRF token for its POSTs. A session dies at expiry,
// and at once when its participant's link is revoked (B3 re-mints every link, B5 revokes them).
import { and, eq, gt, isNull, isNotNull, lte, or, inArray } from 'drizzle-orm'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { Deps } from '../deps.ts'
import { hashToken, verifyToken } from '../interviews/links.ts'
import { interviewParticipants, interviews, roomSessions } from '../storage/schema.ts'

export const COOKIE = 'arbiter_room'

/** The room's clean URL (no token in it, so it can sit in the history and in Referer headers). */
export const roomPath = (interviewId: string) => `/interviews/room/${interviewId}`

const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/
const INTERVIEW_ID = /^[0-9a-f]{32}$/

export interface RoomSession {
  /** The session's row id (streams and editor client ids are counted and owned per session). */
  id: number
  interviewId: string
  csrf: string
  expiresAt: Date
  participant: {
    id: number
    role: 'candidate' | 'interviewer'
    name: string
    email: string
    feedbackRedirectUrl: string | null
  }
}

type SessionDeps = Pick<Deps, 'db' | 'config' | 'now'>

/** A new session for a link's holder, or null when the link is unknown, altered, revoked or deleted. */
export function openSession(deps: SessionDeps, token: string): { cookie: string; interviewId: string; maxAgeSec: number } | null {
  const found = verifyToken(deps, token)
  if (!found) return null
  const cookie = randomBytes(32).toString('base64url')
  const now = deps.now()
  const maxAgeSec = deps.config.room.session_ttl_min * 60
  deps.db
    .insert(roomSessions)
    .values({
      tokenHash: hashToken(cookie),
      participantId: found.participant.id,
      interviewId: found.interview.id,
      csrfToken: randomBytes(24).toString('base64url'),
      createdAt: now,
      expiresAt: new Date(now.getTime() + maxAgeSec * 1000),
    })
    .run()
  return { cookie, interviewId: found.interview.id, maxAgeSec }
}

/**
 * The session behind a cookie, for this interview only: a session of another interview, an expired one,
 * or one whose participant was revoked is no session at all.
 */
export function findSession(deps: SessionDeps, interviewId: string, cookie: string | undefined): RoomSession | null {
  if (!cookie || !COOKIE_VALUE.test(cookie) || !INTERVIEW_ID.test(interviewId)) return null
  const row = deps.db
    .select({ session: roomSessions, participant: interviewParticipants })
    .from(roomSessions)
    .innerJoin(interviewParticipants, eq(interviewParticipants.id, roomSessions.participantId))
    .innerJoin(interviews, eq(interviews.id, roomSessions.interviewId))
    .where(
      and(
        eq(roomSessions.tokenHash, hashToken(cookie)),
        eq(roomSessions.interviewId, interviewId),
        eq(interviewParticipants.interviewId, interviewId),
        gt(roomSessions.expiresAt, deps.now()),
        isNull(interviewParticipants.revokedAt),
        isNull(interviews.deletedAt)
      )
    )
    .get()
  if (!row) return null
  const p = row.participant
  return {
    id: row.session.id,
    interviewId,
    csrf: row.session.csrfToken,
    expiresAt: row.session.expiresAt,
    participant: { id: p.id, role: p.role, name: p.fullName, email: p.email, feedbackRedirectUrl: p.feedbackRedirectUrl },
  }
}

/** The x-csrf-token header of a POST matches its session's token. */
export function csrfMatches(session: RoomSession, header: string | undefined): boolean {
  if (!header) return false
  const a = Buffer.from(header)
  const b = Buffer.from(session.csrf)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Deletes sessions that can no longer be used (expired, or their participant revoked). */
export function pruneSessions(deps: SessionDeps): number {
  const revoked = deps.db.select({ id: interviewParticipants.id }).from(interviewParticipants).where(isNotNull(interviewParticipants.revokedAt))
  return deps.db
    .delete(roomSessions)
    .where(or(lte(roomSessions.expiresAt, deps.now()), inArray(roomSessions.participantId, revoked)))
    .run().changes
}
