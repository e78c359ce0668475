import { readdirSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../testing/evaluation.ts'
import { createFileCache } from './file-cache.ts'

describe('the Jobe file cache', () => {
  test('per client: one client never sees another one\'s file', () => {
    const cache = createFileCache(tempDir(), () => 1 << 20)
    cache.put(1, 'abcdefgh', Buffer.from('one'))
    expect(cache.get(1, 'abcdefgh')?.toString()).toBe('one')
    expect(cache.has(2, 'abcdefgh')).toBe(false)
    expect(cache.get(2, 'abcdefgh')).toBeUndefined()
  })

  test('content-addressed: equal files are stored once; a PUT under the same id replaces the content', () => {
    const dir = tempDir()
    const cache = createFileCache(dir, () => 1 << 20)
    cache.put(1, 'id000001', Buffer.from('same'))
    cache.put(1, 'id000002', Buffer.from('same'))
    expect(readdirSync(join(dir, '1', 'blobs'))).toHaveLength(1)
    cache.put(1, 'id000001', Buffer.from('new'))
    expect(cache.get(1, 'id000001')?.toString()).toBe('new')
    expect(cache.get(1, 'id000002')?.toString()).toBe('same')
  })

  test('capped: the least recently used blobs go first, and their ids with them', () => {
    const dir = tempDir()
    const cache = createFileCache(dir, () => 25)
    cache.put(1, 'oldest00', Buffer.alloc(10, 'a'))
    cache.put(1, 'usedlate', Buffer.alloc(10, 'b'))
    const blobs = join(dir, '1', 'blobs')
    // make the first one the least recently used, then use the second
    for (const [i, n] of readdirSync(blobs).entries()) utimesSync(join(blobs, n), new Date(1000 + i), new Date(1000 + i))
    expect(cache.has(1, 'usedlate')).toBe(true)
    cache.put(1, 'newest00', Buffer.alloc(10, 'c'))
    expect(cache.has(1, 'newest00')).toBe(true)
    expect(cache.has(1, 'usedlate')).toBe(true)
    expect(cache.has(1, 'oldest00')).toBe(false)
  })

  test('a file id that could name a path is refused', () => {
    const cache = createFileCache(tempDir(), () => 1 << 20)
    expect(() => cache.put(1, '../x', Buffer.from('x'))).toThrow()
  })
})
