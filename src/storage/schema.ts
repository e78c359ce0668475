// Every table in one file (drizzle sqlite-core). Columns are camelCase here, snake_case in SQL.
// Sections: evaluation (clients, submissions), interviews, outbox. Migrations are generated from this
// file by `npm run db:generate`; until the first release they are regenerated from scratch.
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

// ── service ────────────────────────────────────────────────────────────────────────────────────────

/** Small key/value facts about this installation (e.g. the instance id used in client_id suffixes). */
export const meta = sqliteTable('meta', {
  key: text().primaryKey(),
  value: text().notNull(),
  updatedAt: integer({ mode: 'timestamp_ms' }).notNull(),
})

// ── evaluation ─────────────────────────────────────────────────────────────────────────────────────

// ── interviews ─────────────────────────────────────────────────────────────────────────────────────

// ── outbox ─────────────────────────────────────────────────────────────────────────────────────────
