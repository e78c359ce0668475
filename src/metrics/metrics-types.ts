// The metrics' contract (metrics.ts builds it), types only: deps.ts names it without loading prom-client.
import type { MiddlewareHandler } from 'hono'
import type { Registry } from 'prom-client'
import type { Pool } from '../jobs/pool-types.ts'

export interface Metrics {
  registry: Registry
  /** Counts every HTTP request by its route pattern (not the raw path) and status. */
  http: MiddlewareHandler
  /** Wraps a pool so that each job's compile and run steps are timed. */
  instrument(pool: Pool): Pool
}
