// The dashboard's session: a cookie `<admin id>.<expiry>.<HMAC>` signed with a key kept in the meta
// table (no session table: revoking the admin ends it, the expiry bounds it), and a CSRF token derived
// from the cookie for every form.
import { eq } from 'drizzle-orm'
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Db } from '../storage/db.ts'
import { meta } from '../storage/schema.ts'

export const ADMIN_COOKIE = 'arbiter_admin'
export const SESSION_TTL_SEC = 8 * 3600
const KEY = 'admin_session_key'

function key(db: Db, now: Date): Buffer {
  db.insert(meta).values({ key: KEY, value: randomBytes(32).toString('base64'), updatedAt: now }).onConflictDoNothing().run()
  return Buffer.from(db.select().from(meta).where(eq(meta.key, KEY)).get()!.value, 'base64')
}

const mac = (k: Buffer, text: string) => createHmac('sha256', k).update(text).digest('base64url')
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

export function signSession(db: Db, now: Date, adminId: number): string {
  const body = `${adminId}.${Math.floor(now.getTime() / 1000) + SESSION_TTL_SEC}`
  return `${body}.${mac(key(db, now), `session:${body}`)}`
}

/** The admin id of a valid, unexpired cookie, else null. */
export function verifySession(db: Db, now: Date, cookie: string | undefined): number | null {
  const m = /^(\d{1,9})\.(\d{1,12})\.([\w-]{43})$/.exec(cookie ?? '')
  if (!m) return null
  if (Number(m[2]) * 1000 < now.getTime()) return null
  return same(m[3], mac(key(db, now), `session:${m[1]}.${m[2]}`)) ? Number(m[1]) : null
}

export const csrfFor = (db: Db, now: Date, cookie: string): string => mac(key(db, now), `csrf:${cookie}`)

export const csrfMatches = (db: Db, now: Date, cookie: string, sent: unknown): boolean =>
  typeof sent === 'string' && same(sent, csrfFor(db, now, cookie))
