// HackerEarth v3 as a protocol of the core: no stages shown; an asynchronous request's final reply is
// POSTed to its callback as the form field `payload`.
import { enqueueDelivery } from '../jobs/outbox.ts'
import type { Protocol } from '../evaluation/protocols.ts'
import { linksFor, v3CallbackBody } from '../hackerearth/replies.ts'

export const hackerEarthV3: Protocol = {
  name: 'v3',
  stagesShown: false,
  onCompleted(deps, row) {
    if (!row.callbackUrl) return
    enqueueDelivery(
      deps.db,
      {
        kind: 'callback',
        subjectId: String(row.id),
        target: row.callbackUrl,
        body: v3CallbackBody(row, linksFor(deps.config)),
        contentType: 'application/x-www-form-urlencoded',
        headers: { 'x-arbiter-event': 'completed', 'x-arbiter-he-id': row.publicId },
        groupKey: `submission:${row.id}`,
        owner: `client:${row.clientId}`,
        dedupeKey: `submission:${row.id}:completed`,
      },
      deps.now()
    )
  },
}
