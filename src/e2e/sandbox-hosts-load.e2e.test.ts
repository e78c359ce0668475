// 500 submissions of mixed languages through an API host without a jail (pool.size = 0) and two sandbox
// host processes, each with its own data directory; one host is SIGKILLed midway and Redis is restarted
// once (empty: this test Redis keeps nothing on disk). Every submission completes exactly once, with its
// own output, none lost, and one completion callback each.
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startReceiver, startServer, waitUntil, type Receiver, type RunningServer } from '../testing/harness.ts'
import { startRedis, type TestRedis } from '../testing/redis-server.ts'
import { apiHostToml, startWorker, stopAll, type WorkerProcess } from '../testing/sandbox-host-harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'
const N = 500

// each reads a number and prints it times three, so every output is the submission's own
const programs: { lang: string; source: string }[] = [
  { lang: 'PYTHON3', source: 'print(int(input()) * 3)' },
  { lang: 'C', source: '#include <stdio.h>\nint main(){long n;scanf("%ld",&n);printf("%ld\\n",n*3);return 0;}' },
  { lang: 'JAVASCRIPT_NODE', source: 'const n = Number(require("fs").readFileSync(0, "utf8")); console.log(n * 3)' },
  { lang: 'PERL', source: 'my $n = <STDIN>; print $n * 3, "\\n";' },
  { lang: 'CPP', source: '#include <iostream>\nint main(){long n;std::cin>>n;std::cout<<n*3<<"\\n";}' },
]

let redis: TestRedis
let server: RunningServer
let receiver: Receiver
const workers: WorkerProcess[] = []

beforeAll(async () => {
  redis = await startRedis()
  receiver = await startReceiver()
  server = await startServer({ configToml: apiHostToml(redis.url) })
  workers.push(await startWorker({ redisUrl: redis.url, id: 'load-a', slots: 2 }), await startWorker({ redisUrl: redis.url, id: 'load-b', slots: 2 }))
}, 180_000)

afterAll(() => stopAll({ workers, receiver, server, redis }), 120_000)

test(`${N} mixed submissions, a host SIGKILLed midway, Redis restarted once: each completes exactly once`, { timeout: 900_000 }, async () => {
  const secret = await server.createClient('load')
  const http = api(server.url)
  await waitUntil(async () => (await json(await http.get('/health'))).queue.hosts.length === 2, 30_000, 'both hosts')
  const count = (state: string) => server.query<{ n: number }>('select count(*) n from submissions where state = ?', state)[0]!.n
  const ids: string[] = new Array(N)
  let next = 0
  const submitter = async () => {
    for (let i = next++; i < N; i = next++) {
      const p = programs[i % programs.length]!
      const r = await http.post(PATH, JSON.stringify({ ...p, input: String(i), context: String(i), callback: `${receiver.url}/cb` }), { 'client-secret': secret, 'content-type': 'application/json' })
      expect(r.status).toBe(200)
      ids[i] = (await json(r)).he_id
    }
  }
  const submitting = Promise.all(Array.from({ length: 8 }, submitter))

  await waitUntil(() => count('completed') >= N * 0.25, 300_000, 'a quarter done')
  await workers[0]!.kill() // mid-job: it had slots busy
  await waitUntil(() => count('completed') >= N * 0.5, 300_000, 'half done')
  await redis.restart()
  await submitting
  await waitUntil(() => count('completed') === N, 600_000, 'every submission to complete')

  const rows = server.query<{ he_id: string; verdict: string; stdout: string; context_json: string }>('select he_id, verdict, stdout, context_json from submissions')
  expect(rows).toHaveLength(N)
  for (const r of rows) {
    const i = Number(JSON.parse(r.context_json))
    expect(r.verdict, `submission ${i}`).toBe('AC')
    expect(r.stdout.trim(), `submission ${i}`).toBe(String(i * 3))
  }
  await waitUntil(
    () => new Set(receiver.received.filter((x) => x.headers['x-arbiter-event'] === 'REQUEST_COMPLETED').map((x) => x.headers['x-arbiter-he-id'])).size === N,
    120_000,
    'a completion callback for each'
  )
  await new Promise((r) => setTimeout(r, 2000))
  const perId = new Map<string, number>()
  for (const x of receiver.received) if (x.headers['x-arbiter-event'] === 'REQUEST_COMPLETED') perId.set(String(x.headers['x-arbiter-he-id']), (perId.get(String(x.headers['x-arbiter-he-id'])) ?? 0) + 1)
  expect([...perId.values()].every((n) => n === 1)).toBe(true)
  expect(new Set(ids).size).toBe(N)
})
