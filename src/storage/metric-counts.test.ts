// The counts /metrics reads (schema.ts submissionCounts and outboxCounts, kept by migration 0018's
// triggers): equal to grouping the tables after every kind of change, counted once for rows stored before
// the migration, and read by a scrape without grouping either table (grouping the submissions took the
// main thread 1.7-3.5 s a scrape at a million rows).
import Database from 'better-sqlite3'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { eq, sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { createClient } from '../clients/clients.ts'
import { createMetrics } from '../metrics/metrics.ts'
import { createTestDeps, type TestDeps } from '../testing/evaluation.ts'
import type { Db } from './db.ts'
import * as schema from './schema.ts'
import { outbox, outboxCounts, submissionCounts, submissions } from './schema.ts'
import { enqueueDelivery } from '../jobs/outbox.ts'

let deps: TestDeps | undefined
afterEach(() => deps?.stop())

let n = 0
const add = (db: Db, clientId: number, language: string, state: 'queued' | 'completed' = 'queued', verdict: string | null = null) =>
  db
    .insert(submissions)
    .values({ publicId: `he${++n}`, codeId: `code${n}`, clientId, api: 'v4', language, langRequested: language, source: 'x', timeLimitSec: 1, memoryLimitKb: 65536, state, verdict, createdAt: new Date() })
    .returning({ id: submissions.id })
    .all()[0]!.id

/** The completed rows grouped, as the counts should say them: verdict|language → n. */
const grouped = (db: Db) =>
  Object.fromEntries(
    db
      .all<{ k: string; n: number }>(sql`select coalesce(verdict, '') || '|' || language as k, count(*) as n from submissions where state = 'completed' group by 1`)
      .map((r) => [r.k, r.n])
  )
const counted = (db: Db) =>
  Object.fromEntries(db.select().from(submissionCounts).all().filter((r) => r.n !== 0).map((r) => [`${r.verdict}|${r.language}`, r.n]))

const groupedOutbox = (db: Db) =>
  Object.fromEntries(db.all<{ k: string; n: number }>(sql`select kind || '|' || state as k, count(*) as n from outbox group by 1`).map((r) => [r.k, r.n]))
const countedOutbox = (db: Db) =>
  Object.fromEntries(db.select().from(outboxCounts).all().filter((r) => r.n !== 0).map((r) => [`${r.kind}|${r.state}`, r.n]))
const deliver = (db: Db, kind: 'callback' | 'email', key: string) =>
  enqueueDelivery(db, { kind, target: kind === 'email' ? 'a@b.c' : 'http://127.0.0.1:9/cb', body: '{}', contentType: 'application/json', groupKey: key, dedupeKey: key }, new Date())

describe('outbox counts', () => {
  it('follow every insert, state change and delete', () => {
    deps = createTestDeps()
    const { db } = deps
    for (const k of ['a', 'b', 'c']) deliver(db, 'callback', k)
    deliver(db, 'email', 'd')
    deliver(db, 'callback', 'a') // the same dedupe key: no row, no count
    expect(countedOutbox(db)).toEqual({ 'callback|pending': 3, 'email|pending': 1 })
    db.update(outbox).set({ state: 'delivered' }).where(eq(outbox.dedupeKey, 'a')).run()
    db.update(outbox).set({ state: 'failed', attempts: 5 }).where(eq(outbox.dedupeKey, 'b')).run()
    db.update(outbox).set({ attempts: 6, lastError: 'x' }).where(eq(outbox.dedupeKey, 'b')).run()
    db.update(outbox).set({ state: 'delivered' }).where(eq(outbox.dedupeKey, 'd')).run()
    expect(countedOutbox(db)).toEqual(groupedOutbox(db))
    expect(countedOutbox(db)).toEqual({ 'callback|delivered': 1, 'callback|failed': 1, 'callback|pending': 1, 'email|delivered': 1 })
    db.delete(outbox).where(eq(outbox.dedupeKey, 'c')).run()
    expect(countedOutbox(db)).toEqual(groupedOutbox(db))
  })
})

describe('submission counts', () => {
  it('follow every insert, state, verdict and language change, and delete', () => {
    deps = createTestDeps()
    const { db } = deps
    const client = createClient(db, new Date(), { name: 'c' }).client.id
    const ids = [add(db, client, 'C'), add(db, client, 'C'), add(db, client, 'PYTHON3'), add(db, client, 'GO', 'completed', 'WA')]
    expect(counted(db)).toEqual(grouped(db))
    db.update(submissions).set({ state: 'running' }).where(eq(submissions.id, ids[0]!)).run()
    db.update(submissions).set({ state: 'compiled' }).where(eq(submissions.id, ids[0]!)).run()
    db.update(submissions).set({ state: 'completed', verdict: 'AC' }).where(eq(submissions.id, ids[0]!)).run()
    db.update(submissions).set({ state: 'completed', verdict: 'TLE' }).where(eq(submissions.id, ids[2]!)).run()
    // a change of other columns (the output) leaves the counts as they are; a verdict cleared (a re-run) moves it
    db.update(submissions).set({ stdout: 'out' }).where(eq(submissions.id, ids[2]!)).run()
    db.update(submissions).set({ state: 'queued', verdict: null }).where(eq(submissions.id, ids[3]!)).run()
    db.update(submissions).set({ language: 'CPP17' }).where(eq(submissions.id, ids[1]!)).run()
    expect(counted(db)).toEqual(grouped(db))
    expect(counted(db)).toEqual({ 'AC|C': 1, 'TLE|PYTHON3': 1 })
    db.delete(submissions).where(eq(submissions.id, ids[0]!)).run()
    db.delete(submissions).where(eq(submissions.language, 'GO')).run()
    expect(counted(db)).toEqual(grouped(db))
    expect(counted(db)).toEqual({ 'TLE|PYTHON3': 1 })
    // a completed row's verdict or language changed in place moves its count
    db.update(submissions).set({ verdict: 'WA' }).where(eq(submissions.id, ids[2]!)).run()
    expect(counted(db)).toEqual({ 'WA|PYTHON3': 1 })
  })

  it('count the rows stored before the migration once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-counts-'))
    try {
      const all = join(import.meta.dirname, 'migrations')
      const before = join(dir, 'migrations')
      cpSync(all, before, { recursive: true })
      const journalPath = join(before, 'meta', '_journal.json')
      const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] }
      const at = journal.entries.findIndex((e) => e.tag === '0018_metric_counts')
      expect(at).toBeGreaterThan(0)
      writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }))
      const sqlite = new Database(join(dir, 'db.sqlite'))
      sqlite.pragma('foreign_keys = ON')
      const db = drizzle(sqlite, { schema, casing: 'snake_case' }) as Db
      migrate(db, { migrationsFolder: before })
      const client = createClient(db, new Date(), { name: 'c' }).client.id
      for (let i = 0; i < 5; i++) add(db, client, i % 2 ? 'C' : 'PYTHON3', i < 3 ? 'completed' : 'queued', i < 3 ? 'AC' : null)
      // (the outbox as it was then: later migrations add columns today's enqueue writes)
      for (const [k, state] of [['x', 'delivered'], ['y', 'pending']])
        db.run(sql`insert into outbox (kind, target, body, content_type, dedupe_key, state, next_at, created_at) values ('callback', 'http://127.0.0.1:9/cb', '{}', 'application/json', ${k}, ${state}, 0, 0)`)
      migrate(db, { migrationsFolder: all })
      expect(countedOutbox(db)).toEqual({ 'callback|delivered': 1, 'callback|pending': 1 })
      expect(counted(db)).toEqual({ 'AC|PYTHON3': 2, 'AC|C': 1 })
      add(db, client, 'C', 'completed', 'RE')
      expect(counted(db)).toEqual(grouped(db))
      sqlite.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('are what a scrape reads: no statement of it groups the outbox or scans the submissions table', async () => {
    deps = createTestDeps()
    const { db } = deps
    const client = createClient(db, new Date(), { name: 'c' }).client.id
    add(db, client, 'C', 'completed', 'AC')
    add(db, client, 'C')
    deliver(db, 'callback', 'z')
    const metrics = createMetrics({ ...deps, pool: deps.pool })
    const seen: string[] = []
    const prepare = db.$client.prepare.bind(db.$client)
    db.$client.prepare = ((source: string) => {
      seen.push(source)
      return prepare(source)
    }) as typeof db.$client.prepare
    const text = await metrics.registry.metrics()
    db.$client.prepare = prepare
    expect(text).toContain('arbiter_submissions{state="completed",verdict="AC",language="C"} 1')
    expect(text).toContain('arbiter_submissions{state="queued",verdict="",language="C"} 1')
    expect(text).toContain('arbiter_outbox_deliveries{kind="callback",state="pending"} 1')
    expect(seen.filter((s) => /from "outbox"/.test(s))).toEqual([])
    // every read of the table is of rows not completed, by state (the claim index's first column)
    const onSubmissions = seen.filter((s) => /from "submissions"/.test(s))
    expect(onSubmissions.length).toBeGreaterThan(0)
    for (const s of onSubmissions) expect(s).toMatch(/where "submissions"\."state" (= \?|in \(\?, \?, \?\))/)
    for (const s of onSubmissions) {
      const plan = db.$client.prepare(`explain query plan ${s}`).all(...(s.includes(' in (') ? ['queued', 'running', 'compiled'] : ['queued'])) as { detail: string }[]
      expect(plan.map((p) => p.detail).join('; ')).toMatch(/USING (COVERING )?INDEX submissions_claim/)
    }
  })
})
