// The nightly retention sweep (schedule.ts retentionSweep) with a movable clock: what each key removes,
// when, and that 0 keeps everything.
import { existsSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { createClient } from './clients/clients.ts'
import { queueRoomRun } from './evaluation/room-runs.ts'
import { type TestDeps } from './testing/evaluation.ts'
import { createBody, seedCompany, testApp, testDeps } from './testing/interviews.ts'
import { retentionSweep, sweep } from './schedule.ts'
import { interviewParticipants, interviews, outbox, outboxAttempts, outboxCounts, packageVerifies, problems, submissions } from './storage/schema.ts'
import { OUTBOX_PRUNE_BATCH } from './jobs/outbox-retention.ts'

const DAY = 86_400_000
const MIN = 60_000

function addSubmission(deps: TestDeps, clientId: number, completedAt: Date | null, n: number) {
  deps.db
    .insert(submissions)
    .values({
      publicId: `he${n}`,
      codeId: `code${n}`,
      clientId,
      api: 'v4',
      language: 'C',
      langRequested: 'C',
      source: 'int main(){}',
      timeLimitSec: 1,
      memoryLimitKb: 65536,
      state: completedAt ? 'completed' : 'queued',
      verdict: completedAt ? 'AC' : null,
      stdout: completedAt ? 'out' : null,
      stderr: completedAt ? 'err' : null,
      createdAt: completedAt ?? deps.now(),
      completedAt,
    })
    .run()
}

const subs = (deps: TestDeps) => deps.db.select({ publicId: submissions.publicId, stdout: submissions.stdout, verdict: submissions.verdict }).from(submissions).all()

describe('retention sweep', () => {
  it('keeps everything with the defaults (0 = forever)', async () => {
    const deps = testDeps()
    const client = createClient(deps.db, deps.now(), { name: 'c' })
    addSubmission(deps, client.client.id, new Date(deps.now().getTime() - 3650 * DAY), 1)
    expect(await retentionSweep(deps)).toEqual({ submissions: 0, outputs: 0, verifies: 0, resumes: 0, interviews: 0, outbox: 0 })
    expect(subs(deps)).toHaveLength(1)
  })

  it('clears outputs after outputs_days and deletes submissions after submissions_days; never a queued one', async () => {
    const deps = testDeps()
    Object.assign(deps.config.retention, { outputs_days: 7, submissions_days: 30 })
    const client = createClient(deps.db, deps.now(), { name: 'c' })
    const t0 = deps.now().getTime()
    addSubmission(deps, client.client.id, new Date(t0), 1)
    addSubmission(deps, client.client.id, new Date(t0 + 2 * DAY), 2)
    addSubmission(deps, client.client.id, null, 3)

    deps.advance(7 * DAY) // he1 is 7 days old exactly: not yet past
    await retentionSweep(deps)
    expect(subs(deps).map((s) => s.stdout)).toEqual(['out', 'out', null])
    deps.advance(1)
    expect(await retentionSweep(deps)).toMatchObject({ outputs: 1, submissions: 0 })
    expect(subs(deps)).toEqual([
      { publicId: 'he1', stdout: null, verdict: 'AC' },
      { publicId: 'he2', stdout: 'out', verdict: 'AC' },
      { publicId: 'he3', stdout: null, verdict: null },
    ])

    deps.advance(30 * DAY)
    expect(await retentionSweep(deps)).toMatchObject({ submissions: 2 })
    expect(subs(deps).map((s) => s.publicId)).toEqual(['he3']) // still queued: kept whatever its age
  })

  it('deletes a package verify that ended (done or failed) submissions_days after its end; never one queued or running', async () => {
    const deps = testDeps()
    Object.assign(deps.config.retention, { submissions_days: 30 })
    const client = createClient(deps.db, deps.now(), { name: 'c' })
    const problem = deps.db
      .insert(problems)
      .values({ publicId: 'p1', clientId: client.client.id, name: 'p', checkerJson: '{}', testCount: 0, totalBytes: 0, createdAt: deps.now() })
      .returning()
      .get()
    const t0 = deps.now().getTime()
    const addVerify = (publicId: string, state: string, completedAt: number | null) =>
      deps.db
        .insert(packageVerifies)
        .values({ publicId, clientId: client.client.id, problemId: problem.id, state, stage: state, reportJson: '{"rows":[]}', createdAt: new Date(t0), completedAt: completedAt === null ? null : new Date(completedAt) })
        .run()
    addVerify('v_done', 'done', t0)
    addVerify('v_failed', 'failed', t0 + DAY)
    addVerify('v_later', 'done', t0 + 20 * DAY)
    addVerify('v_queued', 'queued', null)
    addVerify('v_running', 'running', null)
    const left = () => deps.db.select({ publicId: packageVerifies.publicId }).from(packageVerifies).all().map((v) => v.publicId)

    deps.advance(30 * DAY) // v_done ended 30 days ago exactly: not yet past
    expect(await retentionSweep(deps)).toMatchObject({ verifies: 0 })
    deps.advance(DAY + 1)
    expect(await retentionSweep(deps)).toMatchObject({ verifies: 2 })
    expect(left()).toEqual(['v_later', 'v_queued', 'v_running'])
    deps.advance(3650 * DAY)
    expect(await retentionSweep(deps)).toMatchObject({ verifies: 1 })
    expect(left()).toEqual(['v_queued', 'v_running'])
  })

  it('removes a resume resumes_days after the interview ended, then the interview itself after interviews_days', async () => {
    const deps = testDeps({ max_duration_min: 60 })
    Object.assign(deps.config.retention, { resumes_days: 2, interviews_days: 10 })
    const seed = seedCompany(deps)
    const { call } = testApp(deps)
    const created = await call('POST', '/partner/service/interviews/', createBody(seed.admin, deps.now()))
    expect(created.status).toBe(201)
    const id: string = created.json.interview_id
    // a stored resume, as B1 with resume_url leaves it
    const file = `${'b'.repeat(32)}.pdf`
    mkdirSync(join(deps.config.dataDir, 'resumes'), { recursive: true })
    writeFileSync(join(deps.config.dataDir, 'resumes', file), '%PDF')
    deps.db.update(interviews).set({ resumeFile: file }).where(eq(interviews.id, id)).run()
    const row = () => deps.db.select().from(interviews).where(eq(interviews.id, id)).get()

    deps.advance(120 * MIN) // start in one hour + 60 min max duration
    sweep(deps)
    expect(row()?.endedAt).toBeTruthy()
    deps.advance(2 * DAY)
    await retentionSweep(deps)
    expect(existsSync(join(deps.config.dataDir, 'resumes', file))).toBe(true) // exactly 2 days: kept
    deps.advance(MIN)
    expect(await retentionSweep(deps)).toMatchObject({ resumes: 1, interviews: 0 })
    expect(existsSync(join(deps.config.dataDir, 'resumes', file))).toBe(false)
    expect(row()?.resumeFile).toBeNull()

    // a run from its room, completed
    const run = queueRoomRun(deps, { interviewId: id, language: 'C', source: 'candidate code', input: '', timeLimitSec: 1, memoryLimitKb: 65536 })
    deps.db.update(submissions).set({ state: 'completed' }).where(eq(submissions.id, run.id)).run()

    deps.advance(8 * DAY)
    expect(await retentionSweep(deps)).toMatchObject({ interviews: 1 })
    expect(row()).toBeUndefined()
    expect(deps.db.select().from(submissions).where(eq(submissions.id, run.id)).all()).toEqual([])
    expect(deps.db.select().from(interviewParticipants).where(eq(interviewParticipants.interviewId, id)).all()).toEqual([])
  })

  it('leaves an interview that has not ended, however old', async () => {
    const deps = testDeps({ max_duration_min: 60 })
    Object.assign(deps.config.retention, { resumes_days: 1, interviews_days: 1 })
    const seed = seedCompany(deps)
    const { call } = testApp(deps)
    const created = await call('POST', '/partner/service/interviews/', createBody(seed.admin, deps.now()))
    deps.advance(400 * DAY) // no sweep ran: never marked ended
    expect(await retentionSweep(deps)).toMatchObject({ interviews: 0 })
    expect(deps.db.select().from(interviews).where(eq(interviews.id, created.json.interview_id)).get()).toBeTruthy()
  })

  it('deletes delivered and superseded outbox rows outbox_days after they ended, with their attempts; never a failed or pending one', async () => {
    const deps = testDeps()
    Object.assign(deps.config.retention, { outbox_days: 14 })
    const t0 = deps.now().getTime()
    const add = (target: string, state: 'pending' | 'delivered' | 'failed' | 'superseded', createdAt: number, deliveredAt: number | null) => {
      const row = deps.db
        .insert(outbox)
        .values({ kind: 'callback', target, body: '{}', contentType: 'application/json', state, attempts: 1, nextAt: new Date(createdAt), createdAt: new Date(createdAt), deliveredAt: deliveredAt === null ? null : new Date(deliveredAt) })
        .returning()
        .get()
      deps.db.insert(outboxAttempts).values({ outboxId: row.id, attempt: 1, at: new Date(deliveredAt ?? createdAt), ms: 3, error: null }).run()
    }
    add('delivered-old', 'delivered', t0 - 20 * DAY, t0)
    add('delivered-later', 'delivered', t0, t0 + 5 * DAY)
    add('superseded', 'superseded', t0, null)
    add('failed', 'failed', t0 - 400 * DAY, null)
    add('pending', 'pending', t0 - 400 * DAY, null)
    const left = () => deps.db.select({ target: outbox.target }).from(outbox).all().map((r) => r.target)
    const attemptsLeft = () => deps.db.select().from(outboxAttempts).all().length
    const counted = () => Object.fromEntries(deps.db.select().from(outboxCounts).all().filter((c) => c.n > 0).map((c) => [c.state, c.n]))

    deps.advance(14 * DAY) // delivered-old was delivered 14 days ago exactly (created 34 days ago): kept
    expect(await retentionSweep(deps)).toMatchObject({ outbox: 0 })
    deps.advance(1)
    expect(await retentionSweep(deps)).toMatchObject({ outbox: 2 })
    expect(left()).toEqual(['delivered-later', 'failed', 'pending'])
    expect(attemptsLeft()).toBe(3)
    deps.advance(5 * DAY)
    expect(await retentionSweep(deps)).toMatchObject({ outbox: 1 })
    expect(left()).toEqual(['failed', 'pending'])
    expect(attemptsLeft()).toBe(2)
    // /metrics' counts follow the deletes
    expect(counted()).toEqual({ failed: 1, pending: 1 })
  })

  it('deletes a backlog larger than one batch, every row of it', async () => {
    const deps = testDeps()
    Object.assign(deps.config.retention, { outbox_days: 1 })
    const at = new Date(deps.now().getTime() - 2 * DAY)
    const n = OUTBOX_PRUNE_BATCH * 2 + 7
    const insert = deps.db.$client.prepare(`insert into outbox (kind, target, body, content_type, state, attempts, next_at, created_at, delivered_at) values ('callback', 'x', '{}', 'text/plain', 'delivered', 1, ?, ?, ?)`)
    deps.db.$client.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(at.getTime(), at.getTime(), at.getTime())
    })()
    expect(await retentionSweep(deps)).toMatchObject({ outbox: n })
    expect(deps.db.select().from(outbox).all()).toEqual([])
  })
})
