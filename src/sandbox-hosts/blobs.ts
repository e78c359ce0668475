// Test data by reference. A graded job's tests (up to grading.total_max_bytes) would otherwise travel in
// every job: 300 students on one problem would move its test set 300 times through Redis. Instead each
// input and expected output is stored once under its SHA-256 (`<prefix>:blob:<hash>`, kept a day after
// its last use) and the job names the hashes; a sandbox host keeps what it fetched in a bounded cache,
// so it reads a problem's tests once. Small sets go inline (one round trip less); bench-scale measures both.
import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Job } from '../jobs/types.ts'

/** A job whose tests hold at least this much goes by reference. */
export const BY_REFERENCE_BYTES = 64 << 10
const KEEP_SEC = 24 * 3600

export interface TestRefs {
  input: string
  expected: string
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')
const blobKey = (prefix: string, hash: string) => `${prefix}:blob:${hash}`

const testBytes = (job: Job) => (job.tests ?? []).reduce((n, t) => n + t.input.length + t.expectedOutput.length, 0)

/**
 * The job as sent: tests emptied and their hashes beside it when the tests are large (the blobs are
 * stored first; one already there is only given a new day), else the job as is.
 */
export async function byReference(redis: Redis, prefix: string, job: Job): Promise<{ job: Job; testRefs?: TestRefs[] }> {
  if (!job.tests || testBytes(job) < BY_REFERENCE_BYTES) return { job }
  const refs = job.tests.map((t) => ({ input: sha256(t.input), expected: sha256(t.expectedOutput) }))
  const blobs = new Map<string, string>()
  job.tests.forEach((t, i) => {
    blobs.set(refs[i]!.input, t.input)
    blobs.set(refs[i]!.expected, t.expectedOutput)
  })
  const hashes = [...blobs.keys()]
  // EXPIRE answers 0 for a key that is not there: only those are uploaded
  const present = await redis.pipeline(hashes.map((h) => ['expire', blobKey(prefix, h), String(KEEP_SEC)])).exec()
  const missing = hashes.filter((_, i) => present?.[i]?.[1] !== 1)
  if (missing.length) {
    const r = await redis.pipeline(missing.map((h) => ['set', blobKey(prefix, h), blobs.get(h)!, 'EX', String(KEEP_SEC)])).exec()
    const failed = r?.find(([err]) => err)
    if (failed) throw failed[0]!
  }
  return { job: { ...job, tests: job.tests.map((t) => ({ ...t, input: '', expectedOutput: '' })) }, testRefs: refs }
}

/** What a sandbox host fetched, least recently used dropped first beyond maxBytes. */
export class BlobCache {
  private map = new Map<string, string>()
  private bytes = 0
  constructor(readonly maxBytes: number) {}
  get(hash: string): string | undefined {
    const v = this.map.get(hash)
    if (v !== undefined) {
      this.map.delete(hash)
      this.map.set(hash, v)
    }
    return v
  }
  set(hash: string, value: string): void {
    if (value.length > this.maxBytes || this.map.has(hash)) return
    this.map.set(hash, value)
    this.bytes += value.length
    for (const [k, v] of this.map) {
      if (this.bytes <= this.maxBytes) break
      this.map.delete(k)
      this.bytes -= v.length
    }
  }
  get size() {
    return this.bytes
  }
}

export class MissingBlob extends Error {}

/** What a host fetches at most: one blob, and all of one job's blobs (UTF-8 bytes, as Redis counts). */
export interface BlobLimits {
  blobMaxBytes: number
  totalMaxBytes: number
}

/**
 * The caps of a host whose config allows tests of grading.test_max_bytes characters and sets of grading.total_max_bytes:
 * a character takes at most 3 bytes in UTF-8 (a 4-byte one is two UTF-16 units, counted twice).
 */
export const blobLimits = (grading: { test_max_bytes: number; total_max_bytes: number }): BlobLimits => ({
  blobMaxBytes: 3 * grading.test_max_bytes,
  totalMaxBytes: 3 * grading.total_max_bytes,
})

const EMPTY = sha256('')

/**
 * The job with its tests filled in from the cache or Redis; each blob checked against its hash. Sizes
 * are asked first (STRLEN): a blob over the cap, or a set over the total, is refused without being read,
 * and what is read is at most the size allowed (GETRANGE), even if the key changed in between.
 */
export async function resolveReferences(redis: Redis, prefix: string, cache: BlobCache, job: Job, refs: TestRefs[] | undefined, limits: BlobLimits): Promise<Job> {
  if (!refs) return job
  if (!job.tests || refs.length !== job.tests.length) throw new MissingBlob('test references do not match the tests')
  const wanted = [...new Set(refs.flatMap((r) => [r.input, r.expected]))]
  const have = new Map<string, string>()
  const fetch: string[] = []
  for (const h of wanted) {
    const v = cache.get(h)
    if (v === undefined) fetch.push(h)
    else have.set(h, v)
  }
  if (fetch.length) {
    const sizes = await redis.pipeline(fetch.map((h) => ['strlen', blobKey(prefix, h)])).exec()
    let total = [...have.values()].reduce((n, v) => n + Buffer.byteLength(v), 0)
    const read: string[] = []
    fetch.forEach((h, i) => {
      const [err, n] = sizes?.[i] ?? [new Error('no reply'), 0]
      if (err) throw err
      const bytes = Number(n)
      // STRLEN is 0 for a key that is not there: only the empty blob may be empty
      if (bytes === 0 && h !== EMPTY) throw new MissingBlob(`test data ${h.slice(0, 12)}… is not in redis`)
      if (bytes > limits.blobMaxBytes) throw new TooLargeBlob(`test data ${h.slice(0, 12)}… holds ${bytes} bytes, over this host's cap of ${limits.blobMaxBytes}`)
      total += bytes
      if (bytes) read.push(h)
      else have.set(h, '')
    })
    if (total > limits.totalMaxBytes) throw new TooLargeBlob(`test data holds ${total} bytes, over this host's cap of ${limits.totalMaxBytes}`)
    const values = read.length ? await redis.pipeline(read.map((h) => ['getrange', blobKey(prefix, h), '0', String(limits.blobMaxBytes - 1)])).exec() : []
    read.forEach((h, i) => {
      const [err, v] = values?.[i] ?? [new Error('no reply'), null]
      if (err) throw err
      if (typeof v !== 'string' || v === '') throw new MissingBlob(`test data ${h.slice(0, 12)}… is not in redis`)
      if (sha256(v) !== h) throw new MissingBlob(`test data ${h.slice(0, 12)}… does not match its hash`)
      have.set(h, v)
    })
    for (const h of read) cache.set(h, have.get(h)!)
  }
  return { ...job, tests: job.tests.map((t, i) => ({ ...t, input: have.get(refs[i]!.input)!, expectedOutput: have.get(refs[i]!.expected)! })) }
}

/** A blob, or a job's blobs together, larger than this host accepts: refused, never fetched. */
export class TooLargeBlob extends Error {}
