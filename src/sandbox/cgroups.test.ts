import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { detectCgroups } from './cgroups.ts'

const made: string[] = []
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

const fakeRoot = (files: Record<string, string>) => {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-cg-'))
  made.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

describe('detectCgroups', () => {
  it('finds v2 when the unified hierarchy offers memory', () => {
    const info = detectCgroups(fakeRoot({ 'cgroup.controllers': 'cpuset cpu io memory pids\n' }))
    expect(info.version).toBe('v2')
    expect(info.detail).toBe('unified hierarchy')
  })

  it('finds v1 controllers, with or without swap accounting', () => {
    const base = { 'memory/memory.limit_in_bytes': '', 'pids/pids.max': '', 'cpuacct/cpuacct.usage': '' }
    expect(detectCgroups(fakeRoot(base))).toMatchObject({ version: 'v1', swapAccounting: false })
    expect(detectCgroups(fakeRoot({ ...base, 'memory/memory.memsw.limit_in_bytes': '' }))).toMatchObject({ version: 'v1', swapAccounting: true })
  })

  it('prefers v1 controllers when the unified hierarchy has no memory controller (hybrid hosts)', () => {
    const info = detectCgroups(fakeRoot({ 'cgroup.controllers': 'cpu\n', 'memory/memory.limit_in_bytes': '' }))
    expect(info.version).toBe('v1')
    expect(info.detail).toMatch(/missing pids, cpuacct/)
  })

  it('says so when there is no memory controller at all', () => {
    expect(detectCgroups(fakeRoot({ 'cgroup.controllers': '' })).version).toBeNull()
  })
})
