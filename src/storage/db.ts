// openDb(path): better-sqlite3 (WAL, foreign keys) + drizzle, migrated at open. openMemoryDb() for tests.
import Database from 'better-sqlite3'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { join } from 'node:path'
import * as schema from './schema.ts'

import type { Db } from './db-types.ts'

export type { Db }

const migrationsFolder = join(import.meta.dirname, 'migrations')

/**
 * better-sqlite3's get() steps a statement once and resets it without looking at what the reset
 * returns. A write with RETURNING outside a transaction commits at that reset, so a commit that fails
 * there (SQLITE_FULL on a full disk, a deferred foreign key) was lost while get() handed back the row
 * as if stored (sqlite3_reset's documentation warns of this). Writes are stepped to the end with all(),
 * which throws the commit's error; reads keep get(), which stops at the first row.
 */
function commitCheckedGet(sqlite: Database.Database): void {
  const prepare = sqlite.prepare.bind(sqlite)
  sqlite.prepare = ((source: string) => {
    const stmt = prepare(source)
    if (stmt.reader && !stmt.readonly) stmt.get = ((...params: unknown[]) => stmt.all(...params)[0]) as typeof stmt.get
    return stmt
  }) as typeof sqlite.prepare
}

export function openDb(path: string): Db {
  const sqlite = new Database(path)
  commitCheckedGet(sqlite)
  sqlite.pragma('journal_mode = WAL')
  // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last commits)
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  const db = drizzle(sqlite, { schema, casing: 'snake_case' }) as Db
  migrate(db, { migrationsFolder })
  return db
}

export const openMemoryDb = (): Db => openDb(':memory:')
