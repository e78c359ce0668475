// The test Redis: it refuses the default user and a wrong password, answers the ACL user, carries a
// BullMQ job both ways (msgpackr without its native accelerator, see vendor/msgpackr-extract-none),
// survives a restart on the same port, and is gone after stop().
import { Queue, Worker } from 'bullmq'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startRedis, type TestRedis } from './redis-server.ts'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const client = (opts: { username?: string; password?: string }): Redis => {
  const c = new Redis({ host: '127.0.0.1', port: redis.port, lazyConnect: true,
    maxRetriesPerRequest: 0, retryStrategy: () => null, ...opts })
  c.on('error', () => {})
  return c
}

test('only the ACL user with its password gets in', async () => {
  const anon = client({})
  await anon.connect().catch(() => {})
  await expect(anon.ping()).rejects.toThrow()
  anon.disconnect()
  const wrong = client({ username: redis.user, password: 'wrong' })
  await expect(wrong.connect()).rejects.toThrow()
  wrong.disconnect()
  const ok = new Redis(redis.url)
  expect(await ok.ping()).toBe('PONG')
  ok.disconnect()
})

test('a BullMQ job goes there and its result comes back', async () => {
  const connection = { url: redis.url, maxRetriesPerRequest: null }
  const queue = new Queue('probe', { connection })
  const worker = new Worker('probe', async (job) => ({ doubled: (job.data as { n: number }).n * 2, s: 'é\u0000x' }), { connection })
  const job = await queue.add('x', { n: 21 })
  const done = await new Promise<unknown>((resolve) => worker.on('completed', (j, r) => j.id === job.id && resolve(r)))
  expect(done).toEqual({ doubled: 42, s: 'é\u0000x' })
  await worker.close()
  await queue.close()
})

test('restart keeps the port; stop ends the server', async () => {
  const c = new Redis(redis.url)
  await c.set('k', 'v')
  await redis.restart()
  expect(await c.ping()).toBe('PONG')
  c.disconnect()
  const other = await startRedis()
  await other.stop()
  const gone = client({ username: other.user, password: other.password })
  await expect(gone.connect()).rejects.toThrow()
  gone.disconnect()
})
