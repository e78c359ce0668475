// GET /metrics in Prometheus' text format (prom-client). Counts that the database already holds
// (submissions by state, verdict and language; queue depth and age; outbox backlog; interviews by status)
// are read from it at scrape time, so they survive restarts and never drift; what only passes through
// (step durations, HTTP requests) is counted as it happens.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Config } from '../config.ts'
import type { Db } from '../storage/db.ts'
import type { Pool } from '../jobs/pool-types.ts'
import type { RemoteStatus } from '../sandbox-hosts/status-types.ts'
import type { Metrics } from './metrics-types.ts'
import { statusAt } from '../interviews/status.ts'
import { interviews, outboxCounts, submissionCounts, submissions } from '../storage/schema.ts'
import { count, eq, gt, inArray, isNull, min } from 'drizzle-orm'
import { STORAGE_CAUSES, storageFaultCounts } from '../storage/faults.ts'
import { CORE_PHASES, corePhaseTotals } from '../evaluation/phases.ts'
import { connectionRefusals } from '../http/connection-guard.ts'
import { bodyBudgetRefusals, bodyBytesArriving } from '../http/body-budget.ts'

export interface MetricsDeps {
  config: Pick<Config, 'interviews'>
  db: Db
  pool: Pool
  /** Sandbox hosts through Redis, when queue.redis_url is set. */
  sandboxHosts?: { status(): RemoteStatus }
  now: () => Date
}

export type { Metrics }

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** The states a submission is counted in from its row, not from submission_counts. */
const NOT_COMPLETED = submissions.state.enumValues.filter((s) => s !== 'completed')

export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'arbiter_process_' })
  const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge) => void) =>
    new Gauge({ name, help, labelNames, registers: [registry], collect() { this.reset(); collect(this) } })

  gauge('arbiter_submissions', 'Submissions stored, by state, verdict (completed ones) and language.', ['state', 'verdict', 'language'], (g) => {
    // completed rows: the counts their triggers keep (storage/schema.ts submissionCounts), since grouping
    // the table took the main thread 1.7 s a scrape at a million rows; the others, few, through the claim index
    for (const r of deps.db.select().from(submissionCounts).where(gt(submissionCounts.n, 0)).all())
      g.set({ state: 'completed', verdict: r.verdict, language: r.language }, r.n)
    const open = deps.db
      .select({ state: submissions.state, language: submissions.language, n: count() })
      .from(submissions)
      .where(inArray(submissions.state, NOT_COMPLETED))
      .groupBy(submissions.state, submissions.language)
      .all()
    for (const r of open) g.set({ state: r.state, verdict: '', language: r.language }, r.n)
  })
  gauge('arbiter_queue_depth', 'Submissions waiting for a pool slot.', [], (g) => {
    g.set(deps.db.select({ n: count() }).from(submissions).where(eq(submissions.state, 'queued')).get()?.n ?? 0)
  })
  gauge('arbiter_queue_oldest_age_seconds', 'Age of the oldest queued submission (0 when none waits).', [], (g) => {
    const oldest = deps.db.select({ t: min(submissions.createdAt) }).from(submissions).where(eq(submissions.state, 'queued')).get()?.t
    g.set(oldest ? Math.max(0, (deps.now().getTime() - new Date(oldest).getTime()) / 1000) : 0)
  })
  gauge('arbiter_pool_busy_slots', 'Pool slots running a job now.', [], (g) => g.set(deps.pool.busy))
  gauge('arbiter_pool_slots', 'Pool slots in all.', [], (g) => g.set(deps.pool.size))
  if (deps.sandboxHosts) {
    const hosts = deps.sandboxHosts
    gauge('arbiter_redis_up', 'Whether Redis (queue.redis_url) answers: 1 or 0.', [], (g) => g.set(hosts.status().redis === 'ok' ? 1 : 0))
    gauge('arbiter_sandbox_hosts', 'Live sandbox hosts (their adverts in Redis).', [], (g) => g.set(hosts.status().hosts.length))
    gauge('arbiter_sandbox_host_slots', 'Slots of the live sandbox hosts in all.', [], (g) => g.set(hosts.status().slots))
    gauge('arbiter_jobs_out', 'Jobs handed to sandbox hosts and not yet answered.', [], (g) => g.set(hosts.status().out))
  }
  gauge('arbiter_outbox_deliveries', 'Outbox deliveries by kind and state (pending = the backlog, failed = given up).', ['kind', 'state'], (g) => {
    // the counts the rows' triggers keep (storage/schema.ts outboxCounts): the outbox keeps its delivered rows
    for (const r of deps.db.select().from(outboxCounts).where(gt(outboxCounts.n, 0)).all()) g.set({ kind: r.kind, state: r.state }, r.n)
  })
  gauge('arbiter_interviews', 'Interviews (not deleted) by status.', ['status'], (g) => {
    const maxMs = deps.config.interviews.max_duration_min * 60_000
    const counts = { upcoming: 0, ongoing: 0, completed: 0 }
    const rows = deps.db
      .select({ startAt: interviews.startAt, startedAt: interviews.startedAt, endedAt: interviews.endedAt })
      .from(interviews)
      .where(isNull(interviews.deletedAt))
      .all()
    for (const r of rows) counts[statusAt(r, deps.now(), maxMs)]++
    for (const [status, n] of Object.entries(counts)) g.set({ status }, n)
  })

  new Counter({
    name: 'arbiter_storage_faults_total',
    help: 'Storage faults since start by cause (disk_full, read_only, permission, io_error): writes the data disk refused; clients were told to try later.',
    labelNames: ['cause'],
    registers: [registry],
    collect() {
      this.reset()
      for (const cause of STORAGE_CAUSES) this.inc({ cause }, storageFaultCounts()[cause])
    },
  })

  new Counter({
    name: 'arbiter_http_connections_refused_total',
    help: "Connections closed since start by reason: per_address (503: the address held server.max_connections_per_address), first_request_timeout (408: no request's headers within server.first_request_timeout_sec).",
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [reason, n] of Object.entries(connectionRefusals())) this.inc({ reason }, n)
    },
  })
  new Counter({
    name: 'arbiter_http_bodies_refused_total',
    help: "Request bodies refused (429) since start because the bodies their address was still sending held server.body_bytes_in_flight_per_address, or their share of server.body_bytes_in_flight.",
    registers: [registry],
    collect() {
      this.reset()
      this.inc(bodyBudgetRefusals())
    },
  })
  new Gauge({
    name: 'arbiter_http_body_bytes_arriving',
    help: 'Bytes held now by request bodies still being received, all addresses together.',
    registers: [registry],
    collect() {
      this.set(bodyBytesArriving())
    },
  })

  // where a submission's time goes (evaluation/phases.ts): sums and counts since start, no names
  new Counter({
    name: 'arbiter_core_phase_seconds_total',
    help: "Seconds spent in each phase of the submission core since start: accept (checks, stored files, insert), queued (accept to claim), claim, pool (the pool's round trip, the jailed steps included), store (the result and its callbacks).",
    labelNames: ['phase'],
    registers: [registry],
    collect() {
      this.reset()
      for (const phase of CORE_PHASES) this.inc({ phase }, corePhaseTotals()[phase].seconds)
    },
  })
  new Counter({
    name: 'arbiter_core_phase_total',
    help: 'How many times each phase of the submission core ran since start (see arbiter_core_phase_seconds_total).',
    labelNames: ['phase'],
    registers: [registry],
    collect() {
      this.reset()
      for (const phase of CORE_PHASES) this.inc({ phase }, corePhaseTotals()[phase].count)
    },
  })

  const steps = new Histogram({
    name: 'arbiter_step_duration_seconds',
    help: 'Wall-clock time of jailed steps, by kind (compile, run) and language.',
    labelNames: ['step', 'language'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  })
  const requests = new Counter({
    name: 'arbiter_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  })
  const requestSeconds = new Counter({
    name: 'arbiter_http_request_seconds_total',
    help: "Seconds from a request reaching the app to its reply being built, by route pattern (a synchronous run's wait included).",
    labelNames: ['route'],
    registers: [registry],
  })

  return {
    registry,
    http: async (c, next) => {
      const t0 = performance.now()
      await next()
      // the matched pattern (/v4/…/submissions/:heId), never the raw path: ids would explode the series
      const route = c.req.routePath && c.res.status !== 404 ? c.req.routePath : 'unmatched'
      requests.inc({ method: c.req.method, route, status: String(c.res.status) })
      requestSeconds.inc({ route }, (performance.now() - t0) / 1000)
    },
    instrument(pool) {
      return {
        get busy() {
          return pool.busy
        },
        get size() {
          return pool.size
        },
        reconfigure: (config: Config) => pool.reconfigure(config),
        available: () => pool.available(),
        onCapacity: (fn: () => void) => pool.onCapacity(fn),
        resumesInFlight: pool.resumesInFlight,
        close: () => pool.close(),
        async run(job, hooks) {
          const result = await pool.run(job, hooks)
          // a compile from the cache ran no step (its step is the kept compile's replay)
          if (result.compile.step && !result.compile.cached) steps.observe({ step: 'compile', language: job.language }, result.compile.step.wallSec)
          // a repeated run (Judge0's number_of_runs) is that many jailed steps
          if (result.run) for (const r of result.repeats ?? [result.run]) steps.observe({ step: 'run', language: job.language }, r.wallSec)
          return result
        },
      }
    },
  }
}
