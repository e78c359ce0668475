import * as nodeFs from 'node:fs'
import { existsSync, mkdirSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../testing/evaluation.ts'
import { BLOCK_BYTES, createFileCache, FileTooLarge, STORE_SQL, type FileCacheLimits, type StoreFs } from './file-cache.ts'

const roomy: FileCacheLimits = { clientFiles: 100_000, clientBytes: 1 << 30, totalFiles: 1_000_000, totalBytes: 2 ** 40, ttlMs: 48 * 3_600_000 }
const caps = (l: Partial<FileCacheLimits> = {}) => () => ({ ...roomy, ...l })
/** Blob files on disk, whoever's. */
const blobFiles = (dir: string) => (existsSync(join(dir, 'blobs')) ? readdirSync(join(dir, 'blobs')).flatMap((c) => readdirSync(join(dir, 'blobs', c))) : [])
const id = (i: number) => `file${String(i).padStart(6, '0')}`

describe('the Jobe file store: per client, content-addressed', () => {
  test("per client: one client never sees another one's file", () => {
    const cache = createFileCache(tempDir(), caps())
    cache.put(1, 'abcdefgh', Buffer.from('one'))
    expect(cache.get(1, 'abcdefgh')?.toString()).toBe('one')
    expect(cache.has(2, 'abcdefgh')).toBe(false)
    expect(cache.get(2, 'abcdefgh')).toBeUndefined()
    expect(cache.size(2, 'abcdefgh')).toBeUndefined()
    expect(cache.size(1, 'abcdefgh')).toBe(3)
  })

  test('equal files are stored once; a PUT under the same id replaces the content, and the old blob goes with its last id', () => {
    const dir = tempDir()
    const cache = createFileCache(dir, caps())
    cache.put(1, 'id000001', Buffer.from('same'))
    cache.put(1, 'id000002', Buffer.from('same'))
    expect(blobFiles(dir)).toHaveLength(1)
    expect(cache.usage(1)).toEqual({ files: 2, blobs: 1, blockBytes: BLOCK_BYTES })
    cache.put(1, 'id000001', Buffer.from('new'))
    expect(cache.get(1, 'id000001')?.toString()).toBe('new')
    expect(cache.get(1, 'id000002')?.toString()).toBe('same')
    cache.put(1, 'id000002', Buffer.from('new'))
    expect(blobFiles(dir)).toHaveLength(1)
    expect(cache.usage(1)).toEqual({ files: 2, blobs: 1, blockBytes: BLOCK_BYTES })
  })

  test('bytes stay bytes: NULs, invalid UTF-8 and every byte value come back as put', () => {
    const cache = createFileCache(tempDir(), caps())
    const all = Buffer.from([...Array(256).keys(), 0xff, 0xfe, 0x00, 0xc3, 0x28, 0xed, 0xa0, 0x80])
    cache.put(1, 'binary01', all)
    expect(cache.get(1, 'binary01')!.equals(all)).toBe(true)
  })

  test('a file id that could name a path is refused', () => {
    const cache = createFileCache(tempDir(), caps())
    expect(() => cache.put(1, '../x', Buffer.from('x'))).toThrow()
    expect(() => cache.get(1, 'a/b')).toThrow()
  })
})

describe('the Jobe file store: bounded by entries and disk blocks', () => {
  test('2,000 PUTs of the same 21 bytes under new ids: the ids are counted and capped, one blob on disk', { timeout: 60_000 }, () => {
    // before: 2,000 id files for a client capped at 64 KB (the cap counted blob bytes, never ids)
    const dir = tempDir()
    const cache = createFileCache(dir, caps({ clientFiles: 100, clientBytes: 64 << 10 }))
    const same = Buffer.from('twenty-one bytes each')
    for (let i = 0; i < 2000; i++) cache.put(1, id(i), same)
    expect(cache.usage(1)).toEqual({ files: 100, blobs: 1, blockBytes: BLOCK_BYTES })
    expect(blobFiles(dir)).toHaveLength(1)
    // the newest 100 are the ones kept
    expect(cache.has(1, id(1899))).toBe(false)
    expect(cache.has(1, id(1900))).toBe(true)
    expect(cache.has(1, id(1999))).toBe(true)
  })

  test('1,500 distinct tiny uploads: each costs a 4 KiB block, so 64 KiB holds 16 of them', { timeout: 60_000 }, () => {
    // before: 1,500 blob files of 21 bytes "fit" 64 KB (31.5 KB of content, ~6 MB of disk blocks)
    const dir = tempDir()
    const cache = createFileCache(dir, caps({ clientBytes: 64 << 10 }))
    for (let i = 0; i < 1500; i++) cache.put(1, id(i), Buffer.from(`tiny file number ${i}`))
    expect(cache.usage(1)).toEqual({ files: 16, blobs: 16, blockBytes: 64 << 10 })
    expect(blobFiles(dir)).toHaveLength(16)
    // an empty file is not free either
    cache.put(1, 'empty001', Buffer.alloc(0))
    expect(cache.usage(1).files).toBe(16)
  })

  test('the least recently used go first: a file used since it was put outlives older ones', () => {
    const cache = createFileCache(tempDir(), caps({ clientFiles: 3 }))
    for (const n of ['first000', 'second00', 'third000']) cache.put(1, n, Buffer.from(n))
    expect(cache.get(1, 'first000')?.toString()).toBe('first000')
    cache.put(1, 'fourth00', Buffer.from('4'))
    expect(['first000', 'second00', 'third000', 'fourth00'].map((n) => cache.has(1, n))).toEqual([true, false, true, true])
    // HEAD counts as a use too
    expect(cache.has(1, 'third000')).toBe(true)
    cache.put(1, 'fifth000', Buffer.from('5'))
    expect(cache.has(1, 'first000')).toBe(false)
    expect(cache.has(1, 'third000')).toBe(true)
  })

  test('a file larger than the cache is refused, and nothing is evicted for it', () => {
    const dir = tempDir()
    const cache = createFileCache(dir, caps({ clientBytes: 8192 }))
    cache.put(1, 'keepme01', Buffer.from('x'))
    expect(() => cache.put(1, 'toolarge', Buffer.alloc(8193))).toThrow(FileTooLarge)
    expect(cache.has(1, 'keepme01')).toBe(true)
    expect(blobFiles(dir)).toHaveLength(1)
    cache.put(1, 'justfits', Buffer.alloc(4096))
    expect(cache.usage(1).blockBytes).toBe(8192)
  })

  test('an id unused for the TTL is gone, its blob deleted by a later PUT; one used meanwhile stays', () => {
    let clock = 1_000_000
    const dir = tempDir()
    const hour = 3_600_000
    const cache = createFileCache(dir, caps({ ttlMs: 48 * hour }), { now: () => clock })
    cache.put(1, 'stale001', Buffer.from('stale'))
    cache.put(2, 'stale002', Buffer.from('stale of another client'))
    cache.put(1, 'fresh001', Buffer.from('fresh'))
    clock += 47 * hour
    expect(cache.has(1, 'fresh001')).toBe(true)
    clock += 2 * hour
    // expired for every caller, whoever asks
    expect(cache.size(1, 'stale001')).toBeUndefined()
    expect(cache.has(1, 'fresh001')).toBe(true)
    // a PUT sweeps expired ids of every client (a bounded batch, by the age index)
    cache.put(3, 'other001', Buffer.from('x'))
    expect(cache.usage(2).files).toBe(0)
    expect(cache.usage()).toMatchObject({ files: 2, blobs: 2 })
    expect(blobFiles(dir)).toHaveLength(2)
  })
})

describe('the Jobe file store: the global cap, shared between clients', () => {
  test('a client filling the store pushes out its own files, not those of a client holding less', { timeout: 60_000 }, () => {
    const cache = createFileCache(tempDir(), caps({ totalFiles: 20, clientFiles: 1000 }))
    for (let i = 0; i < 5; i++) cache.put(1, id(i), Buffer.from(`a${i}`))
    for (let i = 0; i < 500; i++) cache.put(2, id(i), Buffer.from(`b${i}`))
    expect(cache.usage(1).files).toBe(5)
    expect(cache.usage(2).files).toBe(15)
    for (let i = 0; i < 5; i++) expect(cache.has(1, id(i))).toBe(true)
  })

  test('the client holding the most gives way, down to what the other holds, never below', { timeout: 60_000 }, () => {
    const cache = createFileCache(tempDir(), caps({ totalFiles: 20, clientFiles: 1000 }))
    for (let i = 0; i < 18; i++) cache.put(1, id(i), Buffer.from(`a${i}`))
    for (let i = 0; i < 100; i++) cache.put(2, id(i), Buffer.from(`b${i}`))
    const [a, b] = [cache.usage(1).files, cache.usage(2).files]
    expect(a + b).toBe(20)
    expect(Math.abs(a - b)).toBeLessThanOrEqual(1)
    // client 1 lost its oldest, kept its newest
    expect(cache.has(1, id(0))).toBe(false)
    expect(cache.has(1, id(17))).toBe(true)
  })

  test('by disk blocks as well: a client of many large files yields to one of a few small ones', { timeout: 60_000 }, () => {
    const cache = createFileCache(tempDir(), caps({ totalBytes: 64 * BLOCK_BYTES }))
    for (let i = 0; i < 3; i++) cache.put(1, id(i), Buffer.alloc(100, i))
    for (let i = 0; i < 40; i++) cache.put(2, id(i), Buffer.alloc(4 * BLOCK_BYTES, i))
    expect(cache.usage(1)).toMatchObject({ files: 3, blockBytes: 3 * BLOCK_BYTES })
    expect(cache.usage().blockBytes).toBeLessThanOrEqual(64 * BLOCK_BYTES)
  })
})

/** node:fs, with every call the store makes counted by name. */
function countingFs() {
  const calls: Record<string, number> = {}
  const fs = Object.fromEntries(
    (['mkdirSync', 'writeFileSync', 'renameSync', 'unlinkSync', 'openSync', 'fstatSync', 'readFileSync', 'closeSync', 'existsSync', 'readdirSync', 'rmSync'] as const).map((name) => [
      name,
      (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1
        return (nodeFs[name] as (...a: unknown[]) => unknown)(...args)
      },
    ])
  ) as unknown as StoreFs
  const total = () => Object.values(calls).reduce((n, c) => n + c, 0)
  return { fs, calls, total }
}

describe('the Jobe file store: a PUT costs the same however full the store is', () => {
  test('file system calls per PUT: the same with 50 files stored as with 2,000, and no folder is ever listed after opening', { timeout: 120_000 }, () => {
    // before: each PUT listed and stat-ed every blob of the client
    const { fs, calls, total } = countingFs()
    const cache = createFileCache(tempDir(), caps({ clientFiles: 2000 }), { fs })
    cache.put(1, 'warmup01', Buffer.from('open the index'))
    const listings = calls.readdirSync ?? 0
    const cost = () => {
      const before = total()
      cache.put(1, `probe${Math.random().toString(36).slice(2, 10)}`, Buffer.from(`probe ${Math.random()}`))
      return total() - before
    }
    for (let i = 0; i < 50; i++) cache.put(1, id(i), Buffer.from(`small store ${i}`))
    const small = cost()
    for (let i = 50; i < 2000; i++) cache.put(1, id(i), Buffer.from(`large store ${i}`))
    // full: every further PUT also evicts one
    const full = cost()
    expect(small).toBeLessThanOrEqual(3)
    // the eviction adds its one unlink
    expect(full).toBeLessThanOrEqual(small + 1)
    expect(calls.readdirSync ?? 0).toBe(listings)
  })

  test("no statement of the store scans the ids or the blobs (every lookup is an index's)", () => {
    const dir = tempDir()
    const cache = createFileCache(dir, caps())
    cache.put(1, 'abcdefgh', Buffer.from('x'))
    cache.close()
    const db = new Database(join(dir, 'index.db'), { readonly: true })
    try {
      for (const [name, sql] of Object.entries(STORE_SQL)) {
        const params = Array.from(sql.matchAll(/\?/g), () => 1)
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail)
        // `usage` has one row per client: scanning it is per client, not per file
        expect(plan.filter((d) => /^SCAN (ids|blobs|i|b)\b/.test(d) && !/USING (COVERING )?INDEX/.test(d)), `${name}: ${plan.join('; ')}`).toEqual([])
      }
    } finally {
      db.close()
    }
  })
})

describe('the Jobe file store: what a crash or an admin leaves', () => {
  test('blob files no row counts, temporary files and the layout before the index are removed when it opens', () => {
    const dir = tempDir()
    // the old layout: <dir>/<client>/ids, blobs
    mkdirSync(join(dir, '7', 'ids'), { recursive: true })
    writeFileSync(join(dir, '7', 'ids', 'oldid001'), 'abc')
    const cache = createFileCache(dir, caps())
    cache.put(1, 'counted1', Buffer.from('counted'))
    cache.close()
    expect(existsSync(join(dir, '7'))).toBe(false)
    writeFileSync(join(dir, 'blobs', '1', 'f'.repeat(64)), 'uncounted')
    writeFileSync(join(dir, 'blobs', '1', 'x.tmp'), 'half written')
    const again = createFileCache(dir, caps())
    expect(again.get(1, 'counted1')?.toString()).toBe('counted')
    expect(blobFiles(dir)).toHaveLength(1)
  })

  test('a blob deleted underneath is a missing file (404 → PUT brings it back); a damaged index starts afresh', () => {
    const dir = tempDir()
    const cache = createFileCache(dir, caps())
    cache.put(1, 'deleted1', Buffer.from('gone soon'))
    unlinkSync(join(dir, 'blobs', '1', blobFiles(dir)[0]!))
    expect(cache.get(1, 'deleted1')).toBeUndefined()
    expect(cache.usage(1)).toEqual({ files: 0, blobs: 0, blockBytes: 0 })
    cache.put(1, 'deleted1', Buffer.from('gone soon'))
    expect(cache.get(1, 'deleted1')?.toString()).toBe('gone soon')
    cache.close()
    writeFileSync(join(dir, 'index.db'), 'not a database at all, but long enough to look like a header of one')
    rmSync(join(dir, 'index.db-wal'), { force: true })
    const fresh = createFileCache(dir, caps())
    expect(fresh.has(1, 'deleted1')).toBe(false)
    expect(blobFiles(dir)).toHaveLength(0)
    fresh.put(1, 'deleted1', Buffer.from('back'))
    expect(fresh.get(1, 'deleted1')?.toString()).toBe('back')
  })
})
