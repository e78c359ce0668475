// The database handle's type (db.ts opens it), types only: deps.ts names it without loading the driver.
import type Database from 'better-sqlite3'
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import type * as schema from './schema.ts'

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database }
