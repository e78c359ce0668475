import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { cachedDiskUsage, measureDiskUsage } from './disk-usage.ts'

const dir = mkdtempSync(join(tmpdir(), 'arbiter-du-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('counts the bytes and files under the data directory, not what a link points to', () => {
  writeFileSync(join(dir, 'a'), 'x'.repeat(1000))
  mkdirSync(join(dir, 'resumes'))
  writeFileSync(join(dir, 'resumes', 'b.pdf'), 'y'.repeat(500))
  symlinkSync('/usr', join(dir, 'link')) // its own few bytes only
  const u = measureDiskUsage(dir)
  expect(u.data_files).toBe(3)
  expect(u.data_bytes).toBe(1500 + '/usr'.length)
  expect(u.total_bytes).toBeGreaterThan(u.free_bytes)
  expect(u.free_bytes).toBeGreaterThan(0)
})

it('remembers the answer for its ttl', () => {
  let now = 0
  const usage = cachedDiskUsage(dir, 60_000, () => now)
  const first = usage().data_bytes
  writeFileSync(join(dir, 'c'), 'z'.repeat(100))
  now = 59_000
  expect(usage().data_bytes).toBe(first)
  now = 61_000
  expect(usage().data_bytes).toBe(first + 100)
})
