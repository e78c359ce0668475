// docs/api/judge0.md's language tables are written by hand: the offered table must list every Judge0 id
// the manifest names, by id, each with the name GET /languages gives it for the version docs/languages.md
// shows for its code (the same machine's versions.json), its Arbiter code and the codes that run the same;
// "Not offered" must list every other id of Judge0 CE 1.13.1, with a reason.
import { describe, expect, it } from 'vitest'
import { loadLanguages } from '../languages.ts'
import { documentedLanguages, markdownTable, readDoc } from '../testing/doc-tables.ts'
import { JUDGE0_CE_IDS, judge0Entries, sameAs } from './languages.ts'

const page = readDoc('api/judge0.md')
const table = markdownTable(page, ['id', 'name', 'Arbiter code'])
const notOffered = markdownTable(page, ['id', "Judge0's name", 'why not'])
const versions = documentedLanguages()
const manifest = loadLanguages()
const entries = [...judge0Entries(manifest).values()].sort((a, b) => a.id - b.id)
const same = sameAs(manifest)

describe("docs/api/judge0.md's language tables", () => {
  it('lists every id of the manifest once, by id, and no other', () => {
    expect(table.map((row) => Number(row[0]))).toEqual(entries.map((e) => e.id))
  })

  it.each(entries.map((e) => [e.id, e]))('%i: the name for the documented version, the code and what runs the same', (id, e) => {
    const [, name, code] = table.find((row) => Number(row[0]) === id)!
    const version = versions.get(e.code)?.version
    expect(version, e.code).toBeDefined()
    expect(name).toBe(e.name(version!))
    expect(code.startsWith(`\`${e.code}\``), code).toBe(true)
    for (const [code2, as] of Object.entries(same)) if (as === e.code) expect(code).toContain(`also what \`${code2}\` runs`)
  })

  it("lists under Not offered, with a reason, exactly Judge0 CE 1.13.1's ids no entry claims", () => {
    const claimed = new Set(entries.map((e) => e.id))
    expect(notOffered.map((row) => Number(row[0]))).toEqual(JUDGE0_CE_IDS.filter((id) => !claimed.has(id)))
    for (const [, name, why] of notOffered) expect(name && why.length > 10, `${name}: ${why}`).toBe(true)
  })
})
