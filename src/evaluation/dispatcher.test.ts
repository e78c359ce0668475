import { eq } from 'drizzle-orm'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { createFakePool, echo } from '../testing/fake-pool.ts'
import { outbox, submissions } from '../storage/schema.ts'
import { findClientBySecret } from '../clients/clients.ts'
import { createDispatcher } from './dispatcher.ts'
import { localQueue, type JobQueue } from './queue.ts'
import type { Submission } from './model.ts'
import { acceptSubmission } from './submissions.ts'
import { addClient, createTestDeps, testConfig, until, type TestDeps } from '../testing/evaluation.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

const all = () => deps.db.select().from(submissions).all()

describe('dispatcher', () => {
  test('runs every queued submission once, never more at a time than the pool has slots', async () => {
    let now = 0
    let peak = 0
    const pool = createFakePool({
      size: 3,
      behave: async (job) => {
        peak = Math.max(peak, ++now)
        await new Promise((r) => setTimeout(r, 2))
        now--
        return echo(job)
      },
    })
    deps = createTestDeps({ pool, config: testConfig({ pool: { size: 3 } }) })
    const client = findClientBySecret(deps.db, addClient(deps))!
    for (let i = 0; i < 60; i++) acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: String(i) })
    await until(() => all().every((r) => r.state === 'completed'))
    expect(pool.jobs).toHaveLength(60)
    expect(peak).toBe(3)
    expect(all().map((r) => r.stdout).sort()).toEqual([...Array(60).keys()].map(String).sort())
    expect(all().every((r) => r.attempt === 1)).toBe(true)
  })

  test('start() re-queues what a crash left running or compiled, and runs it', async () => {
    deps = createTestDeps({ start: false })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const a = acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: 'a' })
    const b = acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: 'b' })
    deps.db.update(submissions).set({ state: 'running', attempt: 1 }).where(eq(submissions.id, a.id)).run()
    deps.db.update(submissions).set({ state: 'compiled', attempt: 1, compileStatus: 'OK' }).where(eq(submissions.id, b.id)).run()
    deps.dispatcher.start()
    await until(() => all().every((r) => r.state === 'completed'))
    expect(all().map((r) => r.attempt)).toEqual([2, 2])
  })

  test('with a pool that takes only some languages (sandbox hosts), only those are claimed; the rest wait queued until it says it has room', async () => {
    const fake = createFakePool({ size: 4 })
    let langs = new Set(['PYTHON3'])
    let capacity = () => {}
    const pool = Object.assign(fake, { available: () => langs, onCapacity: (fn: () => void) => void (capacity = fn) })
    deps = createTestDeps({ pool })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const c = acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: 'c' })
    const py = acceptSubmission(deps, client, { api: 'v4', lang: 'PYTHON3', source: 's', input: 'p' })
    await until(() => all().find((r) => r.id === py.id)!.state === 'completed')
    await new Promise((r) => setTimeout(r, 30))
    expect(all().find((r) => r.id === c.id)!.state).toBe('queued')
    langs = new Set(['C', 'PYTHON3'])
    capacity()
    await until(() => all().find((r) => r.id === c.id)!.state === 'completed')
    expect(fake.jobs.map((j) => j.language)).toEqual(['PYTHON3', 'C'])
  })

  test('a pool that resumes what was out (sandbox hosts) gets the rows a stop left running under the same claim, and their key', async () => {
    const fake = createFakePool()
    const keys: string[] = []
    const pool = Object.assign(fake, {
      resumesInFlight: true,
      run: (job: Parameters<typeof fake.run>[0], hooks: Parameters<typeof fake.run>[1] = {}) => (keys.push(hooks.jobKey!), createFakePool().run(job, hooks)),
    })
    deps = createTestDeps({ start: false, pool })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const a = acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: 'a' })
    const b = acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: 'b' })
    deps.db.update(submissions).set({ state: 'running', attempt: 3 }).where(eq(submissions.id, a.id)).run()
    deps.dispatcher.start()
    await until(() => all().every((r) => r.state === 'completed'))
    expect(all().map((r) => r.attempt)).toEqual([3, 1])
    expect(keys).toEqual([`s${a.id}-a3`, `s${b.id}-a1`])
  })

  test('waitFor resolves at completion, and at once for a completed row', async () => {
    deps = createTestDeps()
    deps.pool.hold()
    const client = findClientBySecret(deps.db, addClient(deps))!
    const row = acceptSubmission(deps, client, { api: 'v3', lang: 'C', source: 's', input: 'x' })
    let resolved = false
    const waiting = deps.dispatcher.waitFor(row.id).then((r) => ((resolved = true), r))
    await until(() => deps.pool.jobs.length === 1)
    await new Promise((r) => setTimeout(r, 20))
    expect(resolved).toBe(false)
    deps.pool.release()
    expect((await waiting).state).toBe('completed')
    expect((await deps.dispatcher.waitFor(row.id)).stdout).toBe('x')
  })

  test('a pool that throws (worker died) is retried, then reported as our failure', async () => {
    let calls = 0
    const pool = createFakePool({
      behave: () => {
        calls++
        throw new Error('worker exited')
      },
    })
    deps = createTestDeps({ pool, config: testConfig({ evaluation: { job_max_attempts: 3 } }) })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const row = acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's' })
    const done = await deps.dispatcher.waitFor(row.id)
    expect(calls).toBe(3)
    expect(done).toMatchObject({ state: 'completed', attempt: 3, failure: 'internal error: worker exited' })
  })

  test('stop() stops claiming', async () => {
    deps = createTestDeps()
    await deps.dispatcher.stop(100)
    const client = findClientBySecret(deps.db, addClient(deps))!
    acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's' })
    await new Promise((r) => setTimeout(r, 30))
    expect(deps.pool.jobs).toHaveLength(0)
    expect(all()[0].state).toBe('queued')
  })
})

describe('the queue seam', () => {
  test('the dispatcher works through any JobQueue: recover, claim, compiled, complete, and fail on our fault', async () => {
    const base = createTestDeps({ start: false })
    deps = base
    const rows = [1, 2, 3].map((id) => ({ id, publicId: `h${id}`, api: 'v4', attempt: 1, language: 'C', source: 's', input: String(id), timeLimitSec: 1, memoryLimitKb: 65536, compileOnly: false }) as unknown as Submission)
    const calls: string[] = []
    const queue: JobQueue = {
      recover: () => (calls.push('recover'), 0),
      inFlight: () => [],
      claim: () => rows.shift(),
      compiled: (row) => void calls.push(`compiled ${row.id}`),
      tested: (row, index) => void calls.push(`tested ${row.id} ${index}`),
      complete: (row, result) => (calls.push(`complete ${row.id} ${result.run?.stdout}`), { ...row, state: 'completed' } as Submission),
      fail: (row, reason) => (calls.push(`fail ${row.id} ${reason}`), undefined),
    }
    const pool = createFakePool({ behave: (job) => (job.input === '3' ? Promise.reject(new Error('jail broke')) : echo(job)) })
    const dispatcher = createDispatcher({ ...base, pool }, queue)
    dispatcher.start()
    await until(() => calls.filter((c) => c.startsWith('complete') || c.startsWith('fail')).length === 3)
    await dispatcher.stop(1000)
    expect(calls[0]).toBe('recover')
    expect(calls).toEqual(expect.arrayContaining(['compiled 1', 'complete 1 1', 'compiled 2', 'complete 2 2', 'fail 3 jail broke']))
    // nothing reached the submissions table: the queue is the only way the dispatcher touches it
    expect(all()).toEqual([])
  })
})

describe('a result the disk cannot take yet', () => {
  const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })

  test('is stored again until it can be (never left compiled); claims wait for storage too', async () => {
    const base = createTestDeps({ start: false })
    deps = base
    const rows = [1, 2].map((id) => ({ id, publicId: `h${id}`, api: 'v4', attempt: 1, language: 'C', source: 's', input: String(id), timeLimitSec: 1, memoryLimitKb: 65536, compileOnly: false }) as unknown as Submission)
    let diskFull = true
    let claimFaults = 0
    const stored: string[] = []
    const queue: JobQueue = {
      recover: () => 0,
      inFlight: () => [],
      claim: () => {
        // the second claim meets the full disk once: the queued row waits, then is claimed
        if (rows.length === 1 && claimFaults++ === 0) throw full()
        return rows.shift()
      },
      compiled: () => {
        if (diskFull) throw full()
      },
      tested: () => {},
      complete: (row, result) => {
        if (diskFull) throw full()
        stored.push(`${row.id} ${result.run?.stdout}`)
        return { ...row, state: 'completed' } as Submission
      },
      fail: () => {
        throw new Error('not a failure: the run ended')
      },
    }
    const pool = createFakePool({ size: 1 })
    const dispatcher = createDispatcher({ ...base, pool }, queue)
    dispatcher.start()
    await new Promise((r) => setTimeout(r, 2500))
    expect(stored).toEqual([])
    diskFull = false
    await until(() => stored.length === 2, 20_000)
    await dispatcher.stop(1000)
    expect(stored.sort()).toEqual(['1 1', '2 2'])
    expect(claimFaults).toBeGreaterThan(0)
  }, 30_000)

  test('a stop ends the waiting at once and stores nothing (the next start runs it again)', async () => {
    const base = createTestDeps({ start: false })
    deps = base
    const rows = [{ id: 1, publicId: 'h1', api: 'v4', attempt: 1, language: 'C', source: 's', input: '1', timeLimitSec: 1, memoryLimitKb: 65536, compileOnly: false } as unknown as Submission]
    let attempts = 0
    const queue: JobQueue = {
      recover: () => 0,
      inFlight: () => [],
      claim: () => rows.shift(),
      compiled: () => {},
      tested: () => {},
      complete: () => {
        attempts++
        throw full()
      },
      fail: () => {
        throw new Error('never')
      },
    }
    const dispatcher = createDispatcher({ ...base, pool: createFakePool({ size: 1 }) }, queue)
    dispatcher.start()
    await until(() => attempts >= 1)
    const t = Date.now()
    await dispatcher.stop(20_000)
    expect(Date.now() - t).toBeLessThan(1000)
    expect(dispatcher.inFlight).toBe(0)
  })
})

describe("a v4 job's compile step", () => {
  test('is reported by the pool for every v4 job (held there, the run may end first), none stored at its claim; v3 is asked nothing', async () => {
    // what the store held when the pool was handed each job, and which hooks it was given
    const seen = new Map<string, { state: string; compiledAt: Date | null; queuedCallbacks: number; onCompiled: boolean; onTest: boolean }>()
    const fake = createFakePool()
    const pool = Object.assign(fake, {
      run: (job: Parameters<typeof fake.run>[0], hooks: Parameters<typeof fake.run>[1] = {}) => {
        const row = all().find((r) => r.input === job.input)!
        const queued = deps.db.select().from(outbox).all().filter((o) => o.subjectId === String(row.id)).length
        seen.set(job.input, { state: row.state, compiledAt: row.compiledAt, queuedCallbacks: queued, onCompiled: !!hooks.onCompiled, onTest: !!hooks.onTest })
        return createFakePool().run(job, hooks)
      },
    })
    deps = createTestDeps({ pool })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const cb = { api: 'v4' as const, source: 's', callback: 'http://cb.test/' }
    acceptSubmission(deps, client, { ...cb, lang: 'PYTHON3', input: 'py' })
    acceptSubmission(deps, client, { ...cb, lang: 'C', input: 'c' })
    acceptSubmission(deps, client, { ...cb, lang: 'PYTHON3', input: 'graded', tests: [{ input: '1', expected_output: '1' }] })
    acceptSubmission(deps, client, { api: 'v3', source: 's', lang: 'PYTHON3', input: 'v3' })
    await until(() => all().every((r) => r.state === 'completed') && deps.sent.length === 6)
    const running = { state: 'running', compiledAt: null, queuedCallbacks: 0 }
    expect(seen.get('py')).toEqual({ ...running, onCompiled: true, onTest: false })
    expect(seen.get('graded')).toEqual({ ...running, onCompiled: true, onTest: true })
    expect(seen.get('c')).toEqual({ ...running, onCompiled: true, onTest: false })
    // stages not shown (v3): nothing asked
    expect(seen.get('v3')).toEqual({ ...running, onCompiled: false, onTest: false })
    // each v4 submission: CODE_COMPILED once, then REQUEST_COMPLETED
    const events = (id: number) => deps.sent.filter((o) => o.subjectId === String(id)).map((o) => JSON.parse(o.body).request_status.code)
    for (const row of all().filter((r) => r.api === 'v4')) expect(events(row.id)).toEqual(['CODE_COMPILED', 'REQUEST_COMPLETED'])
    expect(all().filter((r) => r.api === 'v4').every((r) => r.compileStatus === 'OK')).toBe(true)
  })

  // the real pool drops a compile report still held when the run ends (jobs/progress.ts deferCompiled)
  const unreported = () => {
    const fake = createFakePool()
    const run = fake.run.bind(fake)
    return Object.assign(fake, { run: (job: Parameters<typeof run>[0], hooks: Parameters<typeof run>[1] = {}) => run(job, { ...hooks, onCompiled: undefined }) })
  }
  const rowsOf = (id: number) => deps.db.select().from(outbox).all().filter((o) => o.subjectId === String(id))
  const deliveries = () => deps.sent.map((o) => ({ event: JSON.parse(o.headersJson!)['x-arbiter-event'], id: JSON.parse(o.headersJson!)['x-arbiter-delivery'] ?? String(o.id), code: JSON.parse(o.body).request_status.code }))

  test("one not reported goes as its REQUEST_COMPLETED's lead: one outbox row, two deliveries in order with ids of their own", async () => {
    deps = createTestDeps({ pool: unreported() })
    const client = findClientBySecret(deps.db, addClient(deps))!
    for (const lang of ['PYTHON3', 'C']) acceptSubmission(deps, client, { api: 'v4', lang, source: 's', input: lang, callback: 'http://cb.test/' })
    // a compile error: its compiler's text in the lead's compile_status
    acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 'COMPILE_ERROR', input: 'ce', callback: 'http://cb.test/' })
    // (a delivery's record is written up to RECORD_WINDOW_MS after its answer)
    await until(() => all().every((r) => r.state === 'completed') && deps.sent.length === 6 && deps.db.select().from(outbox).all().every((o) => o.state === 'delivered'))
    for (const row of all()) {
      const rows = rowsOf(row.id)
      expect(rows).toHaveLength(1)
      expect(rows[0]!.state).toBe('delivered')
      const sent = deliveries().filter((_, i) => deps.sent[i]!.subjectId === String(row.id))
      expect(sent).toEqual([
        { event: 'CODE_COMPILED', id: `${rows[0]!.id}.1`, code: 'CODE_COMPILED' },
        { event: 'REQUEST_COMPLETED', id: String(rows[0]!.id), code: 'REQUEST_COMPLETED' },
      ])
    }
  })

  test('a second attempt (a restart) whose first may have sent CODE_COMPILED: rows of their own, and the dedupe keeps one', async () => {
    deps = createTestDeps({ start: false, pool: unreported() })
    const client = findClientBySecret(deps.db, addClient(deps))!
    acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: 'a', callback: 'http://cb.test/' })
    // the first attempt's run outlasted the hold: its compile step reported and its CODE_COMPILED enqueued
    const first = localQueue(deps).claim(deps.now())!
    localQueue(deps).compiled(first, { ok: true, message: '' })
    expect(rowsOf(first.id)).toHaveLength(1)
    // a crash: the row is left compiled, the next start queues it again, and its run ends unreported
    deps.dispatcher.start()
    deps.outbox.start()
    await until(() => all()[0]!.state === 'completed' && deps.sent.length === 2)
    expect(all()[0]!.attempt).toBe(2)
    expect(deps.sent.map((o) => JSON.parse(o.body).request_status.code)).toEqual(['CODE_COMPILED', 'REQUEST_COMPLETED'])
    expect(rowsOf(first.id).map((o) => o.leadJson)).toEqual([null, null])
  })
})

describe("the statements of a submission's path", () => {
  test('bind no LIMIT or OFFSET: SQLite compiles such a statement again at every run (storage/prepared.ts writtenLimit)', async () => {
    // every statement the connection prepares from here on: accept, claim, the compile note, the
    // completion, the outbox's looks and its bookkeeping of a v4 job's two callbacks
    const prepare = vi.spyOn(Database.prototype, 'prepare')
    try {
      deps = createTestDeps()
      const client = findClientBySecret(deps.db, addClient(deps))!
      for (let i = 0; i < 3; i++) acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: String(i), callback: 'http://cb.test/' })
      await until(() => deps.sent.length === 6)
      const statements = prepare.mock.calls.map(([text]) => String(text))
      expect(statements.some((s) => /^update "submissions" set "state" = \?, "attempt"/.test(s))).toBe(true) // the claim was seen
      expect(statements.filter((s) => /\b(limit|offset)\s+[?@:$]/i.test(s))).toEqual([])
    } finally {
      prepare.mockRestore()
    }
  })
})
