// Reading the hand-written tables of docs/ in tests, so each can be compared with what it documents
// (the language manifest, the Judge0 ids): a table is found by its header row, and each row is split
// into its cells, trimmed.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const DOCS_DIR = join(import.meta.dirname, '..', '..', 'docs')

export const readDoc = (page: string) => readFileSync(join(DOCS_DIR, page), 'utf8')

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim())

/** The rows (cells) of the first table of `text` whose header is `header`, in order; throws when there is none. */
export function markdownTable(text: string, header: string[]): string[][] {
  const lines = text.split('\n')
  const at = lines.findIndex((l) => l.trim().startsWith('|') && cells(l).join('|') === header.join('|'))
  if (at < 0) throw new Error(`no table with the header | ${header.join(' | ')} |`)
  const rows: string[][] = []
  for (const line of lines.slice(at + 2)) {
    if (!line.trim().startsWith('|')) break
    rows.push(cells(line))
  }
  return rows
}

/** docs/languages.md's language table, one row per code: code → its cells. */
export function documentedLanguages(): Map<string, { aliases: string; name: string; version: string; note: string }> {
  const rows = markdownTable(readDoc('languages.md'), ['code', 'aliases', 'runs as', 'version', 'note'])
  return new Map(rows.map(([code, aliases, name, version, note]) => [code, { aliases, name, version, note }]))
}
