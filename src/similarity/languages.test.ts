// The similarity families come from the manifest's `similarity` keys; docs/api/similarity.md lists them.
import { LanguagePicker } from '@dodona/dolos-lib'
import { describe, expect, it } from 'vitest'
import { loadLanguages } from '../languages.ts'
import { markdownTable, readDoc } from '../testing/doc-tables.ts'
import { similarityFamilies } from './languages.ts'

const manifest = loadLanguages()
const fam = similarityFamilies(manifest)

describe('similarity families', () => {
  it('are the Dolos parsers the manifest names, each with the codes that name it', () => {
    expect(fam.families).toEqual(expect.arrayContaining(['c', 'c-sharp', 'cpp', 'go', 'java', 'javascript', 'php', 'python', 'r', 'rust', 'scala', 'typescript']))
    expect([...fam.families].sort()).toEqual(fam.families)
    expect(fam.codesOf('python')).toEqual(['PYTHON', 'PYTHON3', 'PYTHON3_8'])
    expect(fam.familyOfCode('JAVA14')).toBe('java')
    expect(fam.familyOfCode('HASKELL')).toBeUndefined()
    expect(fam.familyOfRequest(' Python ')).toBe('python')
    expect(fam.familyOfRequest('cpp17')).toBe('cpp')
    expect(fam.familyOfRequest('cobol')).toBeUndefined()
    expect(similarityFamilies(manifest)).toBe(fam)
  })

  it('names only languages Dolos has a parser for', async () => {
    const picker = new LanguagePicker()
    for (const f of fam.families) expect((await picker.findLanguage(f)).name, f).toBe(f)
  })

  it('docs/api/similarity.md lists every family with its codes in manifest order, and codes without one are named as refused', () => {
    const rows = markdownTable(readDoc('api/similarity.md'), ['family', 'Arbiter codes'])
    expect(rows.map(([f]) => f!.replace(/`/g, '')).sort()).toEqual([...fam.families])
    for (const [f, codes] of rows) expect(codes, f).toBe(fam.codesOf(f!.replace(/`/g, '')).join(', '))
  })
})
