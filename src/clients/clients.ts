// API clients of the code-evaluation API: create (the only moment the secret is seen), list, revoke,
// and the lookup behind the client_secret / client-secret credential.
import { createHash, randomBytes } from 'node:crypto'
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import { AppError } from '../errors.ts'
import type { Db } from '../storage/db.ts'
import { clients } from '../storage/schema.ts'
import { preparedPerDb } from '../storage/prepared.ts'

export type Client = typeof clients.$inferSelect

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex')

/** 40 lowercase hex characters, the shape of HackerEarth's client secrets. */
const newSecret = () => randomBytes(20).toString('hex')

export function createClient(db: Db, now: Date, input: { name: string; quota?: number }) {
  const name = input.name.trim()
  if (!name) throw new AppError('ArgumentMissing', 'name is needed!')
  if (input.quota !== undefined && (!Number.isInteger(input.quota) || input.quota < 0))
    throw new AppError('InvalidArgument', 'quota must be a whole number >= 0 (0 = unlimited)')
  const secret = newSecret()
  const row = db
    .insert(clients)
    .values({ name, secretHash: hashSecret(secret), secretHint: secret.slice(0, 4), quota: input.quota ?? null, createdAt: now })
    .returning()
    .get()
  return { client: row, secret }
}

/** The API clients (a company's room client is the server's own, not listed). */
export const listClients = (db: Db): Client[] => db.select().from(clients).where(isNull(clients.roomOfCompany)).orderBy(asc(clients.id)).all()

/**
 * The client that owns a company's interview-room runs, made on first use: every queued row belongs to
 * a client (fair share, retention, the dashboard). Its secret is thrown away at once, so no request can
 * act as it; it is never listed, revoked or counted against a quota.
 */
export function roomClientOf(db: Db, now: Date, company: { id: number; name: string }): Client {
  const found = db.select().from(clients).where(eq(clients.roomOfCompany, company.id)).get()
  if (found) return found
  return db
    .insert(clients)
    .values({ name: `interview rooms of ${company.name}`, secretHash: hashSecret(newSecret()), secretHint: '', roomOfCompany: company.id, createdAt: now })
    .onConflictDoNothing()
    .returning()
    .get() ?? db.select().from(clients).where(eq(clients.roomOfCompany, company.id)).get()!
}

/**
 * Counts `cost` against the client's quota (its own, else defaultQuota; 0 = unlimited), or refuses with
 * QuotaExceededError when that would pass it. Call inside the transaction that stores what it pays for.
 */
export function chargeQuota(db: Db, client: Client, defaultQuota: number, cost: number): void {
  const quota = client.quota ?? defaultQuota
  const charged = db
    .update(clients)
    .set({ used: sql`${clients.used} + ${cost}` })
    .where(and(eq(clients.id, client.id), quota > 0 ? sql`${clients.used} + ${cost} <= ${quota}` : undefined))
    .returning({ used: clients.used })
    .get()
  if (!charged) {
    const current = db.select({ used: clients.used }).from(clients).where(eq(clients.id, client.id)).get()?.used ?? 0
    throw new AppError('QuotaExceeded', 'API usage quota exceeded', { quota, current_count: current })
  }
}

/** Revokes by id or by name; a revoked secret is answered like an unknown one. */
export function revokeClient(db: Db, now: Date, idOrName: string): Client {
  const byId = /^\d+$/.test(idOrName)
  const row = db
    .update(clients)
    .set({ revokedAt: now })
    .where(and(byId ? eq(clients.id, Number(idOrName)) : eq(clients.name, idOrName), isNull(clients.revokedAt), isNull(clients.roomOfCompany)))
    .returning()
    .get()
  if (!row) throw new AppError('NotFound', `no active client ${idOrName}`)
  return row
}

// prepared once per database: this runs on every API request
const bySecret = preparedPerDb((db: Db) =>
  db
    .select()
    .from(clients)
    .where(and(eq(clients.secretHash, sql.placeholder('hash')), isNull(clients.revokedAt), isNull(clients.roomOfCompany)))
    .prepare()
)

export function findClientBySecret(db: Db, secret: string): Client | undefined {
  return bySecret(db).get({ hash: hashSecret(secret) })
}
