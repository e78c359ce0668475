// API clients of the code-evaluation API: create (the only moment the secret is seen), list, revoke,
// and the lookup behind the client_secret / client-secret credential.
import { createHash, randomBytes } from 'node:crypto'
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import { AppError } from '../errors.ts'
import type { Db } from '../storage/db.ts'
import { clients } from '../storage/schema.ts'

export type Client = typeof clients.$inferSelect

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex')

/** 40 lowercase hex characters, the shape of HackerEarth's client secrets. */
const newSecret = () => randomBytes(20).toString('hex')

export function createClient(db: Db, now: Date, input: { name: string; quota?: number }) {
  const name = input.name.trim()
  if (!name) throw new AppError('ArgumentMissingError', 'name is needed!')
  if (input.quota !== undefined && (!Number.isInteger(input.quota) || input.quota < 0))
    throw new AppError('InvalidArgumentError', 'quota must be a whole number >= 0 (0 = unlimited)')
  const secret = newSecret()
  const row = db
    .insert(clients)
    .values({ name, secretHash: hashSecret(secret), secretHint: secret.slice(0, 4), quota: input.quota ?? null, createdAt: now })
    .returning()
    .get()
  return { client: row, secret }
}

export const listClients = (db: Db): Client[] => db.select().from(clients).orderBy(asc(clients.id)).all()

/** Revokes by id or by name; a revoked secret is answered like an unknown one. */
export function revokeClient(db: Db, now: Date, idOrName: string): Client {
  const byId = /^\d+$/.test(idOrName)
  const row = db
    .update(clients)
    .set({ revokedAt: now })
    .where(and(byId ? eq(clients.id, Number(idOrName)) : eq(clients.name, idOrName), isNull(clients.revokedAt)))
    .returning()
    .get()
  if (!row) throw new AppError('NotFoundError', `no active client ${idOrName}`)
  return row
}

// prepared once per database: this runs on every API request
const bySecret = new WeakMap<object, ReturnType<typeof prepareBySecret>>()
const prepareBySecret = (db: Db) =>
  db
    .select()
    .from(clients)
    .where(and(eq(clients.secretHash, sql.placeholder('hash')), isNull(clients.revokedAt)))
    .prepare()

export function findClientBySecret(db: Db, secret: string): Client | undefined {
  let stmt = bySecret.get(db)
  if (!stmt) bySecret.set(db, (stmt = prepareBySecret(db)))
  return stmt.get({ hash: hashSecret(secret) })
}
