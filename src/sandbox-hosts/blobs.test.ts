import { describe, expect, test } from 'vitest'
import { useTestRedis } from '../testing/test-redis.ts'
import type { Job } from '../jobs/types.ts'
import { BlobCache, BY_REFERENCE_BYTES, byReference, MissingBlob, resolveReferences } from './blobs.ts'

const t = useTestRedis()

const big = 'x'.repeat(BY_REFERENCE_BYTES)
const job = (tests: { input: string; expectedOutput: string }[]): Job => ({ language: 'C', source: 's', input: '', timeLimitSec: 1, memoryLimitKb: 65536, tests })

describe('test data by reference', () => {
  test('small test sets go inline', async () => {
    const j = job([{ input: '1', expectedOutput: '2' }])
    expect(await byReference(t.client, 't', j)).toEqual({ job: j })
  })

  test('large ones are stored once by hash, sent as references, and filled in again on the host', async () => {
    const j = job([
      { input: big, expectedOutput: 'a' },
      { input: big, expectedOutput: 'b' },
    ])
    const sent = await byReference(t.client, 't', j)
    expect(sent.testRefs).toHaveLength(2)
    expect(sent.job.tests!.every((t) => t.input === '' && t.expectedOutput === '')).toBe(true)
    expect(JSON.stringify(sent).length).toBeLessThan(2000)
    // equal inputs are one key
    expect(sent.testRefs![0]!.input).toBe(sent.testRefs![1]!.input)
    expect(await t.client.keys('t:blob:*')).toHaveLength(3)
    expect(await t.client.ttl(`t:blob:${sent.testRefs![0]!.input}`)).toBeGreaterThan(3600)

    const cache = new BlobCache(10 << 20)
    expect(await resolveReferences(t.client, 't', cache, sent.job, sent.testRefs)).toEqual(j)
    // a second job of the same problem is read from the cache, even with Redis emptied
    await t.client.flushall()
    expect(await resolveReferences(t.client, 't', cache, sent.job, sent.testRefs)).toEqual(j)
    // and the API host stores what Redis lost again
    await byReference(t.client, 't', j)
    expect(await t.client.keys('t:blob:*')).toHaveLength(3)
  })

  test('a missing or altered blob is refused, never run with other data', async () => {
    const j = job([{ input: big + 'm', expectedOutput: 'z' }])
    const sent = await byReference(t.client, 'u', j)
    await t.client.set(`u:blob:${sent.testRefs![0]!.input}`, 'tampered')
    await expect(resolveReferences(t.client, 'u', new BlobCache(1 << 20), sent.job, sent.testRefs)).rejects.toThrow(/does not match its hash/)
    await t.client.del(`u:blob:${sent.testRefs![0]!.input}`)
    await expect(resolveReferences(t.client, 'u', new BlobCache(1 << 20), sent.job, sent.testRefs)).rejects.toBeInstanceOf(MissingBlob)
    await expect(resolveReferences(t.client, 'u', new BlobCache(1 << 20), sent.job, [])).rejects.toThrow(/do not match/)
  })

  test('the host cache keeps at most its cap, dropping the least recently used', () => {
    const c = new BlobCache(10)
    c.set('a', '1234')
    c.set('b', '1234')
    c.get('a')
    c.set('c', '1234')
    expect(c.get('b')).toBeUndefined()
    expect(c.get('a')).toBe('1234')
    expect(c.size).toBeLessThanOrEqual(10)
    c.set('huge', 'x'.repeat(11))
    expect(c.get('huge')).toBeUndefined()
  })
})
