// The lifecycle on the real server, driven by its own node-cron sweep (every second here, one-minute
// maximum duration): nobody reads the interviews, yet they move upcoming → ongoing → completed, and the
// report reaches a loopback receiver that fails twice first: retried with backoff from the durable
// outbox, each attempt recorded and signed afresh.
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startReceiver, waitUntil, type Receiver } from '../testing/harness.ts'
import { startServer, type Server } from '../testing/interview-harness.ts'

const P = '/partner/service/interviews'

let s: Server
let receiver: Receiver

beforeAll(async () => {
  s = await startServer({
    interviews: { max_duration_min: 1, sweep_cron: '* * * * * *' },
    outbox: { backoff_ms: 200, backoff_max_ms: 1000 },
  })
  receiver = await startReceiver()
}, 120_000)

afterAll(async () => {
  await receiver?.close()
  await s?.stop()
})

const row = (id: string) => s.sql<{ start_at: number; started_at: number | null; ended_at: number | null }>('select start_at, started_at, ended_at from interviews where id = ?', id)[0]

test('the sweep moves interviews on by itself; the report is retried until the receiver takes it', { timeout: 120_000 }, async () => {
  const company = await s.cli('companies', 'create', '--name', 'Acme', '--credits', '5', '--json')
  const admin = await s.cli('users', 'create', '--company', String(company.id), '--email', 'boss@acme.test', '--super-admin', '--json')
  const { webhook_secret: secret } = await s.cli('companies', 'secret', '--company', String(company.id), '--json')
  const create = async (startMs: number) => {
    const r = await s.call('POST', `${P}/`, {
      ...admin,
      title: 'Lifecycle',
      start_datetime: new Date(startMs).toISOString(),
      candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com' },
      interviewers: [{ full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test' }],
      callback_url: `${receiver.url}/hooks/interviews`,
      inform_candidate: false,
      inform_interviewers: false,
    })
    expect(r.status).toBe(201)
    return r.json.interview_id as string
  }
  // the receiver is down for the first two attempts
  let calls = 0
  receiver.respond = () => (++calls <= 2 ? 503 : 200)

  // upcoming → ongoing: starts in 3 s, then has a minute to run
  const soon = await create(Date.now() + 3000)
  expect(row(soon).started_at).toBeNull()
  await waitUntil(() => row(soon).started_at !== null, 30_000, 'the sweep to start it')
  expect(row(soon)).toMatchObject({ started_at: row(soon).start_at, ended_at: null })

  // ongoing → completed after max_duration_min, and the report goes out
  const ending = await create(Date.now() - 55_000)
  // (the first interview ends a minute after its start and reports too: look at this one's only)
  const mine = () => receiver.received.filter((r) => r.path === '/hooks/interviews' && JSON.parse(r.body).interview_id === ending)
  await waitUntil(() => mine().length >= 3, 60_000, 'three report attempts')
  // the receiver logs a request before the server has read its answer: wait for the outbox to record it
  const reportState = () => s.sql<{ state: string }>(`select state from outbox where kind = 'interview_report' and group_key = ?`, `report:${ending}`)[0]?.state
  await waitUntil(() => reportState() === 'delivered', 10_000, 'the third attempt recorded as delivered')
  expect(row(ending).ended_at).toBe(row(ending).start_at + 60_000)

  const [delivery, ...others] = s.sql(`select id, state, attempts, last_error from outbox where kind = 'interview_report' and group_key = ?`, `report:${ending}`)
  expect(others).toEqual([])
  expect(delivery).toMatchObject({ state: 'delivered', attempts: 3, last_error: null })
  expect(s.sql('select attempt, error from outbox_attempts where outbox_id = ? order by id', delivery.id)).toEqual([
    { attempt: 1, error: 'HTTP 503' },
    { attempt: 2, error: 'HTTP 503' },
    { attempt: 3, error: null },
  ])
  // each attempt: the same body and delivery id, a valid signature of its own time
  const attempts = mine()
  expect(attempts).toHaveLength(3)
  expect(new Set(attempts.map((a) => a.body)).size).toBe(1)
  expect(attempts.map((a) => a.headers['x-arbiter-delivery'])).toEqual(Array(3).fill(String(delivery.id)))
  for (const a of attempts) {
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(a.headers['he-signature']))!
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${a.body}`).digest('hex'))
  }

  const body = JSON.parse(attempts[0].body)
  const report = await s.call('POST', `${P}/report/`, { ...admin, interview_id: ending })
  expect(report.json.status).toBe('completed')
  expect(body).toEqual({ ...report.json, interview_id: ending })
  expect(body.interviewer_feedbacks).toEqual({ 'ivan@acme.test': { result: null, ratings: null, eval_params_ratings: null } })
})
