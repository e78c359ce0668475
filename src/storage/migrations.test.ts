// Migrations that change stored rows, not only the schema: a database written by an older release is
// migrated to what the code of this one reads.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { afterEach, expect, test } from 'vitest'
import { openDb } from './db.ts'

const migrations = join(import.meta.dirname, 'migrations')
const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

/** A database file migrated up to (and including) the migration tagged `last`, as that release left it. */
function databaseAt(last: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'))
  dirs.push(dir)
  const folder = join(dir, 'migrations')
  cpSync(migrations, folder, { recursive: true })
  const journalPath = join(folder, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] }
  const upTo = journal.entries.findIndex((e) => e.tag === last)
  expect(upTo, last).toBeGreaterThanOrEqual(0)
  journal.entries = journal.entries.slice(0, upTo + 1)
  writeFileSync(journalPath, JSON.stringify(journal))
  const file = join(dir, 'arbiter.db')
  const sqlite = new Database(file)
  migrate(drizzle(sqlite), { migrationsFolder: folder })
  sqlite.close()
  return file
}

test("Judge0's PUT callbacks, once a kind of their own, become callbacks whose method is PUT", () => {
  expect(readdirSync(migrations)).toContain('0015_callback_method.sql')
  const file = databaseAt('0014_outbox_shares')
  const old = new Database(file)
  const insert = old.prepare("insert into outbox (kind, subject_id, target, body, content_type, next_at, created_at) values (?, '1', 'http://127.0.0.1:9/cb', '{}', 'application/json', 0, 0)")
  for (const kind of ['callback_put', 'callback', 'email']) insert.run(kind)
  old.close()

  const db = openDb(file)
  expect(db.$client.prepare('select kind, method from outbox order by id').all()).toEqual([
    { kind: 'callback', method: 'PUT' },
    { kind: 'callback', method: null },
    { kind: 'email', method: null },
  ])
  db.$client.close()
})
