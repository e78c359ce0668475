// Fair share of the queue: round-robin by client within a class, the classes' order (room runs, then every
// API's submissions, synchronous or not), the same order for the sandbox hosts' claims, the per-client cap on queued rows, and room runs
// as queued submissions that no API sees and no quota or cap counts.
import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.ts'
import { createFakePool } from '../testing/fake-pool.ts'
import { createBody, seedCompany, testApp } from '../testing/interviews.ts'
import { createRoomHub } from '../room/hub.ts'
import { runCode } from '../room/room.ts'
import { clients, submissions } from '../storage/schema.ts'
import { findClientBySecret, listClients, type Client } from '../clients/clients.ts'
import { PRIORITY, QUEUE_FULL_RETRY_AFTER_SEC } from './fair-share.ts'
import { claimNext } from './queue.ts'
import { queueRoomRun } from './room-runs.ts'
import { acceptSubmission, getByCodeId, getSubmission } from './submissions.ts'
import { addClient, createTestDeps, json, testConfig, thrownAppError, until, type TestDeps } from '../testing/evaluation.ts'
import { eq } from 'drizzle-orm'

let deps: TestDeps
afterEach(() => deps?.stop())

const client = (name: string, quota?: number) => findClientBySecret(deps.db, addClient(deps, { name, quota }))!
const v4 = (c: Client, input = '', lang = 'C') => acceptSubmission(deps, c, { api: 'v4', lang, source: 's', input })
/** Claims until the queue is empty; the inputs in claim order. */
const drain = (languages?: ReadonlySet<string>) => {
  const order: string[] = []
  for (let row; (row = claimNext(deps.db, new Date(), languages)); ) order.push(row.input)
  return order
}

/** An interview of a seeded company, made through the interviews API (B2). */
async function interview(name = 'Acme') {
  const seed = seedCompany(deps, { name })
  const r = await testApp(deps).call('POST', '/partner/service/interviews/', createBody(seed.admin, deps.now()))
  expect(r.status).toBe(201)
  return r.json.interview_id as string
}
const roomRun = (interviewId: string, input: string) =>
  queueRoomRun(deps, { interviewId, language: 'C', source: 's', input, timeLimitSec: 1, memoryLimitKb: 65536 })

describe('fair share', () => {
  test("one client's 20 queued jobs do not make another's wait: claims go round-robin by client", () => {
    deps = createTestDeps({ start: false })
    const a = client('a')
    const b = client('b')
    for (let i = 0; i < 20; i++) v4(a, `a${i}`)
    v4(b, 'b0')
    v4(b, 'b1')
    const order = drain()
    // first come first served would claim b0 21st
    expect(order.slice(0, 5)).toEqual(['a0', 'b0', 'a1', 'b1', 'a2'])
    expect(order).toHaveLength(22)
  })

  test('a client arriving later joins the current round, not the end of the queue', () => {
    deps = createTestDeps({ start: false })
    const a = client('a')
    const b = client('b')
    for (let i = 0; i < 10; i++) v4(a, `a${i}`)
    for (let i = 0; i < 3; i++) claimNext(deps.db, new Date())
    v4(b, 'b0')
    expect(drain().slice(0, 2)).toEqual(['a3', 'b0'])
  })

  const v3sync = (c: Client, input: string) => acceptSubmission(deps, c, { api: 'v3', lang: 'C', source: 's', input })

  test('room runs first, whatever the rounds; then synchronous and asynchronous work share the rounds, synchronous first within one', async () => {
    deps = createTestDeps({ start: false })
    const a = client('a')
    const id = await interview()
    v4(a, 'async')
    v3sync(a, 'sync')
    roomRun(id, 'room')
    expect(drain()).toEqual(['room', 'sync', 'async'])
  })

  test("one client's flood of synchronous requests does not hold back another client's asynchronous job, nor a room run", async () => {
    deps = createTestDeps({ start: false })
    const a = client('a')
    const b = client('b')
    const id = await interview()
    for (let i = 0; i < 20; i++) v3sync(a, `a${i}`)
    v4(b, 'b0')
    roomRun(id, 'room')
    // with synchronous requests in a class of their own, b0 came 21st and the room run after all 20
    expect(drain().slice(0, 3)).toEqual(['room', 'a0', 'b0'])
  })

  test("a client's synchronous request is not held behind its own asynchronous backlog, and each kind takes one row a round", () => {
    deps = createTestDeps({ start: false })
    const a = client('a')
    const b = client('b')
    for (let i = 0; i < 10; i++) v4(a, `a${i}`)
    for (let i = 0; i < 10; i++) v4(b, `b${i}`)
    v3sync(a, 'a-sync')
    v3sync(a, 'a-sync2')
    expect(drain().slice(0, 7)).toEqual(['a-sync', 'a0', 'b0', 'a-sync2', 'a1', 'b1', 'a2'])
  })

  test("the sandbox hosts' claim (limited to languages) takes the same order", () => {
    deps = createTestDeps({ start: false })
    const a = client('a')
    const b = client('b')
    for (let i = 0; i < 5; i++) v4(a, `a${i}`, 'PYTHON3')
    v4(a, 'c-only', 'C')
    v4(b, 'b0', 'PYTHON3')
    expect(drain(new Set(['PYTHON3']))).toEqual(['a0', 'b0', 'a1', 'a2', 'a3', 'a4'])
  })

  test('a retried row keeps its round: it goes before rows queued after it', () => {
    deps = createTestDeps({ start: false })
    const a = client('a')
    const b = client('b')
    v4(a, 'a0')
    v4(a, 'a1')
    const first = claimNext(deps.db, new Date())!
    v4(b, 'b0')
    // our fault: back to queued, as failAttempt does
    deps.db.update(submissions).set({ state: 'queued' }).where(eq(submissions.id, first.id)).run()
    expect(drain()).toEqual(['a0', 'a1', 'b0'])
  })
})

describe('the per-client cap on queued work', () => {
  test('over evaluation.max_queued_per_client → QueueFullError (not counted against the quota); others are not affected; room free once some start', () => {
    deps = createTestDeps({ start: false, config: testConfig({ evaluation: { max_queued_per_client: 3 } }) })
    const a = client('a', 10)
    const b = client('b')
    for (let i = 0; i < 3; i++) v4(a)
    const e = thrownAppError(() => v4(a))
    expect(e.code).toBe('QueueFull')
    expect(e.data).toEqual({ queued: 3, max_queued: 3, retry_after: QUEUE_FULL_RETRY_AFTER_SEC })
    expect(deps.db.select().from(clients).where(eq(clients.id, a.id)).get()!.used).toBe(3)
    v4(b)
    // a row of a's starts: one more may wait
    claimNext(deps.db, new Date())
    v4(a)
    expect(() => v4(a)).toThrow(/QueueFull/)
  })

  test('0 = no cap', () => {
    deps = createTestDeps({ start: false, config: testConfig({ evaluation: { max_queued_per_client: 0 } }) })
    const a = client('a')
    for (let i = 0; i < 600; i++) v4(a)
    expect(deps.db.select().from(submissions).all()).toHaveLength(600)
  })

  test.each([
    ['v4', '/v4/partner/code-evaluation/submissions/', (secret: string) => ({ headers: { 'client-secret': secret, 'content-type': 'application/json' }, body: JSON.stringify({ lang: 'C', source: 'x' }) })],
    ['v3', '/v3/code/run/', (secret: string) => ({ body: new URLSearchParams({ client_secret: secret, lang: 'C', source: 'x', async: '1' }) })],
  ])('%s: 429 in its error shape with Retry-After', async (api, path, init) => {
    deps = createTestDeps({ start: false, config: testConfig({ evaluation: { max_queued_per_client: 1 } }) })
    const app = createApp(deps)
    const secret = addClient(deps)
    expect((await app.request(path, { method: 'POST', ...init(secret) })).status).toBe(200)
    const r = await app.request(path, { method: 'POST', ...init(secret) })
    expect(r.status).toBe(429)
    expect(r.headers.get('retry-after')).toBe(String(QUEUE_FULL_RETRY_AFTER_SEC))
    const body = await json(r)
    expect(body).toMatchObject({ message: expect.stringMatching(/^QueueFullError: /), errors: { queued: 1, max_queued: 1, retry_after: QUEUE_FULL_RETRY_AFTER_SEC } })
    if (api === 'v4') expect(body.request_status).toEqual({ code: 'REQUEST_FAILED', message: body.message })
    else expect(body).not.toHaveProperty('request_status')
  })
})

describe('room runs are queued submissions', () => {
  test("owned by the company's room client: no quota, no cap, not listed, not readable through the APIs", async () => {
    deps = createTestDeps({ start: false, config: testConfig({ evaluation: { max_queued_per_client: 1, default_quota: 1 } }) })
    const id = await interview('Acme')
    const runs = [roomRun(id, '1'), roomRun(id, '2')]
    expect(runs.map((r) => r.priority)).toEqual([PRIORITY.room, PRIORITY.room])
    expect(runs[0]!.api).toBe('room')
    expect(runs[0]!.interviewId).toBe(id)
    const owner = deps.db.select().from(clients).where(eq(clients.id, runs[0]!.clientId)).get()!
    expect(owner).toMatchObject({ name: 'interview rooms of Acme', used: 0 })
    expect(owner.roomOfCompany).not.toBeNull()
    expect(listClients(deps.db).map((c) => c.id)).not.toContain(owner.id)
    const api = client('api')
    expect(() => getSubmission(deps, api, runs[0]!.publicId)).toThrow(/NotFound/)
    expect(() => getByCodeId(deps, runs[0]!.codeId)).toThrow(/NotFound/)
    // a second company's rooms have their own client, and take turns with the first's
    const other = await interview('Globex')
    roomRun(other, 'g')
    expect(drain()).toEqual(['1', 'g', '2'])
  })

  test('the room waits on its queued run and shows its verdict, through the dispatcher (no direct pool call)', async () => {
    deps = createTestDeps()
    const id = await interview()
    const out = await runCode(deps, createRoomHub(), id, 'Cara', { language: 'C', code: 'int main(){}', input: 'hello' })
    expect(out).toMatchObject({ status: 'AC', stdout: 'hello', by: 'Cara', language: 'C' })
    const row = deps.db.select().from(submissions).get()!
    expect(row).toMatchObject({ api: 'room', state: 'completed', interviewId: id, attempt: 1 })
    expect(deps.pool.jobs.map((j) => j.input)).toEqual(['hello'])
  })

  test('a run that fails on our side every time comes back IE after the attempts', async () => {
    const pool = createFakePool({
      behave: () => {
        throw new Error('jail broke')
      },
    })
    deps = createTestDeps({ pool, config: testConfig({ evaluation: { job_max_attempts: 2 } }) })
    const id = await interview()
    const out = await runCode(deps, createRoomHub(), id, 'Cara', { language: 'C', code: 'x', input: '' })
    expect(out.status).toBe('IE')
    await until(() => deps.db.select().from(submissions).get()!.attempt === 2)
  })
})
