// Statements prepared once per database connection: building and preparing a drizzle query costs
// more than running it (~1 ms of the main thread per query, measured), and the hot paths (accepting,
// claiming, completing, callbacks) run the same few queries for every submission.
import type Database from 'better-sqlite3'
import { sql } from 'drizzle-orm'

/** `prepare(db)` run once per database; later calls for the same database return its first result. */
export function preparedPerDb<D extends object, T>(prepare: (db: D) => T): (db: D) => T {
  const cache = new WeakMap<D, T>()
  return (db) => {
    let s = cache.get(db)
    if (!s) cache.set(db, (s = prepare(db)))
    return s
  }
}

type Connection = { $client: Database.Database }
const transactionOf = preparedPerDb((db: Connection) => db.$client.transaction((fn: () => unknown) => fn()))

/**
 * fn in one transaction of db's connection (BEGIN … COMMIT, ROLLBACK when it throws, a savepoint when
 * one is open already): what db.transaction() does, less what drizzle's costs on every call (a
 * transaction object with a query builder for every table, and a new better-sqlite3 wrapper). fn
 * works through db and its prepared statements: a transaction belongs to the connection.
 */
export function inTransaction<T>(db: Connection, fn: () => T): T {
  return transactionOf(db)(fn) as T
}

/**
 * A LIMIT written into a prepared statement's text, for drizzle's `.limit()` (which binds it). SQLite
 * (3.53 here) counts a bound LIMIT among the values its plan depends on, so every run, which binds all
 * parameters again, compiled the whole statement again: ~7 µs for a one-table lookup, far more for the
 * claim (measured: 5.9% of the main thread's CPU on v4 jobs). A constant cannot change the plan.
 */
export const writtenLimit = (n: number): number => {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a limit: ${n}`)
  return sql.raw(String(n)) as unknown as number
}
