// docs/api/judge0.md's language table is written by hand: it must list the ids of JUDGE0_LANGUAGES
// in their order, each with the name GET /languages gives it for the version docs/languages.md shows
// for its code (the same machine's versions.json), its Arbiter code, and the codes that run the same.
import { describe, expect, it } from 'vitest'
import { documentedLanguages, markdownTable, readDoc } from '../testing/doc-tables.ts'
import { JUDGE0_LANGUAGES, SAME_AS } from './languages.ts'

const table = markdownTable(readDoc('api/judge0.md'), ['id', 'name', 'Arbiter code'])
const versions = documentedLanguages()

describe("docs/api/judge0.md's language table", () => {
  it('lists every id of the table once, in its order, and no other', () => {
    expect(table.map((row) => Number(row[0]))).toEqual(JUDGE0_LANGUAGES.map((e) => e.id))
  })

  it.each(JUDGE0_LANGUAGES.map((e) => [e.id, e]))('%i: the name for the documented version, the code and what runs the same', (id, e) => {
    const [, name, code] = table.find((row) => Number(row[0]) === id)!
    const version = versions.get(e.code)?.version
    expect(version, e.code).toBeDefined()
    expect(name).toBe(e.name(version!))
    expect(code.startsWith(`\`${e.code}\``), code).toBe(true)
    for (const [same, as] of Object.entries(SAME_AS)) if (as === e.code) expect(code).toContain(`also what \`${same}\` runs`)
  })
})
