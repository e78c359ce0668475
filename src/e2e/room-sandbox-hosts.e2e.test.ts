// The interview room on an API host that runs no job itself (pool.size = 0) with one `cli worker` sandbox
// host: a room run is a queued submission like any other, so it runs on the host (a direct pool call had
// no claim, and the remote pool refused it: the run came back IE). Its class goes before the APIs'
// asynchronous work, so a run does not wait behind a burst of them.
import * as Y from 'yjs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'
import { startRedis, type TestRedis } from '../testing/redis-server.ts'
import { apiHostToml, startWorker, stopAll, type WorkerProcess } from '../testing/sandbox-host-harness.ts'

let redis: TestRedis
let server: RunningServer
const workers: WorkerProcess[] = []

beforeAll(async () => {
  redis = await startRedis()
  server = await startServer({ configToml: apiHostToml(redis.url) })
  workers.push(await startWorker({ redisUrl: redis.url, id: 'room-host', slots: 1 }))
  await waitUntil(async () => (await json(await api(server.url).get('/health'))).queue.hosts.length === 1, 30_000, 'the host to advertise')
}, 180_000)

afterAll(() => stopAll({ workers, server, redis }), 120_000)

/** An ongoing interview and the candidate's room session (cookie + CSRF token). */
async function candidateSession() {
  const company = (await server.cli(['companies', 'create', '--name', 'Acme', '--credits', '5', '--json'])) as { id: number }
  const admin = (await server.cli(['users', 'create', '--company', String(company.id), '--email', 'boss@acme.test', '--super-admin', '--json'])) as Record<string, string>
  const created = await fetch(`${server.url}/partner/service/interviews/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: admin.client_id,
      client_secret: admin.client_secret,
      title: 'Remote run',
      start_datetime: new Date(Date.now() - 60_000).toISOString(),
      candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com' },
      interviewers: [{ full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test' }],
      inform_candidate: false,
      inform_interviewers: false,
    }),
  })
  expect(created.status).toBe(201)
  const { interview_id: id, candidate_interview_link: link } = await json(created)
  const opened = await fetch(link, { redirect: 'manual' })
  const cookie = /^(arbiter_room=[^;]+)/.exec(opened.headers.get('set-cookie') ?? '')![1]!
  const page = await (await fetch(`${server.url}/interviews/room/${id}`, { headers: { cookie } })).text()
  const csrf = JSON.parse(/<script type="application\/json" id="boot">(.*?)<\/script>/.exec(page)![1]!).csrf as string
  const post = (action: string, body: unknown) =>
    fetch(`${server.url}/interviews/room/${id}/${action}`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const doc = new Y.Doc()
  /** Replaces the shared code, as the editor's update would. */
  const setCode = async (code: string) => {
    const before = Y.encodeStateVector(doc)
    const text = doc.getText('code')
    doc.transact(() => {
      text.delete(0, text.length)
      text.insert(0, code)
    })
    const r = await post('doc', { update: Buffer.from(Y.encodeStateAsUpdate(doc, before)).toString('base64') })
    expect(r.status).toBe(200)
  }
  return { id: id as string, post, setCode }
}

test('a room run completes on the sandbox host, ahead of the API’s queued asynchronous work', { timeout: 180_000 }, async () => {
  const room = await candidateSession()
  await room.setCode('print(input()[::-1])\n')
  const r = await room.post('run', { code: '', language: 'PYTHON3', input: 'olleh' })
  expect(r.status).toBe(200)
  const out = await json(r)
  expect(out).toMatchObject({ status: 'AC', stdout: 'olleh'.split('').reverse().join('') + '\n', language: 'PYTHON3' })
  expect(server.query('select api, state, interview_id from submissions where api = ?', 'room')).toEqual([{ api: 'room', state: 'completed', interview_id: room.id }])

  // a burst of an API client's jobs (1 s each) on the host's one slot: the room's run goes next, not last
  const secret = await server.createClient('burst')
  const ids: string[] = []
  for (let i = 0; i < 6; i++) {
    const s = await api(server.url).post('/v4/partner/code-evaluation/submissions/', JSON.stringify({ lang: 'PYTHON3', source: 'import time\ntime.sleep(1)\nprint("slow")\n' }), {
      'client-secret': secret,
      'content-type': 'application/json',
    })
    expect(s.status).toBe(200)
    ids.push((await json(s)).he_id)
  }
  await room.setCode('print("room", input())\n')
  const second = await json(await room.post('run', { code: '', language: 'PYTHON3', input: '2' }))
  expect(second).toMatchObject({ status: 'AC', stdout: 'room 2\n' })
  const done = server.query<{ n: number }>("select count(*) as n from submissions where api = 'v4' and state = 'completed'")[0]!.n
  // at most the jobs already out on the host (its slot and the one waiting behind it) finished first
  expect(done).toBeLessThanOrEqual(3)
})
