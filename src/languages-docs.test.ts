// docs/languages.md's language table is written by hand: it must say what the manifest
// (toolchains/languages/*.toml, through loadLanguages) says, row for row and in the manifest's order
// (the order `cli languages` lists them in). The version column is what provisioning recorded
// (versions.json) on the machine the page was written on: a version, for every code.
import { describe, expect, it } from 'vitest'
import { loadLanguages } from './languages.ts'
import { documentedLanguages, markdownTable, readDoc } from './testing/doc-tables.ts'

const manifest = loadLanguages()
const page = readDoc('languages.md')
const table = markdownTable(page, ['code', 'aliases', 'runs as', 'version', 'note'])
const documented = documentedLanguages()

describe('docs/languages.md', () => {
  it('lists every code of the manifest once, in its order, and no other', () => {
    expect(table.map((row) => row[0])).toEqual([...manifest.keys()])
  })

  it.each([...manifest.values()].map((l) => [l.code, l]))("%s: the manifest's aliases, name and note", (code, l) => {
    const row = documented.get(code)!
    expect(row.aliases).toBe(l.aliases.length ? l.aliases.join(', ') : '-')
    expect(row.name).toBe(l.name)
    expect(row.note).toBe(l.note ?? '')
    expect(row.version).toMatch(/^\d+(\.\d+)+$/)
  })

  it('counts the distinct codes as the manifest has them', () => {
    expect(page).toContain(`${manifest.size} distinct codes`)
  })
})
