// CLI of the durable outbox: list deliveries (callbacks, interview reports, e-mails), show one with every
// attempt, and put failed ones back in the queue. Without an SMTP server configured, this is where the
// e-mails wait, readable.
import { and, asc, desc, eq } from 'drizzle-orm'
import type { CliCommands } from '../cli-types.ts'
import { OUTBOX_KINDS, isOutboxKind } from '../storage/outbox-kinds.ts'
import { outbox, outboxAttempts } from '../storage/schema.ts'
import { retryFailed } from './outbox.ts'
import { smtpConfigured } from './mailer.ts'

type OutboxRow = typeof outbox.$inferSelect
const STATES = ['pending', 'delivered', 'failed', 'superseded'] as const


const bodyOf = (row: OutboxRow): unknown => {
  if (!row.contentType.includes('json')) return row.body
  try {
    return JSON.parse(row.body)
  } catch {
    return row.body
  }
}

function summary(row: OutboxRow, mailPaused: boolean) {
  const body = bodyOf(row) as { subject?: string }
  return {
    id: row.id,
    kind: row.kind,
    target: row.target,
    state: row.state,
    ...(row.kind === 'email' && { subject: body?.subject ?? null, ...(mailPaused && row.state === 'pending' && { waiting_for: 'smtp.host' }) }),
    attempts: row.attempts,
    last_error: row.lastError,
    next_at: row.state === 'pending' ? row.nextAt : null,
    created_at: row.createdAt,
    delivered_at: row.deliveredAt,
  }
}

function id(value: unknown): number {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) throw new Error('--id must be a row id (a whole number)')
  return Number(value)
}

export const outboxCommands: CliCommands = {
  outbox: {
    summary: `outbox [--kind ${Object.keys(OUTBOX_KINDS).join('|')}] [--state pending|failed|…] [--limit N]: deliveries, newest first`,
    options: { kind: { type: 'string' }, state: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    async run({ values }, ctx) {
      const kind = values.kind as string | undefined
      if (kind !== undefined && !isOutboxKind(kind)) throw new Error(`--kind must be one of ${Object.keys(OUTBOX_KINDS).join(', ')}`)
      const state = values.state as string | undefined
      if (state !== undefined && !STATES.includes(state as never)) throw new Error(`--state must be one of ${STATES.join(', ')}`)
      const limit = values.limit === undefined ? 50 : Number(values.limit)
      if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a positive whole number')
      return ctx.withDb((db, config) =>
        db
          .select()
          .from(outbox)
          .where(
            and(
              kind ? eq(outbox.kind, kind) : undefined,
              state ? eq(outbox.state, state as OutboxRow['state']) : undefined
            )
          )
          .orderBy(desc(outbox.id))
          .limit(limit)
          .all()
          .map((r) => summary(r, !smtpConfigured(config)))
      )
    },
  },
  'outbox show': {
    summary: 'outbox show --id N: one delivery with its body (an e-mail: text, HTML, .ics) and every attempt',
    options: { id: { type: 'string' }, json: { type: 'boolean' } },
    async run({ values }, ctx) {
      const rowId = id(values.id)
      return ctx.withDb((db, config) => {
        const row = db.select().from(outbox).where(eq(outbox.id, rowId)).get()
        if (!row) throw new Error(`no outbox row ${rowId}`)
        const attempts = db
          .select({ attempt: outboxAttempts.attempt, at: outboxAttempts.at, ms: outboxAttempts.ms, error: outboxAttempts.error })
          .from(outboxAttempts)
          .where(eq(outboxAttempts.outboxId, rowId))
          .orderBy(asc(outboxAttempts.id))
          .all()
        return { ...summary(row, !smtpConfigured(config)), headers: row.headersJson ? JSON.parse(row.headersJson) : {}, body: bodyOf(row), attempt_log: attempts }
      })
    },
  },
  'outbox retry': {
    summary: 'outbox retry --id N | --failed: queue failed deliveries again with a fresh set of attempts (the server picks them up within 30 s)',
    options: { id: { type: 'string' }, failed: { type: 'boolean' }, json: { type: 'boolean' } },
    async run({ values }, ctx) {
      if (values.id === undefined && values.failed !== true) throw new Error('give --id N or --failed')
      return ctx.withDb((db) => ({ requeued: retryFailed(db, new Date(), values.id !== undefined ? id(values.id) : undefined) }))
    },
  },
}
