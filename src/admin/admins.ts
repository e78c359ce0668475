// Admins of the /admin dashboard: `cli admin create` mints a token shown once (only its SHA-256 is
// kept); revoking an admin ends its sessions at once (every request checks the admin row).
import { and, asc, eq, isNull } from 'drizzle-orm'
import { createHash, randomBytes } from 'node:crypto'
import type { Db } from '../storage/db.ts'
import { admins, adminSessions } from '../storage/schema.ts'

export type Admin = typeof admins.$inferSelect

const hash = (token: string) => createHash('sha256').update(token).digest('hex')

export function createAdmin(db: Db, now: Date, name: string): { admin: Admin; token: string } {
  if (!/^[\w.@-]{1,64}$/.test(name)) throw new Error('--name: 1-64 letters, digits, . _ @ -')
  if (db.select().from(admins).where(eq(admins.name, name)).get()) throw new Error(`an admin named ${name} exists`)
  const token = `adm_${randomBytes(24).toString('base64url')}`
  const admin = db.insert(admins).values({ name, tokenHash: hash(token), createdAt: now }).returning().get()
  return { admin, token }
}

export const listAdmins = (db: Db): Admin[] => db.select().from(admins).orderBy(asc(admins.id)).all()

export function revokeAdmin(db: Db, now: Date, name: string): Admin {
  const row = db.update(admins).set({ revokedAt: now }).where(and(eq(admins.name, name), isNull(admins.revokedAt))).returning().get()
  if (!row) throw new Error(`no active admin named ${name}`)
  // its sessions end at once (every request also re-checks the admin row)
  db.delete(adminSessions).where(eq(adminSessions.adminId, row.id)).run()
  return row
}

/** The active admin holding this token, if any. */
export function findAdminByToken(db: Db, token: string): Admin | undefined {
  if (typeof token !== 'string' || token.length > 200) return undefined
  return db.select().from(admins).where(and(eq(admins.tokenHash, hash(token)), isNull(admins.revokedAt))).get()
}

export const activeAdmin = (db: Db, id: number): Admin | undefined =>
  db.select().from(admins).where(and(eq(admins.id, id), isNull(admins.revokedAt))).get()
