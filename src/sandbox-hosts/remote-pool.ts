// The API host's side of the shared queue: a Pool whose jobs run on sandbox hosts. run() adds a BullMQ
// job (id = the claim's key, so one claim is never out twice) to the queue of a host set that has the
// language and resolves when the host's result arrives on the results queue. SQLite stays the queue of
// record: the dispatcher claims a row only while a host has a free slot for its language (available()),
// so Redis holds a few jobs per slot, not the backlog. What Redis may lose (a restart without
// persistence, a failed job) is found by a periodic check and sent again, or retried as our fault.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { Queue, Worker, type ConnectionOptions } from 'bullmq'
import { Redis } from 'ioredis'
import { jobCeilings, type Config } from '../config.ts'
import type { Pool, RunHooks } from '../jobs/pool-types.ts'
import type { Job, JobResult } from '../jobs/types.ts'
import type { Log } from '../log.ts'
import { readAdverts, type Advert } from './adverts.ts'
import { producerOptions, redact, redisOptions } from './connection.ts'
import { byReference } from './blobs.ts'
// a host has no access to this disk: a job's stored files travel as bytes
import { inlineFilesAt } from '../jobs/job-files.ts'
import type { RemoteStatus } from './status-types.ts'
import { MISSING_TEST_DATA, RESULTS_QUEUE, resultMessageSchema, type JobMessage, type ResultMessage } from './wire.ts'

interface Pending {
  key: string
  job: Job
  hooks: RunHooks
  /** The jobs queue it was sent to; undefined while no live host has its language. */
  queue?: string
  /** Added to Redis (as far as we know). */
  sent: boolean
  sentAt: number
  compiled: boolean
  /** Times sent again because the host could not find its test data. */
  resent: number
  resolve(result: JobResult): void
  reject(err: Error): void
}

interface HostSet {
  queue: string
  languages: Set<string>
  slots: number
  hosts: string[]
}

export type { RemoteStatus }

export interface RemotePool extends Pool {
  available(): ReadonlySet<string> | undefined
  onCapacity(fn: () => void): void
  /** Starts reading adverts and results. Call after the dispatcher has resumed what was out. */
  start(): void
  status(): RemoteStatus
}

/** A finished job stays this long in its queue, so a claim sent again meanwhile (a resume) is not run again. */
const keepCompletedSec = 3600

export function createRemotePool(config: Config, log: Log): RemotePool {
  const { prefix, reconcile_ms: reconcileMs, advert_ttl_ms: advertTtlMs } = config.queue
  const url = config.queue.redis_url
  const producer = new Redis(producerOptions(url))
  let reachable = false
  producer.on('error', (err: Error) => {
    if (reachable) log.warn('redis unreachable', { url: redact(url), err: err.message })
    reachable = false
  })
  producer.on('ready', () => {
    if (!reachable) log.info('redis reachable', { url: redact(url) })
    reachable = true
    // what was out may be gone (a Redis restarted without persistence): check it now, then claim again
    void reconcile().finally(capacity)
  })
  producer.on('close', () => (reachable = false))

  const queues = new Map<string, Queue>()
  const queueOf = (name: string) => {
    let q = queues.get(name)
    if (!q) {
      q = new Queue(name, { connection: producer, prefix })
      q.on('error', () => {}) // reported once by the connection's own handler
      queues.set(name, q)
    }
    return q
  }

  const pending = new Map<string, Pending>()
  let sets: HostSet[] = []
  let adverts: Advert[] = []
  const capacityListeners: (() => void)[] = []
  const capacity = () => capacityListeners.forEach((fn) => fn())

  const outOn = (queue: string) => {
    let n = 0
    for (const p of pending.values()) if (p.queue === queue) n++
    return n
  }
  // one job more than slots per host waits in the queue, so a host that finishes one finds the next
  // without waiting for its result to reach us and a new claim to come back
  const room = (s: HostSet) => s.slots + s.hosts.length - outOn(s.queue)

  /** The set with the most room that has the language. */
  const route = (language: string): HostSet | undefined => {
    let best: HostSet | undefined
    for (const s of sets) if (s.languages.has(language) && (!best || room(s) > room(best))) best = s
    return best
  }

  const send = async (p: Pending) => {
    if (!p.queue) {
      // a claim resumed after a restart may already wait in one of several sets with its language: attach
      // to it there rather than add it to another (where it would run a second time)
      const candidates = sets.filter((s) => s.languages.has(p.job.language))
      if (candidates.length > 1) {
        for (const c of candidates) {
          const state = await queueOf(c.queue).getJobState(p.key).catch(() => 'unknown')
          if (state !== 'unknown') {
            Object.assign(p, { queue: c.queue, sent: true, sentAt: Date.now() })
            return
          }
        }
      }
      const s = route(p.job.language)
      if (!s) return
      p.queue = s.queue
    }
    try {
      // v3 never shows a stage: its jobs need no message but the result (one Redis round trip less)
      const progress = !!(p.hooks.onCompiled || p.hooks.onTest)
      const message: JobMessage = { key: p.key, ...(await byReference(producer, prefix, await inlineFilesAt(p.job))), ...(progress && { progress }) }
      // an id already in the queue (a resumed claim) adds nothing: the host's result comes once
      await queueOf(p.queue).add('run', message, {
        jobId: p.key,
        removeOnComplete: { age: keepCompletedSec },
        removeOnFail: { age: 24 * 3600 },
      })
      p.sent = true
      p.sentAt = Date.now()
    } catch (err) {
      p.sent = false
      log.debug('job not handed to redis yet', { key: p.key, err: (err as Error).message })
    }
  }

  const refreshAdverts = async () => {
    try {
      adverts = await readAdverts(producer, prefix)
    } catch {
      return
    }
    const byQueue = new Map<string, HostSet>()
    for (const a of adverts) {
      let s = byQueue.get(a.queue)
      if (!s) byQueue.set(a.queue, (s = { queue: a.queue, languages: new Set(a.languages), slots: 0, hosts: [] }))
      s.slots += a.slots
      s.hosts.push(a.id)
    }
    const before = sets.reduce((n, s) => n + s.slots, 0)
    sets = [...byQueue.values()]
    const after = sets.reduce((n, s) => n + s.slots, 0)
    // jobs that waited for a host with their language go now
    for (const p of pending.values()) if (!p.queue) await send(p)
    if (after > before) capacity()
  }

  let reconciling = false
  /** Each job out is still in Redis, or sent again (lost), or retried by the dispatcher (failed there). */
  const reconcile = async () => {
    if (reconciling || !reachable) return
    reconciling = true
    try {
      await refreshAdverts()
      const now = Date.now()
      for (const p of [...pending.values()]) {
        if (!p.sent) {
          await send(p)
          continue
        }
        if (!p.queue || now - p.sentAt < reconcileMs) continue
        const q = queueOf(p.queue)
        const state = await q.getJobState(p.key)
        if (!sets.some((s) => s.queue === p.queue) && ['waiting', 'prioritized', 'delayed', 'active'].includes(state)) {
          // every host of its language set is gone: taken back and routed again. BullMQ refuses to remove
          // a job whose holder still renews its lock, so only a waiting job or a dead host's is taken
          const waiting = await q.getJob(p.key)
          if (waiting && (await waiting.remove().then(() => true, () => false))) {
            log.warn('a job waited in a queue no live host serves: routed again', { key: p.key })
            p.queue = undefined
            p.sent = false
            await send(p)
          }
          continue
        }
        if (state === 'unknown') {
          log.warn('a job out on a sandbox host is no longer in redis: sent again', { key: p.key })
          await send(p)
        } else if (state === 'failed') {
          const failed = await q.getJob(p.key)
          await failed?.remove().catch(() => undefined)
          if (pending.get(p.key) === p) {
            pending.delete(p.key)
            p.reject(new Error(`sandbox host: ${failed?.failedReason || 'the job failed in the queue'}`))
          }
        }
      }
    } catch (err) {
      log.debug('reconcile stopped early', { err: (err as Error).message })
    } finally {
      reconciling = false
    }
  }

  const apply = async (m: ResultMessage) => {
    const p = pending.get(m.key)
    if (!p) {
      log.warn('result for an unknown or stale attempt ignored', { key: m.key, host: m.host, kind: m.kind })
      return
    }
    if (m.kind === 'compiled') {
      if (!p.compiled) {
        p.compiled = true
        p.hooks.onCompiled?.(m.outcome)
      }
    } else if (m.kind === 'test') {
      if (m.index < (p.job.tests?.length ?? 0)) p.hooks.onTest?.(m.index, m.outcome)
    } else {
      pending.delete(m.key)
      if (m.kind === 'result') {
        // the compile message travels separately and may come second: the stage is shown once, first
        if (!p.compiled) p.hooks.onCompiled?.(m.result.compile)
        p.resolve(m.result)
      } else if (m.message.startsWith(MISSING_TEST_DATA) && p.resent < 3) {
        // the test data expired or Redis lost it: stored again with the job, not our fault's retry
        log.warn('test data was not in redis: sent again', { key: m.key, host: m.host })
        p.resent++
        pending.set(m.key, p)
        const q = queueOf(p.queue!)
        // the host's answer can come before its queue marks the job done; while the job is still there
        // (active, locked) it cannot be removed, and adding its id again would add nothing: wait it out
        for (let i = 0; i < 600 && (await q.getJobState(p.key).catch(() => 'unknown')) === 'active'; i++) await new Promise((r) => setTimeout(r, 50))
        await q.remove(p.key).catch(() => undefined)
        await send(p)
        return
      } else p.reject(new Error(`sandbox host ${m.host}: ${m.message}`))
      // the dispatcher records the completion before this message is acknowledged
      await nextTurn()
      capacity()
    }
  }

  let results: Worker | undefined
  // a host's texts are read back up to the largest stream cap any face has, as ours are: a little room for its own config, no more
  const results$ = resultMessageSchema(2 * jobCeilings(config).streamBytes + 4096, config.grading.max_tests)
  const timers: NodeJS.Timeout[] = []

  return {
    get size() {
      return sets.reduce((n, s) => n + s.slots + s.hosts.length, 0)
    },
    get busy() {
      return pending.size
    },
    resumesInFlight: true,
    // each sandbox host reads its own config; nothing here depends on the limits
    reconfigure() {},
    available() {
      const langs = new Set<string>()
      if (!reachable) return langs
      for (const s of sets) if (room(s) > 0) for (const l of s.languages) langs.add(l)
      return langs
    },
    onCapacity(fn) {
      capacityListeners.push(fn)
    },
    run(job, hooks = {}) {
      const key = hooks.jobKey
      if (!key) return Promise.reject(new Error('a job for sandbox hosts needs its claim key'))
      return new Promise<JobResult>((resolve, reject) => {
        const p: Pending = { key, job, hooks, sent: false, sentAt: 0, compiled: false, resent: 0, resolve, reject }
        pending.set(key, p)
        void send(p)
      })
    },
    start() {
      results = new Worker(
        RESULTS_QUEUE,
        async (j) => {
          const parsed = results$.safeParse(j.data)
          if (!parsed.success) {
            log.warn('unreadable result from a sandbox host ignored', { job: j.id, why: parsed.error.issues[0]?.message })
            return
          }
          await apply(parsed.data)
        },
        {
          connection: redisOptions(url) as ConnectionOptions,
          prefix,
          concurrency: 8,
          lockDuration: config.queue.lock_ms,
          stalledInterval: config.queue.stalled_check_ms,
          maxStalledCount: 10,
          removeOnComplete: { count: 0 },
          removeOnFail: { age: 24 * 3600 },
        }
      )
      results.on('error', (err) => log.debug('results worker', { err: err.message }))
      timers.push(setInterval(() => void refreshAdverts(), Math.min(2000, Math.max(200, Math.floor(advertTtlMs / 3)))))
      timers.push(setInterval(() => void reconcile(), reconcileMs))
    },
    status() {
      const waiting: Record<string, number> = {}
      for (const p of pending.values()) if (!p.queue) waiting[p.job.language] = (waiting[p.job.language] ?? 0) + 1
      return {
        redis: reachable ? 'ok' : 'unreachable',
        url: redact(url),
        hosts: adverts.map((a) => ({ id: a.id, languages: a.languages.length, slots: a.slots })),
        slots: sets.reduce((n, s) => n + s.slots, 0),
        languages: [...new Set(sets.flatMap((s) => [...s.languages]))].sort(),
        out: pending.size,
        waiting_for_a_host: waiting,
      }
    },
    async close() {
      timers.forEach(clearInterval)
      await results?.close().catch(() => undefined)
      await Promise.allSettled([...queues.values()].map((q) => q.close()))
      producer.disconnect()
    },
  }
}
