// The tests zip of a problem upload, against what graders send and what attackers send. Zips are
// built with Python's zipfile (python3 is on every machine the setup runs on).
import { describe, expect, it } from 'vitest'
import { readTestZip, ZipRefused } from './zip.ts'
import { makeZip } from '../testing/zips.ts'

const zip = makeZip
const caps = { maxTests: 10, fileBytes: 1 << 20, totalBytes: 4 << 20 }

describe('a problem upload\'s tests zip', () => {
  it('NAME.in/NAME.out in natural order, also inside one top folder', async () => {
    for (const prefix of ['', 'tests/']) {
      const t = await readTestZip(zip([[`${prefix}10.in`, 'b'], [`${prefix}10.out`, 'B'], [`${prefix}2.in`, 'a'], [`${prefix}2.out`, 'A']]), caps)
      expect(t.map((x) => [x.name, x.input.toString(), x.output.toString()])).toEqual([['2', 'a', 'A'], ['10', 'b', 'B']])
    }
  })
  it('input/inputNN.txt + output/outputNN.txt, and NN + NN.a', async () => {
    const a = await readTestZip(zip([['input/input1.txt', 'x'], ['output/output1.txt', 'X'], ['input/', ''], ['output/', '']]), caps)
    expect(a.map((x) => x.name)).toEqual(['1'])
    const b = await readTestZip(zip([['01', 'p'], ['01.a', 'P']]), caps)
    expect(b.map((x) => x.output.toString())).toEqual(['P'])
  })
  it.each([
    ['an absolute path', [['/etc/1.in', 'x'], ['1.out', 'y']], /absolute/],
    ['a .. path', [['../1.in', 'x'], ['1.out', 'y']], /\.\./],
    ['a nested .. path', [['a/../../1.in', 'x']], /\.\./],
    ['an unpaired input', [['1.in', 'x']], /1.in has no 1.out/],
    ['an unpaired output', [['1.in', 'x'], ['1.out', 'y'], ['2.out', 'z']], /2.out has no input/],
    ['no tests at all', [['notes.txt', 'x']], /no tests/],
    // nothing is dropped without a word: a file the pairing does not know is refused, by name
    ['a file that is no test (beside real tests)', [['1.in', 'x'], ['1.out', 'y'], ['README', 'z']], /README is not a test file/],
    ['a test with a misspelt extension', [['1.in', 'x'], ['1.out', 'y'], ['2.IN', 'x']], /2.IN is not a test file/],
    ['a stray file in input/', [['input/input1.txt', 'x'], ['output/output1.txt', 'y'], ['input/1.txt', 'z']], /input\/1.txt is not a test file/],
    ['a file in another folder', [['1.in', 'x'], ['1.out', 'y'], ['extra/2.in', 'x']], /extra\/2.in is not a test file/],
    // a second entry of one name would replace the first's data
    ['two entries with the same name', [['1.in', 'x'], ['1.out', 'y'], ['1.in', 'EVIL']], /1.in: appears twice/],
    // two layouts giving one test name: a reply's test ids and output URLs could not tell them apart
    ['two tests of one name from two layouts', [['1.in', 'x'], ['1.out', 'y'], ['1', 'p'], ['1.a', 'q']], /two tests are named 1: 1.in \+ 1.out and 1 \+ 1.a/],
  ] as [string, [string, string][], RegExp][])('refuses %s', async (_, entries, message) => {
    await expect(readTestZip(zip(entries), caps)).rejects.toThrow(message)
  })
  it('refuses a link, whatever it points at', async () => {
    await expect(readTestZip(zip([['1.in', '/etc/passwd', { link: true }], ['1.out', 'y']]), caps)).rejects.toThrow(/not a regular file/)
  })
  it('refuses a zip bomb by its declared sizes, before inflating it', async () => {
    const bomb = zip([['1.in', { zeros: 64 << 20 }], ['1.out', 'y']])
    expect(bomb.length).toBeLessThan(1 << 20) // 64 MiB of zeros deflate to ~64 KiB
    await expect(readTestZip(bomb, caps)).rejects.toThrow(/larger than/)
  })
  it('refuses a zip whose declared sizes lie (the real inflated size is checked)', async () => {
    const z = zip([['1.in', { zeros: 2 << 20 }], ['1.out', 'y']])
    // rewrite the declared size of 1.in (central directory and local header) to 100 bytes
    const lied = Buffer.from(z)
    for (let i = 0; i < lied.length - 4; i++) {
      const sig = lied.readUInt32LE(i)
      if (sig === 0x04034b50 && lied.toString('utf8', i + 30, i + 34) === '1.in') lied.writeUInt32LE(100, i + 22)
      if (sig === 0x02014b50 && lied.toString('utf8', i + 46, i + 50) === '1.in') lied.writeUInt32LE(100, i + 24)
    }
    await expect(readTestZip(lied, caps)).rejects.toThrow(ZipRefused)
  })
  it('refuses more tests than allowed, and what is not a zip', async () => {
    const many = Array.from({ length: 11 }, (_, i) => [[`${i}.in`, 'x'], [`${i}.out`, 'y']] as [string, string][]).flat()
    await expect(readTestZip(zip(many), caps)).rejects.toThrow(/more than 10 tests/)
    await expect(readTestZip(Buffer.from('not a zip at all'), caps)).rejects.toThrow(/does not open/)
  })
})
