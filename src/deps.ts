// What main.ts builds and tests fake: everything a service needs, passed explicitly.
import type { Config } from './config.ts'
import type { Pool } from './jobs/pool-types.ts'
import type { Language } from './languages.ts'
import type { Log } from './log.ts'
import type { Db } from './storage/db.ts'

export interface Deps {
  config: Config
  db: Db
  log: Log
  languages: Map<string, Language>
  pool: Pool
  /** The clock, so tests can move time. */
  now: () => Date
}
