// Fair share of the queue: the claim order between classes (PRIORITY) and, within a class, each
// client's turn (fair_round) and its cap on queued rows, decided when a row is inserted. The claim
// itself (queue.ts) only orders by (priority, fair_round, async, id).
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { preparedPerDb } from '../storage/prepared.ts'

/**
 * Claim order between classes: an interview room's run first (people in a live interview watch it;
 * one run per room at a time bounds the class), then every API's submissions, synchronous or not,
 * shared fairly between clients (below) — so no client's burst of any kind holds back another client
 * or an interview.
 */
export const PRIORITY = { room: 0, api: 1 } as const

/** What a refused submission is told to wait before trying again (Retry-After), in seconds. */
export const QUEUE_FULL_RETRY_AFTER_SEC = 5

// Fair share is round-robin by client: each row carries its client's turn (fair_round) in its class,
// and the claim takes the lowest round first (the oldest within a round). A client's next row goes one
// round after its own last queued row of the same kind, or to the head of the class (the lowest round
// queued there) when it has none queued — so a client with 500 rows queued holds rounds n…n+499 and
// another client's single row is claimed next round, not after all 500.
// Synchronous and asynchronous rows (an HTTP client waiting, or a result polled or called back) are two
// sequences per client over the same rounds, and a round's synchronous rows go first: a client's
// synchronous request is not held behind its own asynchronous backlog, and a flood of either kind still
// gets one row per round (two when the client has both kinds queued), never the whole queue.
// The three reads are seeks on the two indexes (submissions_claim, submissions_client).
const prepareSlot = (db: Deps['db']) =>
  db.$client.prepare<{ clientId: number; priority: number; async: number }, { head: number | null; last: number | null; queued: number }>(
    `select
       (select min(fair_round) from submissions where state = 'queued' and priority = :priority) as head,
       (select max(fair_round) from submissions where client_id = :clientId and state = 'queued' and priority = :priority and async = :async) as last,
       (select count(*) from submissions where client_id = :clientId and state = 'queued') as queued`
  )
const slotStatement = preparedPerDb(prepareSlot)

/**
 * The fair round of a new row of `clientId` in class `priority` (synchronous or `async`); with
 * `maxQueued` > 0, refuses (QueueFullError, 429 with Retry-After) when the client already has that
 * many rows queued. Call inside the transaction that inserts the row.
 */
export function fairRound(db: Deps['db'], clientId: number, priority: number, async: boolean, maxQueued: number): number {
  const { head, last, queued } = slotStatement(db).get({ clientId, priority, async: async ? 1 : 0 })!
  if (maxQueued > 0 && queued >= maxQueued)
    throw new AppError('QueueFull', `${queued} submissions of this client are already waiting to run; try again later`, {
      queued,
      max_queued: maxQueued,
      retry_after: QUEUE_FULL_RETRY_AFTER_SEC,
    })
  return last !== null ? last + 1 : (head ?? 0)
}
