// The dashboard's session: a random token in the cookie, its SHA-256 in admin_sessions (so signing out
// ends it on the server at once, and a copied cookie stops working), bounded by an expiry; a CSRF
// token derived from the cookie with a key kept in the meta table, for every form.
import { and, eq, gt, lte } from 'drizzle-orm'
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Db } from '../storage/db.ts'
import { adminSessions, meta } from '../storage/schema.ts'

export const ADMIN_COOKIE = 'arbiter_admin'
export const SESSION_TTL_SEC = 8 * 3600
const KEY = 'admin_session_key'

function key(db: Db, now: Date): Buffer {
  db.insert(meta).values({ key: KEY, value: randomBytes(32).toString('base64'), updatedAt: now }).onConflictDoNothing().run()
  return Buffer.from(db.select().from(meta).where(eq(meta.key, KEY)).get()!.value, 'base64')
}

const mac = (k: Buffer, text: string) => createHmac('sha256', k).update(text).digest('base64url')
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')
const COOKIE_SHAPE = /^[\w-]{43}$/

/** A new session for the admin; the cookie's value. Expired sessions are dropped on the way. */
export function startSession(db: Db, now: Date, adminId: number): string {
  const token = randomBytes(32).toString('base64url')
  db.delete(adminSessions).where(lte(adminSessions.expiresAt, now)).run()
  db.insert(adminSessions).values({ tokenHash: hashOf(token), adminId, createdAt: now, expiresAt: new Date(now.getTime() + SESSION_TTL_SEC * 1000) }).run()
  return token
}

/** The admin id of a live session, else null. */
export function verifySession(db: Db, now: Date, cookie: string | undefined): number | null {
  if (!cookie || !COOKIE_SHAPE.test(cookie)) return null
  const row = db
    .select({ adminId: adminSessions.adminId })
    .from(adminSessions)
    .where(and(eq(adminSessions.tokenHash, hashOf(cookie)), gt(adminSessions.expiresAt, now)))
    .get()
  return row?.adminId ?? null
}

/** Sign-out: the session is gone on the server, whoever still holds the cookie. */
export function endSession(db: Db, cookie: string): void {
  if (COOKIE_SHAPE.test(cookie)) db.delete(adminSessions).where(eq(adminSessions.tokenHash, hashOf(cookie))).run()
}

export const csrfFor = (db: Db, now: Date, cookie: string): string => mac(key(db, now), `csrf:${cookie}`)

export const csrfMatches = (db: Db, now: Date, cookie: string, sent: unknown): boolean =>
  typeof sent === 'string' && same(sent, csrfFor(db, now, cookie))
