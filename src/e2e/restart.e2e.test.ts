// Durability: SIGKILL the real server while 200 submissions are queued or running, start it again on the
// same data, and every submission completes exactly once; callbacks owed before the kill are delivered.
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, startReceiver, startServer, waitUntil, type Receiver, type RunningServer, json } from '../testing/harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'
const N = 200

let server: RunningServer
let receiver: Receiver

beforeAll(async () => {
  // short backoff so that the callbacks refused before the kill are retried within the test, and
  // attempts enough to outlast the refusals: with the default 8 (5.4 s at this backoff) the first
  // callbacks were given up while 200 submissions were still being posted on a loaded machine (load 30)
  server = await startServer({ configToml: '[outbox]\nbackoff_ms = 200\nbackoff_max_ms = 1000\nmax_attempts = 200\n[pool]\nsize = 2' })
  receiver = await startReceiver()
}, 60_000)

afterAll(async () => {
  await receiver?.close()
  await server?.stop()
  server?.cleanup()
})

const readDb = <T>(fn: (db: Database.Database) => T): T => {
  const db = new Database(join(server.dataDir, 'arbiter.db'), { readonly: true })
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

test('SIGKILL with 200 submissions queued or running: after a restart each completes exactly once', { timeout: 180_000 }, async () => {
  const secret = await server.createClient('durable')
  const http = api(server.url)
  // the receiver is down at first: callbacks owed at the kill must survive it
  receiver.respond = () => 503

  const ids: string[] = []
  for (let i = 0; i < N; i++) {
    const source = `import time\ntime.sleep(0.02)\nprint(${i})`
    const r = await http.post(PATH, JSON.stringify({ lang: 'PYTHON3', source, context: String(i), callback: `${receiver.url}/cb` }), { 'client-secret': secret })
    expect(r.status).toBe(200)
    ids.push((await json(r)).he_id)
  }
  await waitUntil(() => readDb((db) => (db.prepare("select count(*) n from submissions where state = 'completed'").get() as { n: number }).n) >= 10, 30_000, 'ten completions')

  await server.kill()
  const atKill = readDb((db) => db.prepare('select state, count(*) n from submissions group by state').all() as { state: string; n: number }[])
  const count = (state: string) => atKill.find((s) => s.state === state)?.n ?? 0
  // the kill found submissions queued, and jobs inside the jail
  expect(count('queued')).toBeGreaterThan(0)
  expect(count('running') + count('compiled')).toBeGreaterThan(0)
  expect(count('completed')).toBeLessThan(N)
  // and callbacks owed: refused once already, still pending
  const owedAtKill = readDb((db) => (db.prepare("select count(*) n from outbox where state = 'pending' and attempts > 0").get() as { n: number }).n)
  expect(owedAtKill).toBeGreaterThan(0)

  receiver.respond = () => 200
  await server.restart()

  // every submission completes, with its own output
  await waitUntil(() => readDb((db) => (db.prepare("select count(*) n from submissions where state = 'completed'").get() as { n: number }).n) === N, 120_000, 'all completions')
  for (const [i, id] of ids.entries()) {
    const r = await json(await http.get(`${PATH}${id}/`, { 'client-secret': secret }))
    expect(r.request_status.code).toBe('REQUEST_COMPLETED')
    expect(r.context).toBe(String(i))
    expect(r.result.run_status.status).toBe('AC')
    if (i % 20 === 0) expect(await (await fetch(r.result.run_status.output)).text()).toBe(`${i}\n`)
  }

  // every REQUEST_COMPLETED callback arrives; a repeat can only be the same delivery sent again
  const completedFor = (id: string) =>
    receiver.received.filter((r) => r.headers['x-arbiter-he-id'] === id && r.headers['x-arbiter-event'] === 'REQUEST_COMPLETED')
  await waitUntil(() => ids.every((id) => completedFor(id).length > 0), 60_000, 'every REQUEST_COMPLETED callback')
  for (const id of ids) {
    const got = completedFor(id)
    expect(new Set(got.map((g) => g.headers['x-arbiter-delivery'])).size).toBe(1)
    expect(new Set(got.map((g) => g.body)).size).toBe(1)
    expect(JSON.parse(got[0].body).he_id).toBe(id)
  }

  // the receiver logs a request before the server has read its answer: wait for the outbox to settle
  await waitUntil(() => readDb((db) => (db.prepare("select count(*) n from outbox where kind = 'callback' and state = 'pending'").get() as { n: number }).n) === 0, 30_000, 'the outbox to settle')
  readDb((db) => {
    // every callback row ended delivered (or superseded by its newer state), none given up
    const states = db.prepare("select state, count(*) n from outbox where kind = 'callback' group by state").all() as { state: string; n: number }[]
    expect(states.filter((r) => r.state !== 'delivered' && r.state !== 'superseded')).toEqual([])
    // one completion record per submission, and no submission run more than once beyond the ones the
    // kill interrupted (at most one per pool slot)
    const perSubmission = db
      .prepare("select group_key g, count(*) n from outbox where dedupe_key like '%:completed' group by group_key")
      .all() as { g: string; n: number }[]
    expect(perSubmission).toHaveLength(N)
    expect(perSubmission.every((r) => r.n === 1)).toBe(true)
    const attempts = db.prepare('select attempt, count(*) n from submissions group by attempt').all() as { attempt: number; n: number }[]
    const rerun = attempts.filter((a) => a.attempt > 1)
    expect(rerun.every((a) => a.attempt === 2)).toBe(true)
    expect(rerun.reduce((s, a) => s + a.n, 0)).toBeLessThanOrEqual(2)
  })
})
