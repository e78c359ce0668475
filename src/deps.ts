// What main.ts builds and tests fake: everything a service needs, passed explicitly. Deps names contracts,
// not the modules that fill them: every import below is a types-only file (the `*-types.ts` beside each
// module, which that module imports and satisfies) but config.ts, whose Config is its zod schema's own type
// (config.ts imports nothing of src/). scripts/layers.test.ts holds this, and that no loop passes through here.
import type { Config } from './config.ts'
import type { Dispatcher } from './evaluation/dispatcher-types.ts'
import type { Protocols } from './evaluation/protocol-types.ts'
import type { Outbox } from './jobs/outbox-types.ts'
import type { Pool } from './jobs/pool-types.ts'
import type { Language } from './languages-types.ts'
import type { Log } from './log-types.ts'
import type { Metrics } from './metrics/metrics-types.ts'
import type { RemoteStatus } from './sandbox-hosts/status-types.ts'
import type { Db } from './storage/db-types.ts'

/** A loop working through a durable queue in the background (similarity reports): started, woken, stopped. */
export interface BackgroundQueue {
  start(): void
  /** Something was queued: look now. */
  wake(): void
  /** Stops the work in hand (it goes back to the queue) and waits for the loop. */
  stop(): Promise<void>
}

export interface Deps {
  config: Config
  db: Db
  log: Log
  languages: Map<string, Language>
  pool: Pool
  /** The wire protocols submissions may come from (their hooks run in the core's transactions). */
  protocols: Protocols
  /** The durable submission queue loop (evaluation/dispatcher.ts). */
  dispatcher: Dispatcher
  /** Durable deliveries: callbacks, e-mails (jobs/outbox.ts). */
  outbox: Outbox
  /** Prometheus metrics (GET /metrics); createApp makes its own when main.ts gave none (tests). */
  metrics?: Metrics
  /** Sandbox hosts through Redis (queue.redis_url), for /health. */
  sandboxHosts?: { status(): RemoteStatus }
  /** Similarity reports computed in the background (similarity/queue.ts); absent in most tests. */
  similarity?: BackgroundQueue
  /** The clock, so tests can move time. */
  now: () => Date
}
