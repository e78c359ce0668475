// Companies (feature switch, credits) and their users (client_id + client_secret, stored only as hashes).
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { companies, users } from '../storage/schema.ts'

export const CLIENT_ID_LENGTH = 67
export const CLIENT_SECRET_LENGTH = 40

export type Role = 'super_admin' | 'member'

/** The authenticated caller of an interview endpoint. */
export interface ApiUser {
  id: number
  companyId: number
  email: string
  role: Role
  interviewsEnabled: boolean
}

type AccountDeps = Pick<Deps, 'db' | 'config' | 'now'>

// Both keys are 128+ random bits, so a fast hash is enough: nothing to brute-force, and it runs per request.
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * The domain-like tail of every client_id, from the public host: "api.<host>" for a domain name,
 * "api.<a-b-c-d>.arbiter" for an IP address. Leftmost labels are dropped so that at least 32 random
 * characters fit in the 67.
 */
export function clientIdSuffix(publicUrl: string): string {
  let host = 'localhost'
  try {
    host = new URL(publicUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '')
  } catch {
    // config.ts validated the URL; keep the default for safety
  }
  let labels: string[]
  if (isIP(host)) labels = ['api', host.replace(/[.:]/g, '-').replace(/^-+|-+$/g, ''), 'arbiter']
  else labels = host.startsWith('api.') ? host.split('.') : ['api', ...host.split('.')]
  labels = labels.filter((l) => l !== '')
  const max = CLIENT_ID_LENGTH - 1 - 32
  while (labels.length > 2 && labels.join('.').length > max) labels.shift()
  const suffix = labels.join('.')
  return suffix.length <= max && labels.every((l) => label.test(l)) ? suffix : 'api.arbiter.local'
}

export function mintClientId(publicUrl: string): string {
  const suffix = clientIdSuffix(publicUrl)
  const randomLength = CLIENT_ID_LENGTH - 1 - suffix.length
  return `${randomBytes(Math.ceil(randomLength / 2)).toString('hex').slice(0, randomLength)}.${suffix}`
}

export const mintClientSecret = (): string => randomBytes(CLIENT_SECRET_LENGTH / 2).toString('hex')

// ── companies ──────────────────────────────────────────────────────────────────────────────────────

export function createCompany(deps: AccountDeps, input: { name: string; credits: number; interviewsEnabled: boolean }) {
  if (!input.name.trim()) throw new Error('--name must not be empty')
  if (!Number.isSafeInteger(input.credits) || input.credits < 0) throw new Error('--credits must be a whole number ≥ 0')
  return deps.db
    .insert(companies)
    .values({ name: input.name.trim(), credits: input.credits, interviewsEnabled: input.interviewsEnabled, createdAt: deps.now() })
    .returning()
    .get()
}

export function addCredits(deps: AccountDeps, companyId: number, add: number) {
  if (!Number.isSafeInteger(add)) throw new Error('--add must be a whole number')
  const row = deps.db
    .update(companies)
    .set({ credits: sql`${companies.credits} + ${add}` })
    .where(and(eq(companies.id, companyId), sql`${companies.credits} + ${add} >= 0`))
    .returning()
    .get()
  if (row) return row
  if (!getCompany(deps, companyId)) throw new Error(`no company with id ${companyId}`)
  throw new Error('credits cannot go below 0')
}

export function setInterviewsEnabled(deps: AccountDeps, companyId: number, enabled: boolean) {
  const row = deps.db.update(companies).set({ interviewsEnabled: enabled }).where(eq(companies.id, companyId)).returning().get()
  if (!row) throw new Error(`no company with id ${companyId}`)
  return row
}

/**
 * The key that signs this company's report callbacks (HE-Signature); rotate = replace it with a new
 * random one (deliveries still pending are signed with the new key when they are sent).
 */
export function webhookSecret(deps: AccountDeps, companyId: number, rotate = false): { company_id: number; webhook_secret: string } {
  const row = rotate
    ? deps.db.update(companies).set({ webhookSecret: randomBytes(32).toString('hex') }).where(eq(companies.id, companyId)).returning().get()
    : getCompany(deps, companyId)
  if (!row) throw new Error(`no company with id ${companyId}`)
  return { company_id: row.id, webhook_secret: row.webhookSecret }
}

export const getCompany = (deps: AccountDeps, id: number) => deps.db.select().from(companies).where(eq(companies.id, id)).get()

export const listCompanies = (deps: AccountDeps) => deps.db.select().from(companies).orderBy(asc(companies.id)).all()

// ── users ──────────────────────────────────────────────────────────────────────────────────────────

/** Creates a user and returns its credentials: the only time they are ever shown. */
export function createUser(deps: AccountDeps, input: { companyId: number; email: string; superAdmin: boolean }) {
  const email = input.email.trim().toLowerCase()
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new Error(`not an e-mail address: ${input.email}`)
  if (!getCompany(deps, input.companyId)) throw new Error(`no company with id ${input.companyId}`)
  const active = deps.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.companyId, input.companyId), eq(users.email, email), isNull(users.revokedAt)))
    .get()
  if (active) throw new Error(`company ${input.companyId} already has an active user ${email} (id ${active.id})`)
  const clientId = mintClientId(deps.config.server.public_url)
  const clientSecret = mintClientSecret()
  const user = deps.db
    .insert(users)
    .values({
      companyId: input.companyId,
      email,
      role: input.superAdmin ? 'super_admin' : 'member',
      clientIdHash: sha256(clientId),
      clientIdHint: `${clientId.slice(0, 6)}…${clientId.slice(clientId.indexOf('.'))}`,
      secretHash: sha256(clientSecret),
      createdAt: deps.now(),
    })
    .returning()
    .get()
  return { user, client_id: clientId, client_secret: clientSecret }
}

export function listUsers(deps: AccountDeps, companyId?: number) {
  return deps.db
    .select({
      id: users.id,
      company_id: users.companyId,
      email: users.email,
      role: users.role,
      client_id: users.clientIdHint,
      created_at: users.createdAt,
      revoked_at: users.revokedAt,
    })
    .from(users)
    .where(companyId === undefined ? undefined : eq(users.companyId, companyId))
    .orderBy(asc(users.id))
    .all()
}

/** Revokes a user by id or by client_id; its credentials then answer ACCESSERROR. */
export function revokeUser(deps: AccountDeps, by: { userId?: number; clientId?: string }) {
  const where =
    by.userId !== undefined ? eq(users.id, by.userId) : by.clientId ? eq(users.clientIdHash, sha256(by.clientId)) : undefined
  if (!where) throw new Error('give --user ID or --client-id ID')
  const row = deps.db.update(users).set({ revokedAt: deps.now() }).where(and(where, isNull(users.revokedAt))).returning().get()
  if (!row) throw new Error('no such active user')
  return { id: row.id, email: row.email, revoked_at: row.revokedAt }
}

const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/**
 * The user behind a client_id + client_secret. Unknown id or wrong secret: AUTHFAILED. A revoked
 * user (right secret) is known but no longer allowed: ACCESSERROR.
 */
export function authenticate(deps: AccountDeps, clientId: string, clientSecret: string): ApiUser {
  const row = deps.db
    .select({ user: users, interviewsEnabled: companies.interviewsEnabled })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(eq(users.clientIdHash, sha256(clientId)))
    .get()
  if (!row || !sameHash(row.user.secretHash, sha256(clientSecret))) throw new AppError('AUTHFAILED')
  if (row.user.revokedAt) throw accessError(deps)
  const { id, companyId, email, role } = row.user
  return { id, companyId, email, role, interviewsEnabled: row.interviewsEnabled }
}

export const accessError = (deps: Pick<Deps, 'config'>) =>
  new AppError(
    'ACCESSERROR',
    `You are not authorized to access this feature. Please contact ${deps.config.interviews.support_email}.`
  )
