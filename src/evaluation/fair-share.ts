// Fair share of the queue: the claim order between classes (PRIORITY) and, within a class, each
// client's turn (fair_round) and its cap on queued rows, decided when a row is inserted. The claim
// itself (queue.ts) only orders by (priority, fair_round, id).
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { preparedPerDb } from '../storage/prepared.ts'

/**
 * Claim order between classes: an HTTP client waiting on a synchronous v3 request first, then an
 * interview room's run (people watching it), then everything else. Within a class, fair share (below).
 */
export const PRIORITY = { sync: 0, room: 1, async: 2 } as const

/** What a refused submission is told to wait before trying again (Retry-After), in seconds. */
export const QUEUE_FULL_RETRY_AFTER_SEC = 5

// Fair share is round-robin by client: each row carries its client's turn (fair_round) in its class,
// and the claim takes the lowest round first (the oldest within a round). A client's next row goes one
// round after its own last queued row, or to the head of the class when it has none queued — so a
// client with 500 rows queued holds rounds n…n+499 and another client's single row is claimed next
// round, not after all 500. Both reads are seeks on the two indexes (submissions_claim, _client).
const prepareSlot = (db: Deps['db']) =>
  db.$client.prepare<{ clientId: number; priority: number }, { head: number | null; last: number | null; queued: number }>(
    `select
       (select min(fair_round) from submissions where state = 'queued' and priority = :priority) as head,
       (select max(fair_round) from submissions where client_id = :clientId and state = 'queued' and priority = :priority) as last,
       (select count(*) from submissions where client_id = :clientId and state = 'queued') as queued`
  )
const slotStatement = preparedPerDb(prepareSlot)

/**
 * The fair round of a new row of `clientId` in class `priority`; with `maxQueued` > 0, refuses
 * (QueueFullError, 429 with Retry-After) when the client already has that many rows queued.
 * Call inside the transaction that inserts the row.
 */
export function fairRound(db: Deps['db'], clientId: number, priority: number, maxQueued: number): number {
  const stmt = slotStatement(db)
  const { head, last, queued } = stmt.get({ clientId, priority })!
  if (maxQueued > 0 && queued >= maxQueued)
    throw new AppError('QueueFullError', `${queued} submissions of this client are already waiting to run; try again later`, {
      queued,
      max_queued: maxQueued,
      retry_after: QUEUE_FULL_RETRY_AFTER_SEC,
    })
  return last !== null ? last + 1 : (head ?? 0)
}
