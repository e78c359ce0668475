// Durable deliveries. A row is inserted in the same transaction as the state it reports (enqueueDelivery);
// this loop sends due rows through the sender registered for their kind, marks them delivered, or retries
// with exponential backoff until outbox.max_attempts. Rows left in flight by a crash are simply sent again
// (at-least-once; each carries its row id in X-Arbiter-Delivery so a receiver can drop repeats).
import { and, asc, eq, gt, lte, min, notInArray, sql } from 'drizzle-orm'
import type { Config } from '../config.ts'
import type { Log } from '../log.ts'
import type { Db } from '../storage/db.ts'
import { outbox, outboxAttempts } from '../storage/schema.ts'
import { PermanentFailure, postCallback } from './callback.ts'
import type { OutboxKind } from '../storage/outbox-kinds.ts'
import { preparedPerDb } from '../storage/prepared.ts'

export type OutboxRow = typeof outbox.$inferSelect

export interface Delivery {
  kind: OutboxKind
  /** What it is about (outbox-kinds.ts says what, per kind). */
  subjectId?: string
  target: string
  body: string
  contentType: string
  headers?: Record<string, string>
  /** Rows of a group go out in id order; a failing row is dropped once a later one of its group exists. */
  groupKey?: string
  /** A second insert with the same key is ignored. */
  dedupeKey?: string
}

/** Anything with drizzle's insert/update: the Db or a transaction. */
type Writer = Pick<Db, 'insert' | 'update'>

const p = sql.placeholder
const FIELDS = ['kind', 'subjectId', 'target', 'body', 'contentType', 'headersJson', 'groupKey', 'dedupeKey', 'nextAt', 'createdAt'] as const

// Prepared once per database (or transaction object): callbacks are enqueued on every completion.
function prepareWrites(db: Writer) {
  return {
    // drizzle binds placeholders through the columns' encoders (Date → ms); set()'s types do not say so
    supersede: db
      .update(outbox)
      .set({ state: 'superseded' })
      .where(and(eq(outbox.groupKey, p('groupKey')), eq(outbox.state, 'pending'), gt(outbox.attempts, 0)))
      .prepare(),
    insert: db
      .insert(outbox)
      .values(Object.fromEntries(FIELDS.map((k) => [k, p(k)])) as unknown as typeof outbox.$inferInsert)
      .onConflictDoNothing({ target: outbox.dedupeKey })
      .prepare(),
  }
}
const writes = preparedPerDb(prepareWrites)

/** Inserts a delivery; call it inside the transaction that commits the state it reports. */
export function enqueueDelivery(db: Writer, d: Delivery, now: Date): void {
  const w = writes(db)
  // An older row of the group that has already failed once is not worth waiting for: the new one
  // carries the newer state, so the receiver is told that instead.
  if (d.groupKey) w.supersede.run({ groupKey: d.groupKey })
  w.insert.run({
    kind: d.kind,
    subjectId: d.subjectId ?? null,
    target: d.target,
    body: d.body,
    contentType: d.contentType,
    headersJson: d.headers ? JSON.stringify(d.headers) : null,
    groupKey: d.groupKey ?? null,
    dedupeKey: d.dedupeKey ?? null,
    nextAt: now,
    createdAt: now,
  })
}

/** Queues given-up deliveries again with a fresh set of attempts: one by id, or every failed one. */
export function retryFailed(db: Pick<Db, 'update'>, now: Date, id?: number): number[] {
  const where = id !== undefined ? and(eq(outbox.id, id), eq(outbox.state, 'failed')) : eq(outbox.state, 'failed')
  return db.update(outbox).set({ state: 'pending', attempts: 0, nextAt: now }).where(where).returning({ id: outbox.id }).all().map((r) => r.id)
}

/** Sends one row; throws to fail the attempt (PermanentFailure: no retry). */
export type Sender = (row: OutboxRow) => Promise<void>

export interface Outbox {
  start(): void
  /** Something was enqueued: look for due rows now instead of at the next timer. */
  wake(): void
  /** Stops taking rows and waits for the deliveries in flight. */
  stop(): Promise<void>
  readonly inFlight: number
}

export interface OutboxDeps {
  db: Db
  log: Log
  config: Pick<Config, 'outbox'>
  now: () => Date
}

/** The sender for kind 'callback': an HTTP POST of the stored body (kind 'callback_put': a PUT). */
export function callbackSender(config: Pick<Config, 'outbox'>, method: 'POST' | 'PUT' = 'POST'): Sender {
  return (row) =>
    postCallback({
      url: row.target,
      method,
      body: row.body,
      contentType: row.contentType,
      headers: { ...(row.headersJson ? (JSON.parse(row.headersJson) as Record<string, string>) : {}), 'x-arbiter-delivery': String(row.id) },
      timeoutMs: config.outbox.timeout_ms,
      blockPrivate: config.outbox.block_private_addresses,
    })
}

export function backoffMs(attempts: number, cfg: Config['outbox'], random = Math.random): number {
  const base = cfg.backoff_ms * 2 ** Math.max(0, attempts - 1)
  return Math.min(cfg.backoff_max_ms, Math.round(base * (0.8 + 0.4 * random())))
}

/** Longest sleep between two looks at the table (a safety net; wake() is the normal trigger). */
const IDLE_POLL_MS = 30_000

export interface OutboxOptions {
  /** Kinds kept pending without being tried (e.g. 'email' while no SMTP server is configured). */
  paused?: OutboxKind[]
  /** Per-kind attempts before giving up, instead of outbox.max_attempts. */
  maxAttempts?: { [K in OutboxKind]?: number }
}

/** One sender per kind; a kind without one (e-mail with no SMTP server) waits paused or fails. */
export type Senders = { [K in OutboxKind]?: Sender }

export function createOutbox(deps: OutboxDeps, senders: Senders, opts: OutboxOptions = {}): Outbox {
  const { db, log } = deps
  const cfg = deps.config.outbox
  const notPaused = opts.paused?.length ? notInArray(outbox.kind, opts.paused) : undefined
  const flying = new Map<number, { group: string | null; done: Promise<void> }>()
  let timer: NodeJS.Timeout | undefined
  let scheduled = false
  let started = false
  let stopped = false

  // Due rows, oldest first, skipping any row that has an older pending row in its group. Prepared
  // once: the loop runs after every completion that owes a callback.
  const due = db
    .select()
    .from(outbox)
    .where(
      and(
        eq(outbox.state, 'pending'),
        notPaused,
        lte(outbox.nextAt, sql`${p('now')}`),
        sql`not exists (select 1 from outbox o2 where o2.group_key = ${outbox.groupKey} and o2.state = 'pending' and o2.id < ${outbox.id})`
      )
    )
    .orderBy(asc(outbox.id))
    .limit(p('limit'))
    .prepare()
  const nextDue = db
    .select({ at: min(outbox.nextAt) })
    .from(outbox)
    .where(and(eq(outbox.state, 'pending'), notPaused, gt(outbox.nextAt, sql`${p('now')}`)))
    .prepare()
  const delivered = db
    .update(outbox)
    .set({ state: 'delivered', attempts: sql`${outbox.attempts} + 1`, deliveredAt: p('at') as unknown as Date, lastError: null })
    .where(and(eq(outbox.id, p('id')), eq(outbox.state, 'pending')))
    .prepare()

  const finish = (row: OutboxRow, err: unknown, startedMs: number) => {
    const now = deps.now()
    db.insert(outboxAttempts)
      .values({ outboxId: row.id, attempt: row.attempts + 1, at: now, ms: Math.round(performance.now() - startedMs), error: err ? describe(err) : null })
      .run()
    if (!err) {
      delivered.run({ id: row.id, at: now })
      return
    }
    const attempts = row.attempts + 1
    const reason = describe(err)
    const newer =
      row.groupKey !== null &&
      db.select({ id: outbox.id }).from(outbox).where(and(eq(outbox.groupKey, row.groupKey), gt(outbox.id, row.id))).get() !== undefined
    const state = newer ? 'superseded' : err instanceof PermanentFailure || attempts >= (opts.maxAttempts?.[row.kind] ?? cfg.max_attempts) ? 'failed' : 'pending'
    db.update(outbox)
      .set({ state, attempts, lastError: reason, nextAt: new Date(now.getTime() + backoffMs(attempts, cfg)) })
      .where(and(eq(outbox.id, row.id), eq(outbox.state, 'pending')))
      .run()
    const fields = { id: row.id, kind: row.kind, target: row.target, attempts, error: reason, state }
    if (state === 'failed') log.warn('delivery given up', fields)
    else log.info('delivery failed', fields)
  }

  const describe = (err: unknown) =>
    err instanceof Error ? (err.name === 'TimeoutError' ? `timed out after ${cfg.timeout_ms} ms` : err.message) : String(err)

  const send = (row: OutboxRow) => {
    const startedMs = performance.now()
    const sender = senders[row.kind]
    const attempt = sender ? sender(row) : Promise.reject(new PermanentFailure(`no sender for kind ${row.kind}`))
    const p = attempt
      .then(
        () => finish(row, undefined, startedMs),
        (err: unknown) => finish(row, err ?? new Error('failed'), startedMs)
      )
      .catch((err: unknown) => log.error('outbox bookkeeping failed', { id: row.id, err: String(err) }))
      .finally(() => {
        flying.delete(row.id)
        wake()
      })
    flying.set(row.id, { group: row.groupKey, done: p })
  }

  const tick = () => {
    scheduled = false
    if (stopped) return
    const now = deps.now().getTime()
    const free = cfg.concurrency - flying.size
    if (free > 0) {
      const groupsFlying = new Set([...flying.values()].map((f) => f.group).filter((g) => g !== null))
      // Over-fetch: rows in flight are still 'pending' and come back here; they are skipped.
      for (const row of due.all({ now, limit: free + flying.size })) {
        if (flying.size >= cfg.concurrency) break
        if (flying.has(row.id) || (row.groupKey !== null && groupsFlying.has(row.groupKey))) continue
        if (row.groupKey !== null) groupsFlying.add(row.groupKey)
        send(row)
      }
    }
    // Sleep until the next row falls due. Rows already due but held back (concurrency, a group's earlier
    // row in flight) are looked at again when a send finishes, which calls wake().
    const next = nextDue.get({ now })?.at
    clearTimeout(timer)
    timer = setTimeout(wake, next ? Math.min(IDLE_POLL_MS, next.getTime() - now + 5) : IDLE_POLL_MS)
    timer.unref()
  }

  function wake() {
    if (!started || stopped || scheduled) return
    scheduled = true
    setImmediate(() => {
      try {
        tick()
      } catch (err) {
        scheduled = false
        log.error('outbox tick failed', { err: String(err) })
      }
    })
  }

  return {
    start() {
      started = true
      wake()
    },
    wake,
    async stop() {
      stopped = true
      clearTimeout(timer)
      await Promise.allSettled([...flying.values()].map((f) => f.done))
    },
    get inFlight() {
      return flying.size
    },
  }
}
