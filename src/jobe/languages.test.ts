import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { loadLanguages, MANIFEST_DIR } from '../languages.ts'
import { JOBE_LANGUAGES, jobeLanguages } from './languages.ts'

describe('Jobe language names', () => {
  const manifest = loadLanguages()
  const all = jobeLanguages(manifest)

  test("every language of the manifest has one name: Jobe's for its own, the lowercase code for the rest", () => {
    expect([...new Set(all.map((l) => l.code))].sort()).toEqual([...manifest.keys()].sort())
    expect(new Set(all.map((l) => l.name)).size).toBe(all.length)
    for (const l of all) {
      const jobe = JOBE_LANGUAGES.find((j) => j.code === l.code)
      expect(l.name).toBe(jobe ? jobe.name : l.code.toLowerCase())
    }
  })

  test('a code whose lowercase form is one of Jobe\'s names does not shadow Jobe\'s language', () => {
    const node = manifest.get('JAVASCRIPT_NODE')!
    const clash = new Map(manifest).set('NODEJS', { ...node, code: 'NODEJS', aliases: [] })
    expect(jobeLanguages(clash).filter((l) => l.name === 'nodejs').map((l) => l.code)).toEqual(['JAVASCRIPT_NODE'])
  })

  test('the API page lists every name, with the manifest file each language is written to', () => {
    const doc = readFileSync(join(MANIFEST_DIR, '..', '..', 'docs', 'api', 'jobe.md'), 'utf8')
    for (const l of all) {
      if (l.fixedFileName) expect(doc, l.name).toContain(`| \`${l.name}\` | \`${l.code}\` | ${manifest.get(l.code)!.name} | \`${manifest.get(l.code)!.sourceFile}\` |`)
      else expect(doc, l.name).toContain(`| \`${l.name}\` | \`${l.code}\``)
    }
  })
})
