import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { measureTree } from '../sandbox/copy-tree.ts'
import { compileCacheKey, evict, lookupCompiled as lookup, storeCompiled as storeWith, type CompiledOutput } from './compile-cache.ts'

const CAP = 1 << 16
const NO_OUTPUT: CompiledOutput = { stdout: '', stderr: '' }
const store = (dir: string, key: string, box: string, maxBytes: number, measured: ReturnType<typeof measureTree>) => storeWith(dir, key, box, maxBytes, measured, NO_OUTPUT)
const storeCompiled = (dir: string, key: string, box: string, maxBytes: number, output = NO_OUTPUT) => storeWith(dir, key, box, maxBytes, measureTree(box), output)
const lookupCompiled = (dir: string, key: string) => lookup(dir, key, CAP)

describe('the compile cache', () => {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-ccache-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const base = { scope: 'client:1', version: '14.2.0@1', language: 'C', argv: ['gcc', '-O2', 'main.c'], limits: { cpuTimeSec: 10 }, source: 'int main(){}' }

  it('a key changes with whose compile it is, the toolchain version, the language, the command, the limits and the source', () => {
    const k = compileCacheKey(base)
    expect(k).toMatch(/^[0-9a-f]{64}$/)
    expect(compileCacheKey({ ...base })).toBe(k)
    for (const other of [{ scope: 'client:2' }, { scope: '' }, { version: '14.2.0@2' }, { language: 'CPP' }, { argv: ['gcc', '-O0', 'main.c'] }, { limits: { cpuTimeSec: 1 } }, { source: 'int main(){ }' }])
      expect(compileCacheKey({ ...base, ...other }), JSON.stringify(other)).not.toBe(k)
  })

  const box = (name: string, bytes: number) => {
    const dir = join(root, 'boxes', name)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'main'), Buffer.alloc(bytes, 7))
    writeFileSync(join(dir, 'main.c'), name)
    return dir
  }

  it('stores a tree and finds it again; a miss is undefined', () => {
    const dir = join(root, 'cache1')
    storeCompiled(dir, 'a'.repeat(64), box('a', 10_000), 1 << 20)
    const hit = lookupCompiled(dir, 'a'.repeat(64))
    expect(hit?.size).toEqual({ bytes: 3 * 4096 + 4096, inodes: 2 })
    expect(readFileSync(join(hit!.tree, 'main.c'), 'utf8')).toBe('a')
    expect(lookupCompiled(dir, 'b'.repeat(64))).toBeUndefined()
  })

  it('evicts the least recently used beyond max_bytes; a lookup counts as a use', () => {
    const dir = join(root, 'cache2')
    const entry = 4 * 4096 // 3 pages of program, 1 of source
    const keys = ['1', '2', '3'].map((c) => c.repeat(64))
    const at = (s: number) => new Date(Date.now() - s * 1000)
    storeCompiled(dir, keys[0], box('one', 10_000), 2 * entry)
    utimesSync(join(dir, keys[0]), at(30), at(30))
    storeCompiled(dir, keys[1], box('two', 10_000), 2 * entry)
    utimesSync(join(dir, keys[1]), at(20), at(20))
    lookupCompiled(dir, keys[0]) // one is now the most recently used
    storeCompiled(dir, keys[2], box('three', 10_000), 2 * entry)
    expect(lookupCompiled(dir, keys[1]), 'the least recently used is gone').toBeUndefined()
    expect(lookupCompiled(dir, keys[0])).toBeDefined()
    expect(lookupCompiled(dir, keys[2])).toBeDefined()
  })

  it("the compile's output is kept with the program and given back on every hit, as it was printed", () => {
    const dir = join(root, 'cache-out')
    const warned = { stdout: 'note: from stdout\n', stderr: "main.c:1:5: warning: unused variable 'x' [-Wunused-variable]\n \u0001 é\n", textCut: true }
    storeCompiled(dir, 'e'.repeat(64), box('warned', 1000), 1 << 20, warned)
    expect(lookupCompiled(dir, 'e'.repeat(64))?.output).toEqual(warned)
    expect(lookupCompiled(dir, 'e'.repeat(64))?.output, 'the second hit too').toEqual(warned)
    storeCompiled(dir, 'f'.repeat(64), box('quiet', 1000), 1 << 20)
    expect(lookupCompiled(dir, 'f'.repeat(64))?.output).toEqual({ stdout: '', stderr: '' })
  })

  it('an entry kept before the output was (a tree and size.json only) is never found: its key is not made any more, and under a key that is made it is a miss, replaced by the next store', () => {
    // the key as it was made before the layout was part of it: a lookup never asks for it
    const before = createHash('sha256')
      .update(JSON.stringify([base.scope, base.version, base.language, base.argv, base.limits, createHash('sha256').update(base.source).digest('hex')]))
      .digest('hex')
    expect(compileCacheKey(base)).not.toBe(before)
    const dir = join(root, 'cache-old')
    const key = compileCacheKey(base)
    storeCompiled(dir, key, box('old', 1000), 1 << 20)
    rmSync(join(dir, key, 'output.json')) // as the old layout wrote it
    const used = new Date(Date.now() - 60_000)
    utimesSync(join(dir, key), used, used)
    expect(lookupCompiled(dir, key), 'no output kept: compiled again, never an empty output').toBeUndefined()
    expect(statSync(join(dir, key)).mtimeMs, 'a miss is not a use').toBeLessThan(Date.now() - 30_000)
    const warned = { stdout: '', stderr: 'warning: again\n' }
    storeCompiled(dir, key, box('new', 1000), 1 << 20, warned)
    const hit = lookupCompiled(dir, key)
    expect(hit?.output).toEqual(warned)
    expect(readFileSync(join(hit!.tree, 'main.c'), 'utf8')).toBe('new')
    expect(readdirSync(dir), 'the old entry went, nothing left beside').toEqual([key])
  })

  it('an output.json larger than texts read back up to the output cap could make, or not of its shape, is a miss', () => {
    const dir = join(root, 'cache-bad')
    const bad = (name: string, text: string | Buffer) => {
      const key = createHash('sha256').update(name).digest('hex')
      storeCompiled(dir, key, box(name, 1000), 1 << 20)
      writeFileSync(join(dir, key, 'output.json'), text)
      return key
    }
    expect(lookupCompiled(dir, bad('huge', JSON.stringify({ stdout: 'x'.repeat(13 * CAP), stderr: '' })))).toBeUndefined()
    expect(lookupCompiled(dir, bad('shape', JSON.stringify({ stdout: 1, stderr: '' })))).toBeUndefined()
    expect(lookupCompiled(dir, bad('cut', JSON.stringify({ stdout: '', stderr: '', textCut: 'yes' })))).toBeUndefined()
    expect(lookupCompiled(dir, bad('json', '{'))).toBeUndefined()
    // a link in its place is not followed
    const key = bad('link', '')
    rmSync(join(dir, key, 'output.json'))
    writeFileSync(join(root, 'elsewhere.json'), JSON.stringify({ stdout: 'not kept here', stderr: '' }))
    symlinkSync(join(root, 'elsewhere.json'), join(dir, key, 'output.json'))
    expect(lookupCompiled(dir, key)).toBeUndefined()
    // at the bound: every byte of both streams a control character, as JSON writes them
    const worst = bad('worst', JSON.stringify({ stdout: '\u0001'.repeat(CAP), stderr: '\u0001'.repeat(CAP), textCut: true }))
    expect(lookupCompiled(dir, worst)?.output.stdout).toHaveLength(CAP)
  })

  it('a program larger than the whole cache is not kept', () => {
    const dir = join(root, 'cache3')
    storeCompiled(dir, 'c'.repeat(64), box('big', 100_000), 50_000)
    expect(lookupCompiled(dir, 'c'.repeat(64))).toBeUndefined()
  })

  it('the temporary folder goes whatever happens: a file changed after it was measured is not kept, and leaves nothing', () => {
    const dir = join(root, 'cache4')
    mkdirSync(dir)
    const b = box('swapped', 5000)
    const measured = measureTree(b)
    renameSync(join(b, 'main'), join(root, 'main-moved'))
    symlinkSync('/etc/passwd', join(b, 'main'))
    store(dir, 'd'.repeat(64), b, 1 << 20, measured)
    expect(lookupCompiled(dir, 'd'.repeat(64))).toBeUndefined()
    expect(readdirSync(dir)).toEqual([])
  })

  it('what a killed worker left (an old temporary folder) is removed by the next eviction; a fresh one is not', () => {
    const dir = join(root, 'cache5')
    mkdirSync(join(dir, '.new-1-old', 'tree'), { recursive: true })
    mkdirSync(join(dir, '.new-2-fresh', 'tree'), { recursive: true })
    const old = new Date(Date.now() - 2 * 3600_000)
    utimesSync(join(dir, '.new-1-old'), old, old)
    evict(dir, 1 << 20)
    expect(readdirSync(dir)).toEqual(['.new-2-fresh'])
  })
})

describe('the compile cache, kept by many', () => {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-ccache-many-'))
  // 2,000 folders to remove: seconds on a loaded disk
  afterAll(() => rmSync(root, { recursive: true, force: true }), 120_000)

  it('a store does not read every entry: with 2,000 kept, a scan comes once the total passes max_bytes, not with every store', { timeout: 120_000 }, () => {
    const dir = join(root, 'cache')
    mkdirSync(dir)
    const entry = 2 * 4096
    // entries other workers kept: a folder and its size each, as storeCompiled writes them
    for (let i = 0; i < 2000; i++) {
      const name = createHash('sha256').update(`old ${i}`).digest('hex')
      mkdirSync(join(dir, name, 'tree'), { recursive: true })
      writeFileSync(join(dir, name, 'size.json'), JSON.stringify({ bytes: entry, inodes: 1 }))
    }
    const b = join(root, 'box')
    mkdirSync(b)
    writeFileSync(join(b, 'main'), Buffer.alloc(5000, 1))
    const key = (i: number) => createHash('sha256').update(`new ${i}`).digest('hex')
    const maxBytes = 2100 * entry
    // a probe only a scan removes: an hour-old temporary folder, as a killed worker leaves
    const probe = () => {
      mkdirSync(join(dir, '.new-probe'), { recursive: true })
      const old = new Date(Date.now() - 2 * 3600_000)
      utimesSync(join(dir, '.new-probe'), old, old)
    }
    const scanned = () => !readdirSync(dir).includes('.new-probe')
    probe()
    store(dir, key(0), b, maxBytes, measureTree(b))
    expect(scanned(), 'the first store scans: nothing is known of the folder yet').toBe(true)
    probe()
    for (let i = 1; i < 99; i++) store(dir, key(i), b, maxBytes, measureTree(b))
    expect(scanned(), '98 stores later (2,099 entries, under max_bytes): no scan').toBe(false)
    for (let i = 99; i < 110; i++) store(dir, key(i), b, maxBytes, measureTree(b))
    expect(scanned(), 'past max_bytes: scanned').toBe(true)
    const kept = readdirSync(dir).filter((n) => /^[0-9a-f]{64}$/.test(n)).length
    expect(kept * entry).toBeLessThanOrEqual(maxBytes)
    // the newest are kept: the oldest went first
    expect(lookupCompiled(dir, key(109))).toBeDefined()
  })
})
