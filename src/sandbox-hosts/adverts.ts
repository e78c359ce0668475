// Sandbox hosts advertise themselves in Redis: one key per host, `<prefix>:hosts:<id>`, holding its
// languages, slots and the jobs queue it takes from, with an expiry it keeps renewing. The API host reads
// the adverts to know which languages can run and how many jobs to hand out; a host that stops renewing
// (killed, cut off) drops out after queue.advert_ttl_ms.
import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import { z } from 'zod'
import { jobsQueueName } from './wire.ts'

export const AdvertSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,96}$/),
    languages: z.array(z.string().regex(/^[A-Za-z0-9_+#.-]{1,32}$/)).max(256),
    slots: z.number().int().min(1).max(256),
    queue: z.string().max(64),
  })
  .strict()
export type Advert = z.infer<typeof AdvertSchema>

/** The queue of a set of languages: hosts with the same set share it (and BullMQ's stalled-job recovery). */
export function queueForLanguages(languages: readonly string[]): string {
  const set = [...new Set(languages)].sort().join(',')
  return jobsQueueName(createHash('sha256').update(set).digest('hex').slice(0, 12))
}

const advertKey = (prefix: string, id: string) => `${prefix}:hosts:${id}`

/** Renews the advert every third of its lifetime until stop(); stop() also removes it (a clean exit). */
export function startAdverts(redis: Redis, prefix: string, advert: Advert, ttlMs: number, onError: (err: Error) => void) {
  const key = advertKey(prefix, advert.id)
  const body = JSON.stringify(AdvertSchema.parse(advert))
  const renew = () => redis.set(key, body, 'PX', ttlMs).then(() => undefined, onError)
  void renew()
  const timer = setInterval(renew, Math.max(200, Math.floor(ttlMs / 3)))
  return {
    async stop() {
      clearInterval(timer)
      await redis.del(key).catch(() => undefined)
    },
  }
}

/** Every live advert; one that does not parse (another version, or junk) is skipped. */
export async function readAdverts(redis: Redis, prefix: string): Promise<Advert[]> {
  const keys: string[] = []
  let cursor = '0'
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:hosts:*`, 'COUNT', 200)
    cursor = next
    keys.push(...batch)
  } while (cursor !== '0')
  if (!keys.length) return []
  const values = await redis.mget(...keys)
  const out: Advert[] = []
  for (const v of values) {
    if (!v) continue
    try {
      const a = AdvertSchema.safeParse(JSON.parse(v))
      if (a.success && a.data.queue === queueForLanguages(a.data.languages)) out.push(a.data)
    } catch {
      // not JSON: skipped
    }
  }
  return out
}
