// The figures and limits a program must not dodge, and the host effects it must not have, hold the same
// through the two privilege boundaries a job crosses in production: the root jail daemon's socket (the
// service's split: the HTTP server has no capabilities) and a sandbox host fed over Redis. The programs
// are those of src/sandbox/dodges.test.ts, which runs them in the worker directly; each passed (AC, a
// small figure, a shared host uid) on the jail before these guarantees.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseConfig } from '../config.ts'
import { verdictOf } from '../grading/verdict.ts'
import { startJailDaemon } from '../jobs/jail-daemon.ts'
import { createJailPool } from '../jobs/jail-pool.ts'
import { createPool } from '../jobs/pool.ts'
import type { Pool } from '../jobs/pool-types.ts'
import type { Job } from '../jobs/types.ts'
import { silentLog } from '../log.ts'
import { DEFAULT_JAIL_UIDS } from '../sandbox/run.ts'
import { childOomProgram, constImageProgram, cpuEdgeProgram, hostEffectsExpected, hostEffectsProgram, hostUidProgram } from '../testing/dodge-programs.ts'
import { api, json, startServer, type RunningServer } from '../testing/harness.ts'
import { startRedis, type TestRedis } from '../testing/redis-server.ts'
import { apiHostToml, startWorker, stopAll, type WorkerProcess } from '../testing/sandbox-host-harness.ts'

interface Outcome {
  /** HackerEarth's names: AC, MLE, TLE, RE, … */
  status: string
  stdout: string
  timeSec: number
}
type RunC = (source: string, limits?: { timeLimitSec?: number; memoryLimitKb?: number }) => Promise<Outcome>

// a roomy wall clock, so that on a loaded machine the CPU-limit case ends by its CPU time, not the wall cap
const LIMITS_TOML = '[limits]\nwall_extra_sec = 20\n'

/** The same cases, whichever way a job travels. */
function dodgeCases(path: () => RunC) {
  test('52 MB of constant data in the program image under a 16 MB limit: MLE', { timeout: 120_000 }, async () => {
    const r = await path()(constImageProgram(52), { memoryLimitKb: 16384 })
    expect(r.status, JSON.stringify(r)).toBe('MLE')
  })

  test('a child killed for memory while its parent prints the answer: MLE', { timeout: 120_000 }, async () => {
    const r = await path()(childOomProgram, { memoryLimitKb: 65536 })
    expect(r.status, JSON.stringify(r)).toBe('MLE')
    expect(r.stdout).toBe('42\n')
  })

  test('runs ending around the CPU limit: TLE exactly when the CPU time reported is past it', { timeout: 180_000 }, async () => {
    const runs: string[] = []
    for (let i = 0; i < 8; i++) {
      const r = await path()(cpuEdgeProgram, { timeLimitSec: 0.5 })
      runs.push(`${r.status} ${r.timeSec > 0.5 ? 'past' : 'within'} ${r.timeSec}`)
    }
    for (const r of runs) expect(r, runs.join('\n')).toMatch(/^(TLE past|AC within) /)
  })

  test('sync() and fadvise(DONTNEED) are refused, syncfs, fsync and other advice kept', { timeout: 120_000 }, async () => {
    const r = await path()(hostEffectsProgram)
    expect(r.status, JSON.stringify(r)).toBe('AC')
    expect(r.stdout).toBe(hostEffectsExpected)
  })

  test('two jobs at once run as two host uids of the per-slot range (per-user kernel quotas are not shared)', { timeout: 120_000 }, async () => {
    const both = await Promise.all([path()(hostUidProgram(1500)), path()(hostUidProgram(1500))])
    const uids = both.map((r) => {
      expect(r.status, JSON.stringify(r)).toBe('AC')
      const [inside, outside, count] = r.stdout.trim().split(' ').map(Number)
      expect([inside, count], r.stdout).toEqual([65534, 1])
      expect(outside).toBeGreaterThanOrEqual(DEFAULT_JAIL_UIDS.base)
      expect(outside).toBeLessThan(DEFAULT_JAIL_UIDS.base + DEFAULT_JAIL_UIDS.count)
      return outside
    })
    expect(uids[0], uids.join()).not.toBe(uids[1])
  })
}

const base = mkdtempSync(join(tmpdir(), 'arbiter-dodges-e2e-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe("through the jail daemon's socket", () => {
  let daemon: { close(): Promise<void> }
  let pool: Pool
  beforeAll(async () => {
    const config = parseConfig({ pool: { size: 2, jail_socket: join(base, 'run', 'jail.sock'), jail_group: '0' }, limits: { wall_extra_sec: 20 } }, {}, join(base, 'daemon-data'))
    daemon = await startJailDaemon(config, createPool(config), silentLog())
    pool = createJailPool(config)
  }, 120_000)
  afterAll(() => daemon?.close())

  dodgeCases(() => async (source, limits = {}) => {
    const job: Job = { language: 'C', source, input: '', timeLimitSec: 2, memoryLimitKb: 262144, ...limits }
    const v = verdictOf(await pool.run(job), job)
    return { status: v.verdict ?? 'none', stdout: v.stdout, timeSec: v.timeUsedSec }
  })
})

describe('through a sandbox host', () => {
  let redis: TestRedis
  let server: RunningServer
  let secret: string
  const workers: WorkerProcess[] = []
  beforeAll(async () => {
    redis = await startRedis()
    workers.push(await startWorker({ redisUrl: redis.url, id: 'dodges-host', slots: 2, configToml: LIMITS_TOML }))
    server = await startServer({ configToml: apiHostToml(redis.url) })
    secret = await server.createClient('dodges-hosts')
  }, 180_000)
  afterAll(() => stopAll({ workers, server, redis }))

  dodgeCases(() => async (source, limits = {}) => {
    // v3, synchronous: the reply carries the output itself
    const form = new URLSearchParams({ client_secret: secret, lang: 'C', source, async: '0' })
    if (limits.timeLimitSec) form.set('time_limit', String(limits.timeLimitSec))
    if (limits.memoryLimitKb) form.set('memory_limit', String(limits.memoryLimitKb))
    const reply = await json(await api(server.url).post('/code/run/', form, { 'content-type': 'application/x-www-form-urlencoded' }))
    const run = reply.run_status
    if (!run) throw new Error(JSON.stringify(reply))
    return { status: run.status, stdout: run.output ?? '', timeSec: Number(run.time_used) }
  })
})
