import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readTestDir } from './test-dir.ts'
import { makeTree } from '../testing/zips.ts'

describe('readTestDir: the three layouts, natural order, unpaired files refused', () => {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-testdir-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const make = (name: string, files: Record<string, string>) => makeTree(root, name, files)

  it('NAME.in + NAME.out, 2 before 10', () => {
    const dir = make('inout', { '10.in': 'b', '10.out': 'B', '2.in': 'a', '2.out': 'A', 'notes.txt': 'ignored' })
    expect(readTestDir(dir)).toEqual([{ name: '2', input: 'a', expectedOutput: 'A' }, { name: '10', input: 'b', expectedOutput: 'B' }])
  })
  it('input/inputNN.txt + output/outputNN.txt', () => {
    const dir = make('folders', { 'input/input10.txt': 'y', 'output/output10.txt': 'Y', 'input/input9.txt': 'x', 'output/output9.txt': 'X' })
    expect(readTestDir(dir).map((t) => [t.name, t.input, t.expectedOutput])).toEqual([['9', 'x', 'X'], ['10', 'y', 'Y']])
  })
  it('NN + NN.a', () => {
    const dir = make('polygon', { '01': 'p', '01.a': 'P', '02': 'q', '02.a': 'Q' })
    expect(readTestDir(dir).map((t) => t.name)).toEqual(['01', '02'])
  })
  it('refuses unpaired files and empty folders', () => {
    expect(() => readTestDir(make('lonely-in', { '1.in': '' }))).toThrow(/1.in has no 1.out/)
    expect(() => readTestDir(make('lonely-out', { '1.in': '', '1.out': '', '2.out': '' }))).toThrow(/2.out has no input/)
    expect(() => readTestDir(make('lonely-a', { '3.a': '' }))).toThrow(/3.a has no input/)
    expect(() => readTestDir(make('folders-unpaired', { 'input/input1.txt': '', 'output/output2.txt': '' }))).toThrow(/has no output/)
    expect(() => readTestDir(make('empty', { 'readme.md': '' }))).toThrow(/no tests/)
  })
  it('refuses a link, FIFO or device where a test file is expected, by name, without following or blocking on it', () => {
    const linked = make('linked', { '1.out': 'x' })
    symlinkSync('/etc/hostname', join(linked, '1.in'))
    expect(() => readTestDir(linked)).toThrow(/1.in is a link or special file/)
    const fifo = make('fifo', { '1.in': 'x' })
    execFileSync('mkfifo', [join(fifo, '1.out')])
    expect(() => readTestDir(fifo)).toThrow(/1.out is a link or special file/)
    const device = make('device', { '1.in': 'x' })
    execFileSync('mknod', [join(device, '1.out'), 'c', '1', '5'])
    expect(() => readTestDir(device)).toThrow(/1.out is a link or special file/)
    const linkedFolder = make('linked-folder', { 'output/output1.txt': 'x' })
    symlinkSync('/etc', join(linkedFolder, 'input'))
    expect(() => readTestDir(linkedFolder)).toThrow(/input is a link or special file/)
  })
  it('refuses a file over the cap, and one that is not UTF-8 (its bytes could not be judged as written)', () => {
    expect(() => readTestDir(make('large', { '1.in': 'x'.repeat(100), '1.out': '' }), 50)).toThrow(/1.in: .*larger than 50 bytes/)
    const binary = make('binary', { '1.in': '' })
    writeFileSync(join(binary, '1.out'), Buffer.from([0xff, 0xfe]))
    expect(() => readTestDir(binary)).toThrow(/1.out is not UTF-8 text/)
  })
})
