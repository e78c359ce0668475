// /health's `queue` part with sandbox hosts: Redis reachable or not, the live hosts, and how many queued
// submissions are in a language no live host has (they wait, visibly, until one advertises it).
import { and, count, eq, notInArray } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { submissions } from '../storage/schema.ts'
import type { RemoteStatus } from './status-types.ts'

export function queueHealth(db: Deps['db'], status: RemoteStatus) {
  const rows = db
    .select({ language: submissions.language, n: count() })
    .from(submissions)
    .where(and(eq(submissions.state, 'queued'), status.languages.length ? notInArray(submissions.language, status.languages) : undefined))
    .groupBy(submissions.language)
    .all()
  const waiting: Record<string, number> = { ...status.waiting_for_a_host }
  for (const r of rows) waiting[r.language] = (waiting[r.language] ?? 0) + r.n
  return { backend: 'redis', ...status, waiting_for_a_host: waiting }
}
