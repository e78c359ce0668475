// Sandbox hosts sharing the queue through BullMQ on a real (private, loopback) Redis: an API host with
// pool.size = 0 and `cli worker` processes, real jail and toolchains. Each failure docs/admin/sandbox-hosts.md promises
// to survive is caused here: a host SIGKILLed mid-job, Redis stopped for 30 s under load, the API host
// SIGKILLed while jobs are out, and forged results for unknown or stale attempts.
import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { api, json, startReceiver, startServer, waitUntil, type Receiver, type RunningServer } from '../testing/harness.ts'
import { startRedis, type TestRedis } from '../testing/redis-server.ts'
import { apiHostToml, FAST_QUEUE_TOML, startWorker, stopAll, type WorkerProcess } from '../testing/sandbox-host-harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'

let redis: TestRedis
let server: RunningServer
let receiver: Receiver
let secret: string
const workers: WorkerProcess[] = []

const worker = async (id: string, opts: { slots?: number; langs?: string[] } = {}) => {
  const w = await startWorker({ redisUrl: redis.url, id, ...opts })
  workers.push(w)
  return w
}

beforeAll(async () => {
  redis = await startRedis()
  receiver = await startReceiver()
  server = await startServer({ configToml: apiHostToml(redis.url) })
  secret = await server.createClient('hosts')
}, 120_000)

afterAll(() => stopAll({ workers, receiver, server, redis }), 120_000)

const http = () => api(server.url)
const submit = async (lang: string, source: string, extra: Record<string, unknown> = {}) => {
  const r = await http().post(PATH, JSON.stringify({ lang, source, callback: `${receiver.url}/cb`, ...extra }), { 'client-secret': secret, 'content-type': 'application/json' })
  expect(r.status).toBe(200)
  return (await json(r)).he_id as string
}
const status = async (publicId: string) => json(await http().get(`${PATH}${publicId}/`, { 'client-secret': secret }))
const health = async () => json(await http().get('/health'))
const completedCallbacks = (publicId: string) =>
  receiver.received.filter((r) => r.headers['x-arbiter-he-id'] === publicId && r.headers['x-arbiter-event'] === 'REQUEST_COMPLETED')
const row = (publicId: string) => server.query<{ state: string; attempt: number; verdict: string | null }>('select state, attempt, verdict from submissions where he_id = ?', publicId)[0]!
const allCompleted = (ids: string[]) => ids.every((id) => row(id)?.state === 'completed')
const sleeper = (sec: number, word = 'done') => `import time\ntime.sleep(${sec})\nprint("${word}")\n`

describe('an API host without a jail and its sandbox hosts', () => {
  test('submissions run on a sandbox host and complete as a local run does: v4 with callbacks, graded, v3 sync', { timeout: 120_000 }, async () => {
    await worker('all-1', { slots: 2 })
    await waitUntil(async () => (await health()).queue.hosts.length === 1, 20_000, 'the host to advertise')
    const h = await health()
    expect(h.queue).toMatchObject({ backend: 'redis', redis: 'ok', slots: 2 })
    expect(JSON.stringify(h)).not.toContain(redis.password)
    // /metrics is closed by default: its token from the CLI
    const { token } = (await server.cli(['metrics', 'token'])) as { token: string }
    const metrics = await (await http().get('/metrics', { authorization: `Bearer ${token}` })).text()
    expect(metrics).toMatch(/^arbiter_redis_up 1$/m)
    expect(metrics).toMatch(/^arbiter_sandbox_hosts 1$/m)
    expect(metrics).toMatch(/^arbiter_sandbox_host_slots 2$/m)

    const py = await submit('PYTHON3', 'print(input()[::-1])', { input: 'olleh' })
    const c = await submit('C', '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}', { input: '2 3' })
    const graded = await submit('PYTHON3', 'print(int(input())*2)', { test_cases: [{ input: '2', expected_output: '4' }, { input: '5', expected_output: '11' }] })
    // 2 × 40 KB of input: over 64 KiB, so the tests travel by reference (stored once in Redis by hash)
    const large = await submit('PYTHON3', 'print(len(input()))', { test_cases: [{ input: 'a'.repeat(40_000), expected_output: '40000' }, { input: 'b'.repeat(40_001), expected_output: '40001' }] })
    await waitUntil(() => allCompleted([py, c, graded, large]), 60_000, 'the four to complete')
    expect((await status(large)).result.tests.map((t: { status: string }) => t.status)).toEqual(['AC', 'AC'])
    expect((await redisKeys('arbiter:blob:*')).length).toBe(4)
    const [rp, rc, rg] = await Promise.all([status(py), status(c), status(graded)])
    expect(rp.result.run_status.status).toBe('AC')
    expect(await (await fetch(rp.result.run_status.output)).text()).toBe('hello\n')
    expect(rc.result.run_status.status).toBe('AC')
    expect(await (await fetch(rc.result.run_status.output)).text()).toBe('5\n')
    expect(rg.result.tests.map((t: { status: string }) => t.status)).toEqual(['AC', 'WA'])
    expect(rg.result.score).toMatchObject({ passed: 1, total: 2 })
    // CODE_COMPILED then REQUEST_COMPLETED, once each
    await waitUntil(() => completedCallbacks(c).length === 1, 20_000, 'the completion callback')
    const events = receiver.received.filter((r) => r.headers['x-arbiter-he-id'] === c).map((r) => r.headers['x-arbiter-event'])
    expect(events).toEqual(['CODE_COMPILED', 'REQUEST_COMPLETED'])

    // v3, synchronous: the request waits for the sandbox host's result
    const form = new URLSearchParams({ client_secret: secret, lang: 'PYTHON3', source: 'print(6*7)', async: '0' })
    const v3 = await json(await http().post('/code/run/', form, { 'content-type': 'application/x-www-form-urlencoded' }))
    expect(v3.run_status).toMatchObject({ status: 'AC', output: '42\n' })
  })

  test('a result for an unknown or a stale attempt is ignored and logged', { timeout: 60_000 }, async () => {
    const id = await submit('PYTHON3', 'print("real")')
    await waitUntil(() => allCompleted([id]), 30_000, 'the submission')
    const { id: rowId, attempt } = server.query<{ id: number; attempt: number }>('select id, attempt from submissions where he_id = ?', id)[0]!
    const forged = {
      host: 'forger',
      kind: 'result',
      result: { compile: { ok: true, message: '' }, run: { status: 'ok', exitCode: 0, signal: null, cpuSec: 0, wallSec: 0, memoryKb: 1, stdout: 'forged\n', stderr: '' } },
    }
    const results = new Queue('results', { connection: { host: '127.0.0.1', port: redis.port, username: redis.user, password: redis.password }, prefix: 'arbiter' })
    try {
      await results.add('result', { ...forged, key: `s${rowId}-a${attempt}` })
      await results.add('result', { ...forged, key: `s${rowId}-a${attempt + 1}` })
      await results.add('result', { ...forged, key: 's999999-a1' })
      await results.add('result', { key: 'junk', nonsense: true })
      await waitUntil(() => (server.output().match(/result for an unknown or stale attempt ignored/g) ?? []).length >= 3, 20_000, 'three logged refusals')
      await waitUntil(() => server.output().includes('unreadable result from a sandbox host ignored'), 20_000, 'the junk refused')
    } finally {
      await results.close()
    }
    const r = await status(id)
    expect(await (await fetch(r.result.run_status.output)).text()).toBe('real\n')
    expect(completedCallbacks(id)).toHaveLength(1)
  })

  test('a job goes only to a host with its language, and waits visibly while none has it', { timeout: 120_000 }, async () => {
    await Promise.all(workers.splice(0).map(async (w) => (await w.stop(), w.cleanup())))
    await worker('py-only', { slots: 1, langs: ['PYTHON3'] })
    await waitUntil(async () => {
      const q = (await health()).queue
      return q.hosts.length === 1 && q.hosts[0].id === 'py-only'
    }, 20_000, 'only the python host')
    const c = await submit('C', 'int main(){return 0;}')
    const py = await submit('PYTHON3', 'print(1)')
    await waitUntil(() => allCompleted([py]), 30_000, 'python on its host')
    await new Promise((r) => setTimeout(r, 1500))
    expect(row(c).state).toBe('queued')
    expect((await status(c)).request_status.code).toBe('REQUEST_QUEUED')
    expect((await health()).queue.waiting_for_a_host).toMatchObject({ C: 1 })
    await worker('c-only', { slots: 1, langs: ['C'] })
    await waitUntil(() => allCompleted([c]), 60_000, 'C once a host has it')
    expect(row(c).verdict).toBe('AC')
  })

  test('a host SIGKILLed mid-job: the job runs again on another host and completes exactly once', { timeout: 120_000 }, async () => {
    await worker('py-two', { slots: 1, langs: ['PYTHON3'] })
    await waitUntil(async () => (await health()).queue.hosts.length === 3, 20_000, 'three hosts')
    const id = await submit('PYTHON3', sleeper(3, 'survived'))
    const { id: rowId, attempt } = server.query<{ id: number; attempt: number }>('select id, attempt from submissions where he_id = ?', id)[0]!
    // which python host holds it: BullMQ records the worker's name on the job
    const holder = async () => {
      for (const w of workers.filter((x) => x.id.startsWith('py-'))) if (await heldBy(w.id, `s${rowId}-a${attempt}`)) return w
      return undefined
    }
    let victim: WorkerProcess | undefined
    await waitUntil(async () => !!(victim = await holder()), 20_000, 'a host to take the job')
    await new Promise((r) => setTimeout(r, 800)) // inside the jail, sleeping
    await victim!.kill()
    await waitUntil(() => allCompleted([id]), 60_000, 'the job to complete elsewhere')
    const r = await status(id)
    expect(r.result.run_status.status).toBe('AC')
    expect(await (await fetch(r.result.run_status.output)).text()).toBe('survived\n')
    await new Promise((res) => setTimeout(res, 1500))
    expect(completedCallbacks(id)).toHaveLength(1)
    expect(row(id).attempt).toBe(attempt)
  })

  test('Redis stopped for 30 s under load: submissions are accepted, /health says so, and the backlog flows after', { timeout: 180_000 }, async () => {
    const before = await Promise.all([0, 1, 2].map((i) => submit('PYTHON3', sleeper(0.5, `b${i}`))))
    await redis.down()
    await waitUntil(async () => (await health()).queue.redis === 'unreachable', 10_000, '/health to say Redis is unreachable')
    const during: string[] = []
    const until = Date.now() + 30_000
    while (Date.now() < until) {
      during.push(await submit('PYTHON3', `print(${during.length})`))
      await new Promise((r) => setTimeout(r, 1000))
    }
    expect((await health()).queue.redis).toBe('unreachable')
    await redis.up()
    await waitUntil(() => allCompleted([...before, ...during]), 120_000, 'the backlog to complete')
    for (const [i, id] of during.entries()) {
      const r = await status(id)
      expect(r.result.run_status.status).toBe('AC')
      expect(await (await fetch(r.result.run_status.output)).text()).toBe(`${i}\n`)
    }
    await waitUntil(() => [...before, ...during].every((id) => completedCallbacks(id).length === 1), 30_000, 'one callback each')
    expect((await health()).queue.redis).toBe('ok')
  })

  test('the API host SIGKILLed while jobs are out: after restart their results are applied once', { timeout: 180_000 }, async () => {
    await waitUntil(async () => (await health()).queue.hosts.length >= 2, 30_000, 'hosts back after the Redis restart')
    const ids = await Promise.all([0, 1, 2, 3].map((i) => submit('PYTHON3', sleeper(2.5, `k${i}`))))
    await waitUntil(() => ids.filter((id) => row(id).state !== 'queued').length >= 2, 20_000, 'jobs out on hosts')
    const out = ids.filter((id) => row(id).state !== 'queued')
    await server.kill()
    await new Promise((r) => setTimeout(r, 4000)) // the hosts finish; their results wait in Redis
    await server.restart()
    await waitUntil(() => allCompleted(ids), 90_000, 'all four to complete')
    for (const [i, id] of ids.entries()) expect(await (await fetch((await status(id)).result.run_status.output)).text()).toBe(`k${i}\n`)
    // the jobs that were out completed under their first claim: resumed, not run again
    for (const id of out) expect(row(id).attempt).toBe(1)
    await waitUntil(() => ids.every((id) => completedCallbacks(id).length === 1), 30_000, 'one callback each')
    await new Promise((r) => setTimeout(r, 1500))
    for (const id of ids) expect(completedCallbacks(id)).toHaveLength(1)
  })
})

describe('an API host with its own pool besides sandbox hosts', () => {
  test('jobs run here while a local slot is free and on a host otherwise; all complete once', { timeout: 120_000 }, async () => {
    await waitUntil(async () => (await health()).queue.hosts.length >= 1, 30_000, 'a host')
    const both = await startServer({ configToml: `[pool]\nsize = 1\n${FAST_QUEUE_TOML}redis_url = "${redis.url}"\nprefix = "both"\n` })
    const w = await startWorker({ redisUrl: redis.url, id: 'both-host', slots: 2, configToml: 'prefix = "both"\n' }).catch(async (e) => {
      await both.stop()
      throw e
    })
    try {
      const s = await both.createClient('both')
      await waitUntil(async () => (await json(await api(both.url).get('/health'))).queue.hosts.length === 1, 30_000, 'the host')
      const ids: string[] = []
      for (let i = 0; i < 6; i++) {
        const r = await api(both.url).post(PATH, JSON.stringify({ lang: 'PYTHON3', source: sleeper(1.5, `j${i}`) }), { 'client-secret': s, 'content-type': 'application/json' })
        ids.push((await json(r)).he_id)
      }
      const done = () => both.query<{ n: number }>("select count(*) n from submissions where state = 'completed' and verdict = 'AC'")[0]!.n
      await waitUntil(() => done() === 6, 90_000, 'all six')
      const remote = (await redisKeys('both:jobs-*:s*')).filter((k) => /:s\d+-a\d+$/.test(k)).length
      expect(remote).toBeGreaterThan(0)
      expect(remote).toBeLessThan(6)
      expect(both.query<{ n: number }>('select count(*) n from submissions where attempt = 1')[0]!.n).toBe(6)
    } finally {
      await w.stop()
      w.cleanup()
      await both.stop()
      both.cleanup()
    }
  })
})

describe('the service command of a sandbox host', () => {
  test('scripts/arbiter-exec.sh worker takes the URL from ARBITER_REDIS_URL, advertises, and stops cleanly on SIGTERM', { timeout: 90_000 }, async () => {
    const { spawn } = await import('node:child_process')
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { hostname } = await import('node:os')
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-svc-worker-'))
    writeFileSync(join(dataDir, 'config.toml'), `${FAST_QUEUE_TOML}[pool]\nsize = 1\n`)
    const child = spawn('bash', ['scripts/arbiter-exec.sh', 'worker'], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, ARBITER_DATA: dataDir, ARBITER_REDIS_URL: redis.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    try {
      // exec all the way: node has the shell's pid, and the host's default name is hostname-pid
      const id = `${hostname()}-${child.pid}`.replace(/[^A-Za-z0-9_.-]/g, '-')
      const listed = async () => (await health()).queue.hosts.some((h: { id: string }) => h.id === id)
      await waitUntil(listed, 60_000, 'the service host to advertise')
      expect(out).not.toContain(redis.password)
      child.kill('SIGTERM')
      expect(await exit).toBe(0)
      // a clean stop takes its advert away at once
      await waitUntil(async () => !(await listed()), 10_000, 'the advert gone')
    } finally {
      child.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

async function redisKeys(pattern: string): Promise<string[]> {
  const { Redis } = await import('ioredis')
  const r = new Redis({ host: '127.0.0.1', port: redis.port, username: redis.user, password: redis.password, lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await r.connect()
    return await r.keys(pattern)
  } finally {
    r.disconnect()
  }
}

/** Whether the BullMQ job `key` is active on the worker named `name` (its processedBy). */
async function heldBy(name: string, key: string): Promise<boolean> {
  const { Redis } = await import('ioredis')
  const r = new Redis({ host: '127.0.0.1', port: redis.port, username: redis.user, password: redis.password, lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await r.connect()
    const keys = await r.keys(`arbiter:jobs-*:${key}`)
    for (const k of keys) {
      const h = await r.hgetall(k)
      if (h.pb === name && !h.finishedOn) return true
    }
    return false
  } finally {
    r.disconnect()
  }
}
