// For tests of this folder: a private Redis (src/testing/redis-server.ts) for the file, and a client of it.
import { Redis } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { startRedis, type TestRedis } from './redis-server.ts'
import { redisOptions } from '../sandbox-hosts/connection.ts'

export function useTestRedis(): { readonly redis: TestRedis; readonly client: Redis } {
  const r = {} as { redis: TestRedis; client: Redis }
  beforeAll(async () => {
    r.redis = await startRedis()
    r.client = new Redis(redisOptions(r.redis.url))
  })
  afterAll(async () => {
    r.client?.disconnect()
    await r.redis?.stop()
  })
  return r
}
