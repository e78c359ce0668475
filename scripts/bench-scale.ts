// Benchmark of sandbox hosts through Redis, one run, real servers, jail and Redis on loopback:
//   1. Dispatch cost per job: the same sequential v3 synchronous runs (a C program from the compile
//      cache) against a server with its own pool and against an API host (pool.size = 0) with one
//      sandbox host; the difference of the medians is what going through Redis costs a job.
//   2. Throughput with 1, 2 and 4 sandbox host processes × 2 slots on jobs that wait on the wall clock
//      (a C program that sleeps 200 ms, so this 2-core machine's CPU does not cap the figure), and the
//      scaling from 1 to 4 (target: at least 0.9× linear).
//   3. Test data by reference versus inline: the time to hand a graded job with 100 tests × 1 MB to
//      Redis, the first time and for a second submission of the same problem.
// Usage: npx tsx scripts/bench-scale.ts [--seq 60] [--per-slot 30] [--json]
import { Redis } from 'ioredis'
import { Queue, type ConnectionOptions } from 'bullmq'
import { parseArgs } from 'node:util'
import { api, startServer, waitUntil, type RunningServer } from '../src/testing/harness.ts'
import { startRedis } from '../src/testing/redis-server.ts'
import { FAST_QUEUE_TOML, startWorker, type WorkerProcess } from '../src/testing/sandbox-host-harness.ts'
import { byReference } from '../src/sandbox-hosts/blobs.ts'
import { redisOptions } from '../src/sandbox-hosts/connection.ts'
import type { Job } from '../src/jobs/types.ts'

const { values } = parseArgs({ options: { seq: { type: 'string', default: '60' }, 'per-slot': { type: 'string', default: '30' }, json: { type: 'boolean', default: false } } })
const SEQ = Number(values.seq)
const PER_SLOT = Number(values['per-slot'])
const PATH = '/v4/partner/code-evaluation/submissions/'
const HELLO = '#include <stdio.h>\nint main(void){ puts("hello"); return 0; }\n'
const SLEEPER = '#include <unistd.h>\n#include <stdio.h>\nint main(void){ usleep(200000); puts("slept"); return 0; }\n'

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}
const ms = (n: number) => Math.round(n * 10) / 10

async function syncRun(server: RunningServer, secret: string): Promise<number> {
  const t = performance.now()
  const r = await api(server.url).post('/code/run/', new URLSearchParams({ client_secret: secret, lang: 'C', source: HELLO, async: '0' }), { 'content-type': 'application/x-www-form-urlencoded' })
  const body = (await r.json()) as { run_status?: { status?: string } }
  if (body.run_status?.status !== 'AC') throw new Error(`unexpected reply ${JSON.stringify(body)}`)
  return performance.now() - t
}

async function main() {
  const redis = await startRedis()
  const servers: RunningServer[] = []
  const workers: WorkerProcess[] = []
  const out: Record<string, unknown> = {}
  try {
    // ── 1. dispatch cost ──
    const local = await startServer({ configToml: '[pool]\nsize = 2\n' })
    const remote = await startServer({ configToml: `[pool]\nsize = 0\n${FAST_QUEUE_TOML}redis_url = "${redis.url}"\n` })
    servers.push(local, remote)
    workers.push(await startWorker({ redisUrl: redis.url, id: 'bench-1', slots: 2 }))
    const [ls, rs] = [await local.createClient('bench'), await remote.createClient('bench')]
    await waitUntil(async () => ((await (await fetch(`${remote.url}/health`)).json()) as { queue: { hosts: unknown[] } }).queue.hosts.length === 1, 30_000, 'the host')
    // warm both (and the compile cache)
    for (let i = 0; i < 5; i++) await syncRun(local, ls), await syncRun(remote, rs)
    const lt: number[] = []
    const rt: number[] = []
    for (let i = 0; i < SEQ; i++) {
      lt.push(await syncRun(local, ls))
      rt.push(await syncRun(remote, rs))
    }
    out.dispatch = { runs: SEQ, local_p50_ms: ms(median(lt)), redis_p50_ms: ms(median(rt)), cost_per_job_ms: ms(median(rt) - median(lt)) }
    await local.stop()
    await workers.pop()!.stop()
    console.error(`dispatch: local p50 ${ms(median(lt))} ms, through redis p50 ${ms(median(rt))} ms: ${ms(median(rt) - median(lt))} ms per job`)

    // ── 2. throughput with 1, 2, 4 hosts × 2 slots ──
    const secret = rs
    const http = api(remote.url)
    const rows: { hosts: number; jobs: number; seconds: number; per_second: number }[] = []
    for (const hosts of [1, 2, 4]) {
      for (let i = 0; i < hosts; i++) workers.push(await startWorker({ redisUrl: redis.url, id: `bench-${hosts}-${i}`, slots: 2 }))
      await waitUntil(async () => ((await (await fetch(`${remote.url}/health`)).json()) as { queue: { hosts: unknown[] } }).queue.hosts.length === hosts, 30_000, `${hosts} hosts`)
      const n = PER_SLOT * 2 * hosts
      const before = remote.query<{ m: number }>('select coalesce(max(id), 0) m from submissions')[0]!.m
      let next = 0
      const t0 = performance.now()
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let i = next++; i < n; i = next++) {
            const r = await http.post(PATH, JSON.stringify({ lang: 'C', source: SLEEPER }), { 'client-secret': secret, 'content-type': 'application/json' })
            if (r.status !== 200) throw new Error(`submit: ${r.status}`)
          }
        })
      )
      const done = () => remote.query<{ n: number }>("select count(*) n from submissions where id > ? and state = 'completed'", before)[0]!.n
      await waitUntil(() => done() === n, 600_000, 'the batch')
      const seconds = (performance.now() - t0) / 1000
      const bad = remote.query<{ n: number }>("select count(*) n from submissions where id > ? and verdict != 'AC'", before)[0]!.n
      if (bad) throw new Error(`${bad} jobs not AC`)
      rows.push({ hosts, jobs: n, seconds: ms(seconds), per_second: ms(n / seconds) })
      console.error(`${hosts} host(s) × 2 slots: ${n} jobs in ${ms(seconds)} s = ${ms(n / seconds)} jobs/s (ideal ${ms((2 * hosts) / 0.2)})`)
      await Promise.all(workers.splice(0).map(async (w) => (await w.stop(), w.cleanup())))
      await waitUntil(async () => ((await (await fetch(`${remote.url}/health`)).json()) as { queue: { hosts: unknown[] } }).queue.hosts.length === 0, 30_000, 'hosts gone')
    }
    const one = rows[0]!.per_second
    const four = rows[2]!.per_second
    out.throughput = rows
    out.scaling_1_to_4 = Math.round((four / (4 * one)) * 100) / 100
    console.error(`scaling from 1 to 4 hosts: ${out.scaling_1_to_4}× linear (target ≥ 0.9×)`)

    // ── 3. test data inline or by reference ──
    const client = new Redis(redisOptions(redis.url))
    const q = new Queue('bench-payload', { connection: redisOptions(redis.url) as ConnectionOptions, prefix: 'arbiter' })
    const mb = (i: number) => `${i} `.repeat(Math.ceil((1 << 20) / `${i} `.length)).slice(0, 1 << 20)
    const job: Job = { language: 'C', source: HELLO, input: '', timeLimitSec: 1, memoryLimitKb: 65536, tests: Array.from({ length: 100 }, (_, i) => ({ input: mb(i), expectedOutput: '1\n' })) }
    const time = async (fn: () => Promise<unknown>) => {
      const t = performance.now()
      await fn()
      return ms(performance.now() - t)
    }
    const inline1 = await time(() => q.add('j', { key: 's1-a1', job }, { jobId: 'inline-1' }))
    const inline2 = await time(() => q.add('j', { key: 's2-a1', job }, { jobId: 'inline-2' }))
    const ref1 = await time(async () => q.add('j', { key: 's3-a1', ...(await byReference(client, 'arbiter', job)) }, { jobId: 'ref-1' }))
    const ref2 = await time(async () => q.add('j', { key: 's4-a1', ...(await byReference(client, 'arbiter', job)) }, { jobId: 'ref-2' }))
    const used = Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]) / (1 << 20)
    out.payload_100x1MB_ms = { inline_first: inline1, inline_again: inline2, by_reference_first: ref1, by_reference_again: ref2, redis_used_mb: Math.round(used) }
    console.error(`100 tests × 1 MB to redis: inline ${inline1} ms then ${inline2} ms again; by reference ${ref1} ms then ${ref2} ms for the same problem`)
    await q.close()
    client.disconnect()
  } finally {
    await Promise.allSettled(workers.map((w) => w.stop()))
    workers.forEach((w) => w.cleanup())
    for (const s of servers) {
      await s.stop()
      s.cleanup()
    }
    await redis.stop()
  }
  if (values.json) console.log(JSON.stringify(out, null, 2))
  else console.log(JSON.stringify(out))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
