// Retention of the outbox (config `retention.outbox_days`): rows whose story has ended — delivered, or
// superseded by a newer state of the same subject — are deleted with their attempts once that many days
// old (a delivered row by its delivery, a superseded one by its creation). Failed rows are never
// deleted (they are what `outbox retry` works on), nor pending ones. 0 = keep forever. Run by the
// nightly sweep (schedule.ts).
import type { Deps } from '../deps.ts'
import { inTransaction } from '../storage/prepared.ts'

const DAY_MS = 86_400_000

/** Rows deleted a commit at most: the sweep runs on the main thread, which serves requests between batches. */
export const OUTBOX_PRUNE_BATCH = 5000

export async function pruneOutbox(deps: Pick<Deps, 'db' | 'config' | 'now'>): Promise<{ outbox: number }> {
  const days = deps.config.retention.outbox_days
  if (!(days > 0)) return { outbox: 0 }
  const cutoff = deps.now().getTime() - days * DAY_MS
  // better-sqlite3 directly: the ids of one batch feed two deletes (the attempts have no foreign key)
  const sqlite = deps.db.$client
  const ended = sqlite.prepare<[number, number], { id: number }>(
    `select id from outbox where state in ('delivered', 'superseded') and coalesce(delivered_at, created_at) < ? order by id limit ?`
  )
  const dropAttempts = sqlite.prepare<[string]>(`delete from outbox_attempts where outbox_id in (select value from json_each(?))`)
  const dropRows = sqlite.prepare<[string]>(`delete from outbox where id in (select value from json_each(?))`)
  let deleted = 0
  for (;;) {
    const ids = ended.all(cutoff, OUTBOX_PRUNE_BATCH).map((r) => r.id)
    if (!ids.length) break
    const json = JSON.stringify(ids)
    deleted += inTransaction(deps.db, () => {
      dropAttempts.run(json)
      return dropRows.run(json).changes
    })
    if (ids.length < OUTBOX_PRUNE_BATCH) break
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { outbox: deleted }
}
