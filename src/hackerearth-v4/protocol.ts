// HackerEarth v4 as a protocol of the core: stages shown (CODE_COMPILED, tests as they end); each stage
// is POSTed to the callback as the v4 reply of that stage, once per submission.
import { testsOf } from '../evaluation/graded.ts'
import type { HookDeps, Protocol } from '../evaluation/protocols.ts'
import type { Submission } from '../evaluation/model.ts'
import { enqueueDelivery } from '../jobs/outbox.ts'
import { linksFor, v4Reply } from '../hackerearth/replies.ts'

type Stage = 'compiled' | 'completed'

function enqueueV4Callback(deps: HookDeps, row: Submission, stage: Stage, leadStage?: Stage) {
  if (!row.callbackUrl) return
  const tests = row.checkerJson ? testsOf(deps.db, row.id) : undefined
  const links = linksFor(deps.config)
  const delivery = (s: Stage) => {
    const body = v4Reply(row, links, s, tests)
    return { body: JSON.stringify(body), headers: { 'x-arbiter-event': body.request_status.code, 'x-arbiter-he-id': row.publicId } }
  }
  enqueueDelivery(
    deps.db,
    {
      kind: 'callback',
      subjectId: String(row.id),
      target: row.callbackUrl,
      ...delivery(stage),
      ...(leadStage && { lead: delivery(leadStage) }),
      contentType: 'application/json',
      groupKey: `submission:${row.id}`,
      owner: `client:${row.clientId}`,
      // once per submission even if the job is run again after a restart
      dedupeKey: `submission:${row.id}:${stage}`,
    },
    deps.now()
  )
}

export const hackerEarthV4: Protocol = {
  name: 'v4',
  stagesShown: true,
  asynchronous: true,
  onCompiled: (deps, row) => enqueueV4Callback(deps, row, 'compiled'),
  onCompleted(deps, row) {
    // Pollers and callback receivers always see CODE_COMPILED before REQUEST_COMPLETED, also when the
    // compile step failed (compile_status then holds the compiler's text) or the worker never
    // reported it (most jobs: a run shorter than COMPILED_REPORT_DELAY_MS). A compile step stored in
    // this attempt (compiledAt) enqueued it in that commit. One not reported in a first attempt goes as
    // the lead of REQUEST_COMPLETED's row (one row, one look, one record: Delivery.lead); after a
    // restart an earlier attempt may have sent it, and its own row's dedupe key decides.
    if (row.compiledAt) enqueueV4Callback(deps, row, 'completed')
    else if (row.attempt === 1) enqueueV4Callback(deps, row, 'completed', 'compiled')
    else {
      enqueueV4Callback(deps, row, 'compiled')
      enqueueV4Callback(deps, row, 'completed')
    }
  },
}
