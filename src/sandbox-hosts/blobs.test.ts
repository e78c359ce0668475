import { describe, expect, test } from 'vitest'
import { useTestRedis } from '../testing/test-redis.ts'
import type { Job } from '../jobs/types.ts'
import { createHash } from 'node:crypto'
import { BlobCache, BY_REFERENCE_BYTES, byReference, MissingBlob, resolveReferences as resolve, TooLargeBlob, type BlobLimits } from './blobs.ts'

const t = useTestRedis()

const roomy: BlobLimits = { blobMaxBytes: 8 << 20, totalMaxBytes: 64 << 20 }
const resolveReferences = (...a: [Parameters<typeof resolve>[0], string, BlobCache, Job, Parameters<typeof resolve>[4]]) => resolve(...a, roomy)
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

  /** Bytes Redis has sent to its clients so far. */
  const sentBytes = async () => Number(/total_net_output_bytes:(\d+)/.exec(await t.client.info('stats'))![1])
  const sha = (s: string) => createHash('sha256').update(s).digest('hex')

  test('a blob over the cap, or a set over the total, is refused by its size in Redis without being fetched', async () => {
    const huge = 'h'.repeat(24 << 20)
    const hash = sha(huge)
    await t.client.set(`v:blob:${hash}`, huge)
    const j = job([{ input: '', expectedOutput: '' }])
    const before = await sentBytes()
    await expect(resolve(t.client, 'v', new BlobCache(64 << 20), j, [{ input: hash, expected: sha('') }], { blobMaxBytes: 1 << 20, totalMaxBytes: 64 << 20 })).rejects.toBeInstanceOf(TooLargeBlob)
    expect((await sentBytes()) - before).toBeLessThan(64 << 10)

    // each under the cap, together over the total
    const half = 'q'.repeat(700 << 10)
    const other = 'r'.repeat(700 << 10)
    await t.client.set(`v:blob:${sha(half)}`, half)
    await t.client.set(`v:blob:${sha(other)}`, other)
    const refs = [{ input: sha(half), expected: sha(other) }]
    const before2 = await sentBytes()
    await expect(resolve(t.client, 'v', new BlobCache(64 << 20), j, refs, { blobMaxBytes: 1 << 20, totalMaxBytes: 1 << 20 })).rejects.toThrow(/over this host's cap/)
    expect((await sentBytes()) - before2).toBeLessThan(64 << 10)
    // within both, the same references are read
    const filled = await resolve(t.client, 'v', new BlobCache(64 << 20), j, refs, { blobMaxBytes: 1 << 20, totalMaxBytes: 2 << 20 })
    expect(filled.tests![0]).toEqual({ input: half, expectedOutput: other })
  })

  test('an empty blob is read as empty; a missing one is missing', async () => {
    await t.client.set(`w:blob:${sha('')}`, '')
    const j = job([{ input: '', expectedOutput: '' }])
    const filled = await resolve(t.client, 'w', new BlobCache(1 << 20), j, [{ input: sha(''), expected: sha('') }], roomy)
    expect(filled.tests![0]).toEqual({ input: '', expectedOutput: '' })
    await expect(resolve(t.client, 'w', new BlobCache(1 << 20), j, [{ input: sha('absent'), expected: sha('') }], roomy)).rejects.toBeInstanceOf(MissingBlob)
  })
})
