import { execFileSync } from 'node:child_process'
import { chownSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { copyMeasured, copyTree, DEFAULT_TREE_BOUNDS, measureTree, TreeRefused } from './copy-tree.ts'

const scratch = () => mkdtempSync(join(tmpdir(), 'arbiter-copytree-'))
const dirs: string[] = []
// rm -rf, not rmSync: the deep chain below is longer than a path may be, and rm walks by descriptors
afterAll(() => dirs.forEach((d) => execFileSync('rm', ['-rf', d])))

describe('copyTree: what a compile step left, copied out of the box and back', async () => {
  const dir = scratch()
  dirs.push(dir)
  const from = join(dir, 'box')
  mkdirSync(join(from, 'classes', 'pkg'), { recursive: true })
  writeFileSync(join(from, 'main'), Buffer.alloc(5000, 1), { mode: 0o4755 }) // setuid: must not survive
  writeFileSync(join(from, 'classes', 'pkg', 'A.class'), 'cafebabe')
  // what a hostile compile step could leave: links to host files, a FIFO, a socket, a device
  symlinkSync('/etc/shadow', join(from, 'shadow'))
  symlinkSync('/etc', join(from, 'etcdir'))
  symlinkSync('classes/pkg/A.class', join(from, 'rel'))
  execFileSync('mkfifo', [join(from, 'fifo')])
  execFileSync('mknod', [join(from, 'null'), 'c', '1', '3'])
  const server = createServer()
  await new Promise<void>((r) => server.listen(join(from, 'sock'), r))
  server.close()

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
    const kept = join(dir, 'kept-root')
    copyTree(from, kept)
    expect(statSync(join(kept, 'main')).uid).toBe(0)
  })

  it('copies links as links, never following them or rewriting their targets', () => {
    expect(lstatSync(join(to, 'shadow')).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(to, 'shadow'))).toBe('/etc/shadow')
    expect(lstatSync(join(to, 'etcdir')).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(to, 'rel'))).toBe('classes/pkg/A.class')
  })

  it('leaves out FIFOs, sockets and devices, and counts what a tmpfs takes', () => {
    for (const special of ['fifo', 'null', 'sock']) expect(() => lstatSync(join(to, special))).toThrow(/ENOENT/)
    expect(size).toEqual({ bytes: (2 + 1) * 4096, inodes: 7 }) // main: 2 pages, A.class: 1
  })

  it('never writes through a name that is already there (a link is not followed)', () => {
    const again = join(dir, 'again')
    mkdirSync(again)
    const target = join(dir, 'target')
    writeFileSync(target, 'untouched')
    symlinkSync(target, join(again, 'main'))
    expect(() => copyTree(from, again)).toThrow(/EEXIST/)
    expect(readFileSync(target, 'utf8')).toBe('untouched')
  })
})

describe('copyTree: bounds checked before a byte is copied', () => {
  it('a sparse file is refused by its allocated blocks, and nothing is written', () => {
    const dir = scratch()
    dirs.push(dir)
    mkdirSync(join(dir, 'box'))
    writeFileSync(join(dir, 'box', 'a.out'), 'x')
    truncateSync(join(dir, 'box', 'a.out'), 200 << 20) // 200 MB long, one block written
    expect(() => copyTree(join(dir, 'box'), join(dir, 'out'))).toThrow(TreeRefused)
    expect(() => lstatSync(join(dir, 'out'))).toThrow(/ENOENT/)
  })

  it('a total over the cap, or too many files, is refused', () => {
    const dir = scratch()
    dirs.push(dir)
    mkdirSync(join(dir, 'box'))
    writeFileSync(join(dir, 'box', 'big'), Buffer.alloc(3 << 20, 7))
    expect(() => copyTree(join(dir, 'box'), join(dir, 'out'), { ...DEFAULT_TREE_BOUNDS, maxBytes: 1 << 20 })).toThrow(/more than 1048576 bytes/)
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'box', `f${i}`), '')
    expect(() => copyTree(join(dir, 'box'), join(dir, 'out'), { ...DEFAULT_TREE_BOUNDS, maxInodes: 10 })).toThrow(/more than 10 files/)
  })

  it('a file with 60 names is copied once and linked, and counted once', () => {
    const dir = scratch()
    dirs.push(dir)
    mkdirSync(join(dir, 'box'))
    writeFileSync(join(dir, 'box', 'one'), Buffer.alloc(1 << 20, 1))
    for (let i = 0; i < 60; i++) linkSync(join(dir, 'box', 'one'), join(dir, 'box', `l${i}`))
    const size = copyTree(join(dir, 'box'), join(dir, 'out'))
    expect(size).toEqual({ bytes: 1 << 20, inodes: 1 })
    expect(statSync(join(dir, 'out', 'l59')).ino).toBe(statSync(join(dir, 'out', 'one')).ino)
    expect(statSync(join(dir, 'out', 'one')).nlink).toBe(61)
  })

  it('a 2,600-deep folder chain is refused by depth, without recursion or a path too long', () => {
    const dir = scratch()
    dirs.push(dir)
    mkdirSync(join(dir, 'box'))
    // (a shell's cd keeps the whole path and fails past PATH_MAX; chdir to a relative name does not)
    execFileSync('python3', ['-c', 'import os,sys\nos.chdir(sys.argv[1])\nfor _ in range(2600):\n  os.mkdir("a"); os.chdir("a")', join(dir, 'box')])
    expect(() => copyTree(join(dir, 'box'), join(dir, 'out'))).toThrow(/deeper than 32/)
    expect(() => lstatSync(join(dir, 'out'))).toThrow(/ENOENT/)
    // within a looser depth bound, the path length bound still stops it first
    expect(() => measureTree(join(dir, 'box'), { ...DEFAULT_TREE_BOUNDS, maxDepth: 10_000 })).toThrow(/longer than 1024 bytes/)
  })

  it('a file swapped for a link or another file after it was measured is refused, not followed', () => {
    const dir = scratch()
    dirs.push(dir)
    const box = join(dir, 'box')
    mkdirSync(box)
    writeFileSync(join(box, 'input'), 'mine')
    const measured = measureTree(box)
    renameSync(join(box, 'input'), join(dir, 'moved'))
    symlinkSync('/etc/passwd', join(box, 'input'))
    expect(() => copyMeasured(box, join(dir, 'out'), measured)).toThrow(TreeRefused)
    execFileSync('rm', [join(box, 'input')])
    writeFileSync(join(box, 'input'), 'a file')
    const measured2 = measureTree(box)
    renameSync(join(box, 'input'), join(dir, 'moved2'))
    writeFileSync(join(box, 'input'), 'another inode')
    expect(() => copyMeasured(box, join(dir, 'out2'), measured2)).toThrow(TreeRefused)
  })
})
