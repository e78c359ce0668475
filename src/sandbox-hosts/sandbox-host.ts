// A sandbox host (`cli worker --redis URL`): takes jobs from the BullMQ queue of its set of languages,
// runs each in its own jail and toolchains (the same pool a single server uses), and puts the compile
// step, each test and the result on the results queue. It never sees the database, client secrets or
// interview data: a job holds only what a step needs. It advertises its languages and slots while it runs.
import { hostname } from 'node:os'
import { Queue, Worker, type ConnectionOptions } from 'bullmq'
import { Redis } from 'ioredis'
import { z } from 'zod'
import type { Config } from '../config.ts'
import { jobRequestSchema } from '../jobs/jail-protocol.ts'
import { createJailPool } from '../jobs/jail-pool.ts'
import type { Pool } from '../jobs/pool-types.ts'
import { createPool } from '../jobs/pool.ts'
import { offeredLanguages, type Language } from '../languages.ts'
import type { Log } from '../log.ts'
import { queueForLanguages, startAdverts } from './adverts.ts'
import { redact, redisOptions } from './connection.ts'
import { BlobCache, blobLimits, MissingBlob, resolveReferences } from './blobs.ts'
import { MISSING_TEST_DATA, RESULTS_QUEUE, type ResultMessage } from './wire.ts'
import type { Job } from '../jobs/types.ts'

export interface SandboxHostOptions {
  config: Config
  log: Log
  languages: Map<string, Language>
  redisUrl: string
  /** Jobs at once (default: pool.size of this host's config). */
  slots?: number
  /** Take only these codes (default: every language provisioned and enabled here). */
  only?: string[]
  /** This host's name in adverts and logs (default: hostname-pid). */
  id?: string
}

export interface SandboxHost {
  id: string
  queue: string
  languages: string[]
  slots: number
  /** Stops taking jobs, waits for the ones running (their results are sent), then leaves. */
  close(): Promise<void>
}

export async function startSandboxHost(opts: SandboxHostOptions): Promise<SandboxHost> {
  const { log } = opts
  const slots = opts.slots ?? opts.config.pool.size
  if (!Number.isInteger(slots) || slots < 1 || slots > 64) throw new Error('--slots must be a whole number from 1 to 64')
  const config: Config = { ...opts.config, pool: { ...opts.config.pool, size: slots }, queue: { ...opts.config.queue, redis_url: opts.redisUrl } }
  // what is provisioned here (without the API host's rule that a language may wait for some host)
  const offered = offeredLanguages(opts.languages, { paths: config.paths, languages: config.languages }).map((l) => l.code)
  let languages = offered
  if (opts.only?.length) {
    const wanted = new Set(opts.only.map((c) => c.toUpperCase()))
    languages = offered.filter((c) => wanted.has(c.toUpperCase()))
    const missing = [...wanted].filter((c) => !languages.some((l) => l.toUpperCase() === c))
    if (missing.length) throw new Error(`not provisioned (or not enabled) on this host: ${missing.join(', ')}`)
  }
  if (!languages.length) throw new Error('no language is provisioned on this host: run scripts/setup.sh --worker first')
  const id = (opts.id ?? `${hostname()}-${process.pid}`).replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 96)
  const queueName = queueForLanguages(languages)
  const { prefix } = config.queue

  const pool: Pool = config.pool.jail_socket ? createJailPool(config) : createPool(config)
  // this host's own limits bound what it runs, whatever the API host sent
  const request = z.object({ key: z.string().regex(/^s\d{1,15}-a\d{1,6}$/), job: jobRequestSchema(config).shape.job }).strict()
  const refsSchema = z.array(z.object({ input: z.string().regex(/^[0-9a-f]{64}$/), expected: z.string().regex(/^[0-9a-f]{64}$/) }).strict()).max(config.grading.max_tests).optional()
  const blobs = new BlobCache(config.queue.blob_cache_bytes)

  const connection = new Redis(redisOptions(opts.redisUrl))
  let reachable = true
  connection.on('error', (err: Error) => {
    if (reachable) log.warn('redis unreachable', { url: redact(opts.redisUrl), err: err.message })
    reachable = false
  })
  connection.on('ready', () => {
    if (!reachable) log.info('redis reachable again', { url: redact(opts.redisUrl) })
    reachable = true
  })
  const results = new Queue(RESULTS_QUEUE, { connection, prefix })
  results.on('error', () => {})
  const report = (m: ResultMessage) =>
    results.add(m.kind, m, { removeOnComplete: true, removeOnFail: { age: 24 * 3600 } }).then(
      () => undefined,
      (err: Error) => log.error('result not sent', { key: m.key, kind: m.kind, err: err.message })
    )

  const worker = new Worker(
    queueName,
    async (j) => {
      const data = (j.data ?? {}) as { key?: unknown; job?: unknown; testRefs?: unknown; progress?: unknown }
      const key = typeof data.key === 'string' ? data.key.slice(0, 40) : String(j.id)
      const refs = refsSchema.safeParse(data.testRefs)
      if (!refs.success) {
        await report({ key, host: id, kind: 'error', message: 'job refused: testRefs: not a list of hashes' })
        return
      }
      let filled: unknown = data.job
      try {
        if (refs.data) filled = await resolveReferences(connection, prefix, blobs, data.job as Job, refs.data, blobLimits(config.grading))
      } catch (err) {
        const why = err instanceof MissingBlob ? `${MISSING_TEST_DATA}${err.message}` : `job refused: ${(err as Error).message}`
        await report({ key, host: id, kind: 'error', message: why })
        return
      }
      const parsed = request.safeParse({ key: data.key, job: filled })
      if (!parsed.success) {
        const why = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
        log.warn('job refused', { key, why })
        await report({ key, host: id, kind: 'error', message: `job refused: ${why}` })
        return
      }
      const progress: Promise<void>[] = []
      try {
        const result = await pool.run(
          parsed.data.job,
          data.progress === true
            ? {
                onCompiled: (outcome) => void progress.push(report({ key, host: id, kind: 'compiled', outcome })),
                onTest: (index, outcome) => void progress.push(report({ key, host: id, kind: 'test', index, outcome })),
              }
            : {}
        )
        await Promise.all(progress)
        await report({ key, host: id, kind: 'result', result })
      } catch (err) {
        await report({ key, host: id, kind: 'error', message: err instanceof Error ? err.message : String(err) })
      }
    },
    {
      connection: redisOptions(opts.redisUrl) as ConnectionOptions,
      prefix,
      name: id,
      concurrency: slots,
      lockDuration: config.queue.lock_ms,
      stalledInterval: config.queue.stalled_check_ms,
      // a job whose hosts died more than twice goes to failed; the API host then retries it as its own fault
      maxStalledCount: 2,
      removeOnComplete: { age: 3600 },
      removeOnFail: { age: 24 * 3600 },
    }
  )
  worker.on('error', (err) => log.debug('worker', { err: err.message }))
  const adverts = startAdverts(connection, prefix, { id, languages, slots, queue: queueName }, config.queue.advert_ttl_ms, () => {})
  log.info('sandbox host taking jobs', { id, queue: queueName, slots, languages: languages.length, redis: redact(opts.redisUrl) })

  return {
    id,
    queue: queueName,
    languages,
    slots,
    async close() {
      await adverts.stop()
      await worker.close()
      await results.close().catch(() => undefined)
      await pool.close()
      connection.disconnect()
    },
  }
}
