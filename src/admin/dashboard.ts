// What the /admin dashboard shows, read from the database, the pool and the toolchains: plain data,
// rendered by page.ts (and served as JSON for the live panel).
import { and, count, desc, eq, isNull, min } from 'drizzle-orm'
import { readFileSync } from 'node:fs'
import type { Deps } from '../deps.ts'
import { listClients } from '../clients/clients.ts'
import { linksFor } from '../hackerearth/replies.ts'
import { statusAt } from '../interviews/status.ts'
import { languageListing, selfTestFile, type SelfTests } from '../jobs/cli-commands.ts'
import { clients, interviews, outbox, submissions } from '../storage/schema.ts'

export type DashboardDeps = Pick<Deps, 'config' | 'db' | 'pool' | 'languages' | 'now'>


function readSelfTests(dataDir: string): SelfTests | null {
  try {
    return JSON.parse(readFileSync(selfTestFile(dataDir), 'utf8')) as SelfTests
  } catch {
    return null
  }
}

export function live(deps: DashboardDeps) {
  const byState = Object.fromEntries(
    deps.db.select({ state: submissions.state, n: count() }).from(submissions).groupBy(submissions.state).all().map((r) => [r.state, r.n])
  )
  const oldest = deps.db.select({ t: min(submissions.createdAt) }).from(submissions).where(eq(submissions.state, 'queued')).get()?.t
  return {
    queued: byState.queued ?? 0,
    running: (byState.running ?? 0) + (byState.compiled ?? 0),
    oldestQueuedSec: oldest ? Math.max(0, Math.round((deps.now().getTime() - new Date(oldest).getTime()) / 1000)) : 0,
    pool: { busy: deps.pool.busy, size: deps.pool.size },
  }
}

export function dashboard(deps: DashboardDeps) {
  const links = linksFor(deps.config)
  const recent = deps.db
    .select({ id: submissions.id, codeId: submissions.codeId, api: submissions.api, language: submissions.language, state: submissions.state, verdict: submissions.verdict, createdAt: submissions.createdAt, client: clients.name })
    .from(submissions)
    .innerJoin(clients, eq(clients.id, submissions.clientId))
    .orderBy(desc(submissions.id))
    .limit(25)
    .all()
    .map((r) => ({ ...r, webLink: `${links.codeViewUrl}/${r.codeId}` }))
  const tests = readSelfTests(deps.config.dataDir)
  const languages = languageListing(deps.config.paths.toolchains, deps.languages).map((l) => ({
    code: l.code,
    name: l.name,
    version: l.version,
    selfTest: tests?.languages[l.code] ?? null,
  }))
  const defaultQuota = deps.config.evaluation.default_quota
  const clientRows = listClients(deps.db).map((c) => ({ id: c.id, name: c.name, hint: c.secretHint, used: c.used, quota: c.quota ?? defaultQuota, revoked: c.revokedAt !== null }))
  const failed = deps.db
    .select({ id: outbox.id, kind: outbox.kind, target: outbox.target, attempts: outbox.attempts, lastError: outbox.lastError, createdAt: outbox.createdAt })
    .from(outbox)
    .where(eq(outbox.state, 'failed'))
    .orderBy(desc(outbox.id))
    .limit(50)
    .all()
  const pending = deps.db.select({ n: count() }).from(outbox).where(eq(outbox.state, 'pending')).get()?.n ?? 0
  const maxMs = deps.config.interviews.max_duration_min * 60_000
  const now = deps.now()
  const open = deps.db
    .select({ id: interviews.id, title: interviews.title, startAt: interviews.startAt, startedAt: interviews.startedAt, endedAt: interviews.endedAt, candidate: interviews.candidateName })
    .from(interviews)
    .where(and(isNull(interviews.deletedAt), isNull(interviews.endedAt)))
    .orderBy(interviews.startAt)
    .all()
    .map((i) => ({ ...i, status: statusAt(i, now, maxMs) }))
    .filter((i) => i.status !== 'completed')
  return { live: live(deps), recent, languages, selfTestsAt: tests?.at ?? null, clients: clientRows, outbox: { pending, failed }, interviews: open }
}

export type Dashboard = ReturnType<typeof dashboard>
