import { execFileSync } from 'node:child_process'
import { chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { copyTree } from './copy-tree.ts'

describe('copyTree: what a compile step left, copied out of the box and back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-copytree-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const from = join(dir, 'box')
  mkdirSync(join(from, 'classes', 'pkg'), { recursive: true })
  writeFileSync(join(from, 'main'), Buffer.alloc(5000, 1), { mode: 0o4755 }) // setuid: must not survive
  writeFileSync(join(from, 'classes', 'pkg', 'A.class'), 'cafebabe')
  // what a hostile compile step could leave: links to host files, a FIFO
  symlinkSync('/etc/shadow', join(from, 'shadow'))
  symlinkSync('classes/pkg/A.class', join(from, 'rel'))
  execFileSync('mkfifo', [join(from, 'fifo')])

  // a box: its root belongs to the slot's jail uid (the supervisor mounts its tmpfs so)
  const to = join(dir, 'box2')
  mkdirSync(to)
  chownSync(to, 2_000_000_007, 2_000_000_007)
  const size = copyTree(from, to)

  it("copies folders and files, with modes but no setuid, owned by the destination's owner (a box's: the slot's jail uid)", () => {
    expect(readFileSync(join(to, 'classes', 'pkg', 'A.class'), 'utf8')).toBe('cafebabe')
    const st = statSync(join(to, 'main'))
    expect(st.mode & 0o7777).toBe(0o755)
    expect([st.uid, st.gid]).toEqual([2_000_000_007, 2_000_000_007])
    expect(lstatSync(join(to, 'classes', 'pkg')).uid).toBe(2_000_000_007)
    expect(lstatSync(join(to, 'shadow')).uid).toBe(2_000_000_007)
  })

  it('into a folder of root (kept outside the box, the compile cache), root keeps them', () => {
    const kept = join(dir, 'kept')
    copyTree(from, kept)
    expect(statSync(join(kept, 'main')).uid).toBe(0)
  })

  it('copies links as links, never following them or rewriting their targets', () => {
    expect(lstatSync(join(to, 'shadow')).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(to, 'shadow'))).toBe('/etc/shadow')
    expect(readlinkSync(join(to, 'rel'))).toBe('classes/pkg/A.class')
  })

  it('leaves out FIFOs and other special files, and counts what a tmpfs takes', () => {
    expect(() => lstatSync(join(to, 'fifo'))).toThrow(/ENOENT/)
    expect(size).toEqual({ bytes: (2 + 1) * 4096, inodes: 6 }) // main: 2 pages, A.class: 1
  })
})
