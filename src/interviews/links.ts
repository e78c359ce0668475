// Auto-login links: a random token per participant, only its SHA-256 stored; verifyToken() finds the live row.
import { and, eq, isNull } from 'drizzle-orm'
import { createHash, randomBytes } from 'node:crypto'
import type { Deps } from '../deps.ts'
import { interviewParticipants, interviews } from '../storage/schema.ts'

/** Where the links point: the interview room's landing page (src/room/routes.ts) is served here. */
export const LINK_PATH = '/interviews/join/'

/** 256 random bits, URL-safe. */
export const mintToken = (): string => randomBytes(32).toString('base64url')

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex')

export const linkUrl = (publicUrl: string, token: string): string => `${publicUrl}${LINK_PATH}${token}`

const TOKEN = /^[A-Za-z0-9_-]{43}$/

/** The participant and interview a link belongs to, or null when it is unknown, revoked or deleted. */
export function verifyToken(deps: Pick<Deps, 'db'>, token: string) {
  if (!TOKEN.test(token)) return null
  const row = deps.db
    .select({ participant: interviewParticipants, interview: interviews })
    .from(interviewParticipants)
    .innerJoin(interviews, eq(interviews.id, interviewParticipants.interviewId))
    .where(and(eq(interviewParticipants.tokenHash, hashToken(token)), isNull(interviewParticipants.revokedAt), isNull(interviews.deletedAt)))
    .get()
  return row ?? null
}
