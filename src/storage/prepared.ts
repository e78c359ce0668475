// Statements prepared once per database connection: building and preparing a drizzle query costs
// more than running it (~1 ms of the main thread per query, measured), and the hot paths (accepting,
// claiming, completing, callbacks) run the same few queries for every submission.

/** `prepare(db)` run once per database; later calls for the same database return its first result. */
export function preparedPerDb<D extends object, T>(prepare: (db: D) => T): (db: D) => T {
  const cache = new WeakMap<D, T>()
  return (db) => {
    let s = cache.get(db)
    if (!s) cache.set(db, (s = prepare(db)))
    return s
  }
}
