// What main.ts builds and tests fake: everything a service needs, passed explicitly.
import type { Config } from './config.ts'
import type { Dispatcher } from './evaluation/dispatcher-types.ts'
import type { Protocols } from './evaluation/protocols.ts'
import type { Outbox } from './jobs/outbox.ts'
import type { Pool } from './jobs/pool-types.ts'
import type { Language } from './languages.ts'
import type { Log } from './log.ts'
import type { Metrics } from './metrics/metrics.ts'
import type { Db } from './storage/db.ts'
import type { RemoteStatus } from './sandbox-hosts/remote-pool.ts'
import type { SimilarityQueue } from './similarity/queue-types.ts'

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
  similarity?: SimilarityQueue
  /** The clock, so tests can move time. */
  now: () => Date
}
