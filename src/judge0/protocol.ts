// Judge0 CE as a protocol of the core: no stages shown (a submission is In Queue, Processing, then
// done); when it is done its callback_url receives a PUT with the submission as Judge0 1.13.1 sends it
// (its default attributes, text in Base64), once per submission, through the outbox.
import type { Protocol } from '../evaluation/protocols.ts'
import { enqueueDelivery } from '../jobs/outbox.ts'
import { DEFAULT_FIELDS, shapeSubmission } from './replies.ts'
import { JUDGE0, judge0Record } from './service.ts'

export const judge0Protocol: Protocol = {
  name: JUDGE0,
  stagesShown: false,
  judge0Forms: true,
  onCompleted(deps, row) {
    if (!row.callbackUrl) return
    enqueueDelivery(
      deps.db,
      {
        kind: 'callback',
        method: 'PUT',
        subjectId: String(row.id),
        target: row.callbackUrl,
        body: JSON.stringify(shapeSubmission(judge0Record(row), DEFAULT_FIELDS, true)),
        contentType: 'application/json',
        groupKey: `submission:${row.id}`,
        owner: `client:${row.clientId}`,
        dedupeKey: `submission:${row.id}:completed`,
      },
      deps.now()
    )
  },
}
