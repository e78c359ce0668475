// Durable deliveries. A row is inserted in the same transaction as the state it reports (enqueueDelivery);
// this loop sends due rows through the sender registered for their kind, marks them delivered, or retries
// with exponential backoff until outbox.max_attempts. Rows left in flight by a crash are simply sent again
// (at-least-once; each carries its row id in X-Arbiter-Delivery so a receiver can drop repeats).
// The slots are shared by client (and company, and e-mail) in turn, then by destination, and a
// destination that times out is held back (outbox-shares.ts; docs/admin/outbox.md).
import { and, eq, gt, inArray, min, notInArray, sql } from 'drizzle-orm'
import type { Config } from '../config.ts'
import type { Log } from '../log.ts'
import type { Db } from '../storage/db.ts'
import { outbox, outboxAttempts } from '../storage/schema.ts'
import { PermanentFailure, postCallback, postCallbackWithLead } from './callback.ts'
import type { OutboxKind } from '../storage/outbox-kinds.ts'
import { inTransaction, preparedPerDb, writtenLimit } from '../storage/prepared.ts'
import { noteStorageFault, storageFaultOf } from '../storage/faults.ts'
import type { Outbox } from './outbox-types.ts'
import { destinationHealth, destinationOf, EMAIL_SHARE, isTimeout, shareOf, slotCaps } from './outbox-shares.ts'

export type OutboxRow = typeof outbox.$inferSelect

export interface Delivery {
  kind: OutboxKind
  /** What it is about (outbox-kinds.ts says what, per kind). */
  subjectId?: string
  target: string
  body: string
  contentType: string
  headers?: Record<string, string>
  /** A callback's HTTP method; POST unless given. */
  method?: 'POST' | 'PUT'
  /**
   * A delivery sent once just before this one, to the same target, on its first attempt (v4's CODE_COMPILED
   * with its REQUEST_COMPLETED): what a row of its own before this one in the group would be, at the cost
   * of one row. As such a row, one that fails is dropped and this one sent (one that times out holds the
   * destination back as any timeout does, and this one is sent when it is released).
   */
  lead?: Lead
  /** Rows of a group go out in id order; a failing row is dropped once a later one of its group exists. */
  groupKey?: string
  /** A second insert with the same key is ignored. */
  dedupeKey?: string
  /** Whose share of the slots it uses: `client:<id>`, `company:<id>` (e-mails always share one). */
  owner?: string
}

/** A lead delivery (Delivery.lead): its body and extra headers. */
export interface Lead {
  body: string
  headers?: Record<string, string>
}

/** Anything with drizzle's insert/update: the Db or a transaction. */
type Writer = Pick<Db, 'insert' | 'update'>

const p = sql.placeholder
const FIELDS = ['kind', 'subjectId', 'target', 'body', 'contentType', 'headersJson', 'leadJson', 'method', 'groupKey', 'dedupeKey', 'share', 'destination', 'nextAt', 'createdAt'] as const

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
    leadJson: d.lead ? JSON.stringify(d.lead) : null,
    method: d.method ?? null,
    groupKey: d.groupKey ?? null,
    dedupeKey: d.dedupeKey ?? null,
    ...shareOf(d.kind, d.target, d.owner),
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
export type Sender = ((row: OutboxRow) => Promise<void>) & {
  /**
   * Sends the row's lead and then the row in one exchange (callbacks: pipelined on one connection), with
   * the lead's failure if it had one; throws as the sender does for the row. A sender without it sends
   * the lead as a delivery of its own, then the row.
   */
  withLead?: (row: OutboxRow, lead: OutboxRow) => Promise<{ leadFailure?: unknown }>
}

export type { Outbox }

export interface OutboxDeps {
  db: Db
  log: Log
  config: Pick<Config, 'outbox'>
  now: () => Date
}

/** The sender for kind 'callback': the stored body sent with the row's method (POST unless it says PUT). */
export function callbackSender(config: Pick<Config, 'outbox'>): Sender {
  const request = (row: OutboxRow) => ({
    url: row.target,
    method: row.method ?? 'POST',
    body: row.body,
    contentType: row.contentType,
    headers: headersOf(row),
    timeoutMs: config.outbox.timeout_ms,
    blockPrivate: config.outbox.block_private_addresses,
  })
  return Object.assign((row: OutboxRow) => postCallback(request(row)), {
    withLead: (row: OutboxRow, lead: OutboxRow) => postCallbackWithLead(request(row), { body: lead.body, headers: headersOf(lead) }),
  })
}
const headersOf = (row: OutboxRow): Record<string, string> => ({
  'x-arbiter-delivery': String(row.id),
  ...(row.headersJson ? (JSON.parse(row.headersJson) as Record<string, string>) : {}),
})

export function backoffMs(attempts: number, cfg: Config['outbox'], random = Math.random): number {
  const base = cfg.backoff_ms * 2 ** Math.max(0, attempts - 1)
  return Math.min(cfg.backoff_max_ms, Math.round(base * (0.8 + 0.4 * random())))
}

/** Rows one look at the table takes at most (written into the query: a bound LIMIT recompiles it each run). */
const CANDIDATES_MAX = 2000

/** How long a delivered row's record may wait to be written with others' (one commit for all). */
export const RECORD_WINDOW_MS = 50
/** Longest wait between two tries at writing the records while the disk refuses them. */
const RECORD_RETRY_MAX_MS = 30_000

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
  const pausedJson = JSON.stringify(opts.paused ?? [])
  const flying = new Map<number, { group: string | null; share: string; destination: string; done: Promise<void> }>()
  // destinations that timed out: held back for a backoff growing with their streak, then one slot
  const health = destinationHealth((streak) => backoffMs(streak, cfg))
  /** The share served last: the next tick starts with the one after it (round robin). */
  let lastShare = ''
  let timer: NodeJS.Timeout | undefined
  let scheduled = false
  let started = false
  let stopped = false
  // Whether the next tick must look at the table. A send that ends well changes nothing another row
  // waits for, unless the last look left due rows behind (slots, caps, a held destination) or the row's
  // group has a next row: the tick after it is skipped otherwise (two of a v4 job's four ticks, each a
  // due-row read and a next-due read on the main thread).
  /** Rows may have changed since the last look: a wake (a row written), the timer, a failure. */
  let unseen = true
  /** The last look left due rows it did not send. */
  let leftBehind = false
  /** The sleep until the next due row needs working out again: at the start, after a failure, when it ended. */
  let sleepStale = true
  let looks = 0

  // Due rows, skipping rows in flight and any row with an older pending row in its group: at most
  // `perDest` of each share's destination and `perShare` of each share, each share's first rows first,
  // so one share's backlog (thousands of retries to a dead receiver) never hides another's new row.
  // better-sqlite3 directly: drizzle has no window functions. Prepared once; ids only, read below.
  const candidates = db.$client.prepare<{ now: number; paused: string; flying: string; done: string; perDest: number; perShare: number }, { id: number }>(`
    select id from (
      select id, row_number() over (partition by share_key order by id) as share_rank from (
        select o.id, coalesce(o.share, 'destination:' || coalesce(o.destination, o.target)) as share_key,
          row_number() over (partition by coalesce(o.share, ''), coalesce(o.destination, o.target) order by o.id) as dest_rank
        from outbox o
        where o.state = 'pending' and o.next_at <= @now
          and o.kind not in (select value from json_each(@paused))
          and o.id not in (select value from json_each(@flying))
          and not exists (select 1 from outbox o2 where o2.group_key = o.group_key and o2.state = 'pending' and o2.id < o.id
            and o2.id not in (select value from json_each(@done)))
      ) where dest_rank <= @perDest
    ) where share_rank <= @perShare
    order by share_rank, id limit ${CANDIDATES_MAX}`)
  // The rows the window query above would rank, two at most, read whole. Most looks find none or one (a
  // v4 job's callback, a group's next row): one row is its own answer, its ranks are 1 and every cap is
  // at least 1, so the window query (~0.5 ms of the main thread on a busy server, ~7 times this one)
  // runs only when two or more are due.
  const dueFew = db
    .select()
    .from(outbox)
    .where(
      and(
        eq(outbox.state, 'pending'),
        sql`${outbox.nextAt} <= ${p('now')}`,
        sql`${outbox.kind} not in (select value from json_each(${p('paused')}))`,
        sql`${outbox.id} not in (select value from json_each(${p('flying')}))`,
        sql`not exists (select 1 from ${outbox} o2 where o2.group_key = ${outbox.groupKey} and o2.state = 'pending' and o2.id < ${outbox.id} and o2.id not in (select value from json_each(${p('done')})))`
      )
    )
    .limit(writtenLimit(2))
    .prepare()
  // prepared once, as every statement of a delivery (building a drizzle query costs more than running it)
  const rowsByIds = db
    .select()
    .from(outbox)
    .where(sql`${outbox.id} in (select value from json_each(${p('ids')}))`)
    .prepare()
  const rowsById = (ids: number[]) => rowsByIds.all({ ids: JSON.stringify(ids) })
  const nextDue = db
    .select({ at: min(outbox.nextAt) })
    .from(outbox)
    .where(and(eq(outbox.state, 'pending'), notPaused, gt(outbox.nextAt, sql`${p('now')}`)))
    .prepare()
  // a later row of the group (a delivered row may still read pending until its record is written)
  const groupPending = db
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(eq(outbox.groupKey, sql`${p('groupKey')}`), eq(outbox.state, 'pending'), gt(outbox.id, sql`${p('id')}`)))
    .limit(writtenLimit(1))
    .prepare()
  const delivered = db
    .update(outbox)
    .set({ state: 'delivered', attempts: sql`${outbox.attempts} + 1`, deliveredAt: p('at') as unknown as Date, lastError: null })
    .where(and(eq(outbox.id, p('id')), inArray(outbox.state, ['pending', 'superseded'])))
    .prepare()

  const attempted = db
    .insert(outboxAttempts)
    .values({ outboxId: p('outboxId'), attempt: p('attempt'), at: p('at'), ms: p('ms'), error: p('error') } as unknown as typeof outboxAttempts.$inferInsert)
    .prepare()

  /** Delivered rows whose attempt and state are not written yet, by id: written together (recordDelivered). */
  const unrecorded = new Map<number, typeof outboxAttempts.$inferInsert>()
  let recordTimer: NodeJS.Timeout | undefined
  let recordFailures = 0
  /**
   * Writes the waiting records of delivered rows in one commit. A commit each cost the main thread more
   * than the POST it records (two a v4 job); a crash before it sends those rows again (at-least-once,
   * as for a crash during the send). A write that fails (a full disk) keeps them for the next try.
   */
  const recordDelivered = () => {
    recordTimer = undefined
    if (!unrecorded.size) return
    const batch = [...unrecorded.values()]
    try {
      inTransaction(db, () => {
        for (const a of batch) {
          attempted.run(a)
          delivered.run({ id: a.outboxId, at: a.at })
        }
      })
    } catch (err) {
      const fault = storageFaultOf(err)
      if (fault) noteStorageFault(fault, log, { while: 'recording deliveries', count: batch.length })
      else log.error('recording deliveries failed', { count: batch.length, err: String(err) })
      recordFailures++
      if (!stopped) recordTimer = setTimeout(recordDelivered, Math.min(RECORD_RETRY_MAX_MS, RECORD_WINDOW_MS * 2 ** recordFailures))
      return
    }
    recordFailures = 0
    for (const a of batch) unrecorded.delete(a.outboxId)
  }

  const finish = (row: OutboxRow, destination: string, err: unknown, startedMs: number) => {
    const now = deps.now()
    const attempt = { outboxId: row.id, attempt: row.attempts + 1, at: now, ms: Math.round(performance.now() - startedMs), error: err ? describe(err) : null }
    // a destination that did not answer in time is held back; one that answered (even with an error) is not
    if (err && isTimeout(err)) health.timedOut(destination, now.getTime())
    else health.answered(destination)
    if (!err) {
      unrecorded.set(row.id, attempt)
      recordTimer ??= setTimeout(recordDelivered, RECORD_WINDOW_MS)
      return true
    }
    attempted.run(attempt)
    const attempts = row.attempts + 1
    const reason = describe(err)
    const newer =
      row.groupKey !== null &&
      db.select({ id: outbox.id }).from(outbox).where(and(eq(outbox.groupKey, row.groupKey), gt(outbox.id, row.id))).get() !== undefined
    const state = newer ? 'superseded' : err instanceof PermanentFailure || attempts >= (opts.maxAttempts?.[row.kind] ?? cfg.max_attempts) ? 'failed' : 'pending'
    // a row whose destination keeps timing out waits longer: its backoff counts the destination's streak too
    const streak = health.streak(destination)
    db.update(outbox)
      .set({ state, attempts, lastError: reason, nextAt: new Date(now.getTime() + backoffMs(attempts + Math.max(0, streak - 1), cfg)) })
      .where(and(eq(outbox.id, row.id), eq(outbox.state, 'pending')))
      .run()
    const fields = { id: row.id, kind: row.kind, target: row.target, attempts, error: reason, state }
    if (state === 'failed') log.warn('delivery given up', fields)
    else log.info('delivery failed', fields)
    return false
  }

  const describe = (err: unknown) =>
    err instanceof Error ? (err.name === 'TimeoutError' ? `timed out after ${cfg.timeout_ms} ms` : err.message) : String(err)

  const shareKey = (row: OutboxRow) => row.share ?? `destination:${row.destination ?? destinationOf(row.target)}`
  const destinationKey = (row: OutboxRow) => row.destination ?? destinationOf(row.target)

  /**
   * A row's lead (Delivery.lead), on the row's first attempt, by the row's sender as a delivery of its
   * own (X-Arbiter-Delivery `<id>.1`), just before the row: in one exchange when the sender can
   * (Sender.withLead), else on its own first. As the row of its own it stands for would be, one that fails
   * is dropped (logged, as that row would be superseded) and the row sent; a timeout fails the attempt,
   * so the destination is held back and the row, tried again, goes without it.
   */
  const sendWithLead = async (row: OutboxRow, leadJson: string, sender: Sender) => {
    const lead = JSON.parse(leadJson) as Lead
    const leadRow = { ...row, body: lead.body, headersJson: JSON.stringify({ ...lead.headers, 'x-arbiter-delivery': `${row.id}.1` }), leadJson: null }
    const leadFailed = (err: unknown) =>
      log.info('delivery failed', { id: row.id, lead: true, kind: row.kind, target: row.target, attempts: 1, error: describe(err), state: 'superseded' })
    if (sender.withLead) {
      const { leadFailure } = await sender.withLead(row, leadRow)
      if (leadFailure) leadFailed(leadFailure)
      return
    }
    try {
      await sender(leadRow)
    } catch (err) {
      if (isTimeout(err)) throw err
      leadFailed(err)
    }
    await sender(row)
  }

  const send = (row: OutboxRow) => {
    const startedMs = performance.now()
    const destination = destinationKey(row)
    const sender = senders[row.kind]
    const attempt = !sender
      ? Promise.reject(new PermanentFailure(`no sender for kind ${row.kind}`))
      : row.leadJson !== null && row.attempts === 0
        ? sendWithLead(row, row.leadJson, sender)
        : sender(row)
    const p = attempt
      .then(
        () => finish(row, destination, undefined, startedMs),
        (err: unknown) => finish(row, destination, err ?? new Error('failed'), startedMs)
      )
      .catch((err: unknown) => {
        log.error('outbox bookkeeping failed', { id: row.id, err: String(err) })
        return false
      })
      .then((ok) => {
        // a failure moved the row; a delivered row's group may hold the next one, kept back while it flew
        if (!ok) unseen = sleepStale = true
        else if (row.groupKey !== null && groupPending.get({ groupKey: row.groupKey, id: row.id }) !== undefined) unseen = true
      })
      .catch(() => {
        unseen = sleepStale = true
      })
      .finally(() => {
        flying.delete(row.id)
        schedule()
      })
    flying.set(row.id, { group: row.groupKey, share: shareKey(row), destination, done: p })
  }

  const tick = () => {
    scheduled = false
    if (stopped || (!unseen && !leftBehind)) return
    unseen = false
    looks++
    const now = deps.now().getTime()
    const caps = slotCaps(cfg.concurrency)
    // no free slot: whatever is due is left behind until a send ends
    leftBehind = flying.size >= cfg.concurrency
    // e-mails all go to one destination, the SMTP server: their share's cap
    const perDest = Math.max(caps.perDestination, caps.email)
    // a few more than a share may hold: some of its destinations may be held back
    const perShare = caps.perShare * 4
    if (!leftBehind) {
      // a delivered row whose record waits is neither sent again nor holds its group's next row back
      const doneJson = JSON.stringify([...unrecorded.keys()])
      const flyingJson = unrecorded.size ? JSON.stringify([...flying.keys(), ...unrecorded.keys()]) : JSON.stringify([...flying.keys()])
      const few = dueFew.all({ now, paused: pausedJson, flying: flyingJson, done: doneJson })
      const rows = few.length < 2 ? few : candidates.all({
        now,
        paused: pausedJson,
        flying: flyingJson,
        done: doneJson,
        perDest,
        perShare,
      })
      const sent = rows.length ? pick(few.length < 2 ? few : rowsById(rows.map((r) => r.id)), caps, now) : 0
      // the window query leaves out rows past its caps only when it returns at least a cap's worth
      leftBehind = sent < rows.length || (few.length > 1 && rows.length >= Math.min(perDest, perShare))
    }
    // Sleep until the next row falls due or a held destination is released. Rows already due but held
    // back (the caps, a group's earlier row in flight) are looked at again when a send finishes. Only
    // a failure (its backoff, a held destination) sets a row's time ahead: a row written is due at
    // once, so the sleep is worked out again only after a failure or when it ends.
    if (!sleepStale) return
    sleepStale = false
    const next = Math.min(nextDue.get({ now })?.at?.getTime() ?? Infinity, health.nextRelease(now) ?? Infinity)
    clearTimeout(timer)
    timer = setTimeout(() => {
      sleepStale = true
      wake()
    }, Number.isFinite(next) ? Math.min(IDLE_POLL_MS, next - now + 5) : IDLE_POLL_MS)
    timer.unref()
  }

  /** Takes rows share by share in turn (round robin), one a turn, within every cap; returns how many. */
  const pick = (rows: OutboxRow[], caps: ReturnType<typeof slotCaps>, now: number) => {
    const count = (key: (f: { share: string; destination: string }) => string) => {
      const m = new Map<string, number>()
      for (const f of flying.values()) m.set(key(f), (m.get(key(f)) ?? 0) + 1)
      return m
    }
    const byShare = count((f) => f.share)
    const byDestination = count((f) => f.destination)
    const byShareDestination = count((f) => `${f.share}\n${f.destination}`)
    let emails = byShare.get(EMAIL_SHARE) ?? 0
    let callbacks = flying.size - emails
    const groupsFlying = new Set([...flying.values()].map((f) => f.group).filter((g) => g !== null))
    const queues = new Map<string, OutboxRow[]>()
    for (const row of rows.sort((a, b) => a.id - b.id)) {
      const k = shareKey(row)
      if (!queues.has(k)) queues.set(k, [])
      queues.get(k)!.push(row)
    }
    const shares = [...queues.keys()].sort()
    // the turn starts with the share after the one served last
    const first = shares.findIndex((k) => k > lastShare)
    const order = first < 0 ? shares : [...shares.slice(first), ...shares.slice(0, first)]
    const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1)
    let progressed = true
    let sent = 0
    while (progressed && flying.size < cfg.concurrency) {
      progressed = false
      for (const share of order) {
        if (flying.size >= cfg.concurrency) break
        const email = share === EMAIL_SHARE
        if (email ? emails >= caps.email : callbacks >= caps.callbacks || (byShare.get(share) ?? 0) >= caps.perShare) continue
        const queue = queues.get(share)!
        const at = queue.findIndex((row) => {
          if (row.groupKey !== null && groupsFlying.has(row.groupKey)) return false
          const destination = destinationKey(row)
          const healthy = email ? caps.email : caps.perDestination
          const cap = health.cap(destination, healthy, now)
          // a sick destination gets one slot in all; a healthy one its cap per share
          if (health.streak(destination) > 0) return (byDestination.get(destination) ?? 0) < cap
          return (byShareDestination.get(`${share}\n${destination}`) ?? 0) < cap
        })
        if (at < 0) continue
        const [row] = queue.splice(at, 1) as [OutboxRow]
        const destination = destinationKey(row)
        if (row.groupKey !== null) groupsFlying.add(row.groupKey)
        bump(byShare, share)
        bump(byDestination, destination)
        bump(byShareDestination, `${share}\n${destination}`)
        if (email) emails++
        else callbacks++
        lastShare = share
        progressed = true
        sent++
        send(row)
      }
    }
    return sent
  }

  /** Something may be due: a row was written or changed, or the sleep ended. */
  function wake() {
    unseen = true
    schedule()
  }

  function schedule() {
    if (!started || stopped || scheduled) return
    scheduled = true
    setImmediate(() => {
      try {
        tick()
      } catch (err) {
        scheduled = false
        unseen = sleepStale = true
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
      clearTimeout(recordTimer)
      recordDelivered()
    },
    get inFlight() {
      return flying.size
    },
    get looks() {
      return looks
    },
  }
}
