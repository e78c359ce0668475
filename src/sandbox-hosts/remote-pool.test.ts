// The API host's pool against a real Redis and a stand-in sandbox host (a BullMQ worker in this test that
// answers as the test says): routing by advert, results and their order, lost and failed jobs, a host
// that could not find its test data, and Redis going away.
import { Queue, Worker, type ConnectionOptions } from 'bullmq'
import { afterEach, describe, expect, test } from 'vitest'
import { parseConfig } from '../config.ts'
import { useTestRedis } from '../testing/test-redis.ts'
import type { CompileOutcome, Job, JobResult } from '../jobs/types.ts'
import { createLog } from '../log.ts'
import { queueForLanguages, startAdverts } from './adverts.ts'
import { BY_REFERENCE_BYTES } from './blobs.ts'
import { redisOptions } from './connection.ts'
import { createRemotePool, type RemotePool } from './remote-pool.ts'
import { MISSING_TEST_DATA, RESULTS_QUEUE, type JobMessage, type ResultMessage } from './wire.ts'

const t = useTestRedis()
const logged: string[] = []
const log = createLog({}, 'debug', (line) => void logged.push(line))
const closers: (() => Promise<unknown>)[] = []

afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

const config = () =>
  parseConfig({ pool: { size: 0 }, queue: { redis_url: t.redis.url, reconcile_ms: 300, advert_ttl_ms: 1500, lock_ms: 1000, stalled_check_ms: 500 } }, {}, '/nonexistent')

const ok = (stdout: string): JobResult => ({
  compile: { ok: true, message: '' },
  run: { status: 'ok', exitCode: 0, signal: null, cpuSec: 0.01, wallSec: 0.01, memoryKb: 1000, stdout, stderr: '' },
})
const job = (language = 'C', extra: Partial<Job> = {}): Job => ({ language, source: 'src', input: 'in', timeLimitSec: 1, memoryLimitKb: 65536, ...extra })

/** A stand-in host for `languages`: answer(message) returns what it sends back, in order. */
/** holdMs: how long the job stays active after its answer is sent (a host slow to mark it done). */
function fakeHost(languages: string[], answer: (m: JobMessage, n: number) => Promise<Omit<ResultMessage, 'key' | 'host'>[]> | Omit<ResultMessage, 'key' | 'host'>[], lockDuration = 30_000, slots = 2, holdMs = 0) {
  const queue = queueForLanguages(languages)
  const results = new Queue(RESULTS_QUEUE, { connection: redisOptions(t.redis.url) as ConnectionOptions, prefix: 'arbiter' })
  const seen: JobMessage[] = []
  const worker = new Worker(
    queue,
    async (j) => {
      const m = j.data as JobMessage
      seen.push(m)
      for (const r of await answer(m, seen.length)) await results.add(r.kind, { ...r, key: m.key, host: 'fake' })
      if (holdMs) await new Promise((r) => setTimeout(r, holdMs))
    },
    { connection: redisOptions(t.redis.url) as ConnectionOptions, prefix: 'arbiter', concurrency: 4, lockDuration }
  )
  // the lost job's own completion finds no key (Redis was emptied under it): expected, not a test failure
  worker.on('error', () => {})
  const advert = startAdverts(t.client, 'arbiter', { id: `fake-${languages.join('-')}`, languages, slots, queue }, 1500, () => {})
  const close = async () => {
    await advert.stop()
    await worker.close()
    await results.close()
  }
  closers.push(close)
  /** Dies holding its jobs: no more lock renewals, nothing finished, the advert left to expire. */
  const die = async () => {
    await advert.stop()
    await t.client.set(`arbiter:hosts:fake-${languages.join('-')}`, JSON.stringify({ id: `fake-${languages.join('-')}`, languages, slots: 2, queue }), 'PX', 700)
    await worker.close(true)
  }
  return { seen, close, die, queue }
}

function pool(): RemotePool {
  const p = createRemotePool(config(), log)
  p.start()
  closers.push(() => p.close())
  return p
}

const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('the remote pool', () => {
  test('a job goes to a host with its language; the compile stage is shown once and first, even when its message comes last', async () => {
    await t.client.flushall()
    const p = pool()
    const host = fakeHost(['C'], () => [
      { kind: 'result', result: ok('out') },
      { kind: 'compiled', outcome: { ok: true, message: '' } },
    ])
    await until(() => p.available()?.has('C') === true)
    expect(p.available()?.has('PYTHON3')).toBe(false)
    const stages: string[] = []
    const result = await p.run(job(), { jobKey: 's1-a1', onCompiled: (o: CompileOutcome) => void stages.push(`compiled ${o.ok}`) })
    stages.push('result')
    expect(result.run?.stdout).toBe('out')
    expect(stages).toEqual(['compiled true', 'result'])
    expect(host.seen.map((m) => m.key)).toEqual(['s1-a1'])
    // the late compile message is for a claim no longer waiting: ignored, and said so
    await until(() => logged.some((l) => l.includes('unknown or stale attempt') && l.includes('s1-a1')))
    expect(p.status()).toMatchObject({ redis: 'ok', slots: 2, languages: ['C'], out: 0 })
  })

  test('the same claim twice is one job: a resumed claim attaches to the job already out', async () => {
    await t.client.flushall()
    const p = pool()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const host = fakeHost(['C'], async () => (await gate, [{ kind: 'result', result: ok('once') }]))
    await until(() => p.available()?.has('C') === true)
    const first = p.run(job(), { jobKey: 's2-a1' })
    await until(() => host.seen.length === 1)
    // a second API host process after a restart would send the same claim again
    const other = pool()
    await until(() => other.available()?.has('C') === true)
    const second = other.run(job(), { jobKey: 's2-a1' })
    await new Promise((r) => setTimeout(r, 300))
    release()
    const settled = await Promise.race([first, second])
    expect(settled.run?.stdout).toBe('once')
    expect(host.seen).toHaveLength(1)
  })

  test('a resumed claim already waiting in one of several sets with its language is attached to there, not sent to another', async () => {
    await t.client.flushall()
    const p = pool()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const roomy = fakeHost(['C'], () => [{ kind: 'result', result: ok('second run') }], 30_000, 8)
    const holder = fakeHost(['C', 'PYTHON3'], async () => (await gate, [{ kind: 'result', result: ok('first run') }]))
    await until(() => p.size === 12)
    // out before the API host's restart: already in the holder's queue, being run
    const q = new Queue(holder.queue, { connection: redisOptions(t.redis.url) as ConnectionOptions, prefix: 'arbiter' })
    await q.add('run', { key: 's9-a1', job: job() }, { jobId: 's9-a1' })
    await q.close()
    await until(() => holder.seen.length === 1)
    const resumed = p.run(job(), { jobKey: 's9-a1' })
    await new Promise((r) => setTimeout(r, 300))
    release()
    expect((await resumed).run?.stdout).toBe('first run')
    expect(roomy.seen).toHaveLength(0)
  })

  test('large test sets go by reference; a host that cannot find them gets the job again, not a failure', async () => {
    await t.client.flushall()
    const p = pool()
    const big = 'y'.repeat(BY_REFERENCE_BYTES)
    fakeHost(['PYTHON3'], async (m, n) => {
      expect(m.testRefs).toHaveLength(1)
      expect(m.job.tests![0]!.input).toBe('')
      if (n === 1) {
        await t.client.del(`arbiter:blob:${m.testRefs![0]!.input}`)
        return [{ kind: 'error', message: `${MISSING_TEST_DATA}gone` }]
      }
      expect(await t.client.exists(`arbiter:blob:${m.testRefs![0]!.input}`)).toBe(1)
      return [{ kind: 'result', result: { compile: { ok: true, message: '' }, tests: [] } }]
      // the job stays active a while after each answer: the job is sent again only once it is done there
      // (sent while it was still active, its id was taken and the job never came back)
    }, 30_000, 2, 500)
    await until(() => p.available()?.has('PYTHON3') === true)
    const r = await p.run(job('PYTHON3', { tests: [{ input: big, expectedOutput: '1' }] }), { jobKey: 's3-a1' })
    expect(r.tests).toEqual([])
    expect(logged.some((l) => l.includes('test data was not in redis'))).toBe(true)
  })

  test('a job Redis lost is sent again; one that failed there is our fault (rejected, so the dispatcher retries)', async () => {
    await t.client.flushall()
    const p = pool()
    const host = fakeHost(['C'], async (m) => {
      if (m.key === 's4-a1' && host.seen.filter((x) => x.key === 's4-a1').length === 1) {
        // lose it: Redis forgets the job and no result comes
        await t.client.flushall()
        return []
      }
      if (m.key === 's5-a1') throw new Error('host broke')
      return [{ kind: 'result', result: ok('again') }]
    })
    await until(() => p.available()?.has('C') === true)
    const lost = await p.run(job(), { jobKey: 's4-a1' })
    expect(lost.run?.stdout).toBe('again')
    expect(host.seen.filter((x) => x.key === 's4-a1')).toHaveLength(2)
    await expect(p.run(job(), { jobKey: 's5-a1' })).rejects.toThrow(/host broke/)
  })

  test('a job waiting in the queue of a language set whose hosts all left is taken back and routed to another set', async () => {
    await t.client.flushall()
    const p = pool()
    const gone = fakeHost(['C'], () => [{ kind: 'result', result: ok('never') }])
    await until(() => p.available()?.has('C') === true)
    await gone.close()
    // its advert outlives it a little (a host killed does not remove it): the job is routed to its queue
    await t.client.set('arbiter:hosts:fake-C', JSON.stringify({ id: 'fake-C', languages: ['C'], slots: 2, queue: gone.queue }), 'PX', 700)
    await new Promise((r) => setTimeout(r, 600))
    const running = p.run(job(), { jobKey: 's6-a1' })
    const other = fakeHost(['C', 'PYTHON3'], () => [{ kind: 'result', result: ok('rerouted') }])
    expect((await running).run?.stdout).toBe('rerouted')
    expect(gone.seen).toHaveLength(0)
    expect(other.seen.map((m) => m.key)).toEqual(['s6-a1'])
    expect(logged.some((l) => l.includes('routed again') && l.includes('s6-a1'))).toBe(true)
  })

  test('a job a dead host had started, in a set no live host serves, is taken back once its lock lapses and routed again', async () => {
    await t.client.flushall()
    const p = pool()
    const dead = fakeHost(['C'], () => new Promise(() => {}), 1000)
    await until(() => p.available()?.has('C') === true)
    const running = p.run(job(), { jobKey: 's8-a1' })
    await until(() => dead.seen.length === 1)
    await dead.die()
    const other = fakeHost(['C', 'RUBY'], () => [{ kind: 'result', result: ok('taken back') }])
    expect((await running).run?.stdout).toBe('taken back')
    expect(other.seen.map((m) => m.key)).toEqual(['s8-a1'])
  })

  test("a result over the API host's own caps is refused as unreadable", async () => {
    await t.client.flushall()
    const p = pool()
    // a stream is read back up to the larger of the output cap and what a Jobe reply keeps
    const cap = Math.max(config().limits.output_cap_bytes, config().jobe.stream_max_bytes)
    fakeHost(['C'], () => [{ kind: 'result', result: ok('z'.repeat(2 * cap + 5000)) }, { kind: 'result', result: ok('small') }])
    await until(() => p.available()?.has('C') === true)
    const r = await p.run(job(), { jobKey: 's7-a1' })
    expect(r.run?.stdout).toBe('small')
    expect(logged.some((l) => l.includes('unreadable result from a sandbox host ignored'))).toBe(true)
  })

  test('without a live host nothing is available; without Redis neither, and /health says so', async () => {
    await t.client.flushall()
    const p = pool()
    await until(() => p.status().redis === 'ok')
    expect(p.available()?.size).toBe(0)
    expect(p.size).toBe(0)
    const host = fakeHost(['C'], () => [{ kind: 'result', result: ok('x') }])
    await until(() => p.size === 3) // 2 slots and one waiting in the queue
    await host.close()
    await t.client.del('arbiter:hosts:fake-C')
    await until(() => p.size === 0)
    await t.redis.down()
    try {
      await until(() => p.status().redis === 'unreachable')
      expect(p.available()?.size).toBe(0)
    } finally {
      await t.redis.up()
    }
    await until(() => p.status().redis === 'ok', 15_000)
  })
})
