import { Redis } from 'ioredis'
import { expect, test } from 'vitest'
import { useTestRedis } from '../testing/test-redis.ts'
import { queueForLanguages, readAdverts, startAdverts } from './adverts.ts'
import { redisOptions } from './connection.ts'

const t = useTestRedis()

test('hosts with the same languages share a queue, whatever the order', () => {
  expect(queueForLanguages(['C', 'PYTHON3'])).toBe(queueForLanguages(['PYTHON3', 'C', 'C']))
  expect(queueForLanguages(['C'])).not.toBe(queueForLanguages(['C', 'PYTHON3']))
  expect(queueForLanguages(['C'])).toMatch(/^jobs-[0-9a-f]{12}$/)
})

test('an advert lives while it is renewed, goes on stop, and expires when its host dies', async () => {
  const a = startAdverts(t.client, 'p', { id: 'h1', languages: ['C'], slots: 2, queue: queueForLanguages(['C']) }, 1000, () => {})
  const dying = new Redis(redisOptions(t.redis.url))
  const b = startAdverts(dying, 'p', { id: 'h2', languages: ['PYTHON3'], slots: 1, queue: queueForLanguages(['PYTHON3']) }, 1000, () => {})
  await new Promise((r) => setTimeout(r, 50))
  expect((await readAdverts(t.client, 'p')).map((x) => x.id).sort()).toEqual(['h1', 'h2'])
  await new Promise((r) => setTimeout(r, 1500)) // past one lifetime: renewed
  expect(await readAdverts(t.client, 'p')).toHaveLength(2)
  await a.stop()
  expect((await readAdverts(t.client, 'p')).map((x) => x.id)).toEqual(['h2'])
  // h2's host dies: its connection is gone, nothing removes the key, it expires
  dying.disconnect()
  await new Promise((r) => setTimeout(r, 1200))
  expect(await readAdverts(t.client, 'p')).toEqual([])
  await b.stop()
})

test('junk and adverts whose queue does not match their languages are skipped', async () => {
  await t.client.set('q:hosts:junk', 'not json', 'PX', 5000)
  await t.client.set('q:hosts:liar', JSON.stringify({ id: 'liar', languages: ['C'], slots: 1, queue: 'jobs-000000000000' }), 'PX', 5000)
  await t.client.set('q:hosts:extra', JSON.stringify({ id: 'extra', languages: ['C'], slots: 1, queue: queueForLanguages(['C']), admin: true }), 'PX', 5000)
  await t.client.set('q:hosts:ok', JSON.stringify({ id: 'ok', languages: ['C'], slots: 1, queue: queueForLanguages(['C']) }), 'PX', 5000)
  expect((await readAdverts(t.client, 'q')).map((x) => x.id)).toEqual(['ok'])
})
