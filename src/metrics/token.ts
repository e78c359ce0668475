// The /metrics token: metrics.token when the config sets one, else one made at first start (or by
// `cli metrics token`) and kept in the meta table, so /metrics is closed from the first start on.
import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Config } from '../config.ts'
import type { Db } from '../storage/db.ts'
import { meta } from '../storage/schema.ts'

const KEY = 'metrics_token'

/** The stored token, made (40 hex characters' worth of randomness, base64url) on first use. */
export function storedMetricsToken(db: Db, now: Date): string {
  db.insert(meta).values({ key: KEY, value: randomBytes(24).toString('base64url'), updatedAt: now }).onConflictDoNothing().run()
  return db.select().from(meta).where(eq(meta.key, KEY)).get()!.value
}

/** The token a scrape must send: the config's, else the stored one; null when metrics.open lets anyone scrape. */
export function metricsToken(config: Pick<Config, 'metrics'>, db: Db, now: Date): string | null {
  if (config.metrics.open) return null
  return config.metrics.token || storedMetricsToken(db, now)
}
