// openDb(path): better-sqlite3 (WAL, foreign keys) + drizzle, migrated at open. openMemoryDb() for tests.
import Database from 'better-sqlite3'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { join } from 'node:path'
import * as schema from './schema.ts'

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database }

const migrationsFolder = join(import.meta.dirname, 'migrations')

export function openDb(path: string): Db {
  const sqlite = new Database(path)
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
