// Prints the configuration table from the config schema (the single source of truth); with --write,
// replaces the table in docs/admin/configuration.md. src/config.test.ts checks the page matches.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { configTable } from '../src/config.ts'

const table = configTable()
if (process.argv.includes('--write')) {
  const file = join(import.meta.dirname, '..', 'docs', 'admin', 'configuration.md')
  const readme = readFileSync(file, 'utf8')
  const block = /(<!-- config-table[^\n]*-->\n)[\s\S]*?(<!-- \/config-table -->)/
  if (!block.test(readme)) throw new Error('docs/admin/configuration.md has no <!-- config-table --> block')
  writeFileSync(file, readme.replace(block, (_, open: string, close: string) => `${open}${table}\n${close}`))
} else {
  console.log(table)
}
