// HackerEarth v4 as a protocol of the core: stages shown (CODE_COMPILED, tests as they end); each stage
// is POSTed to the callback as the v4 reply of that stage, once per submission.
import { testsOf } from '../evaluation/graded.ts'
import type { HookDeps, Protocol } from '../evaluation/protocols.ts'
import type { Submission } from '../evaluation/model.ts'
import { enqueueDelivery } from '../jobs/outbox.ts'
import { linksFor, v4Reply } from '../hackerearth/replies.ts'

function enqueueV4Callback(deps: HookDeps, row: Submission, stage: 'compiled' | 'completed') {
  if (!row.callbackUrl) return
  const body = v4Reply(row, linksFor(deps.config), stage, row.checkerJson ? testsOf(deps.db, row.id) : undefined)
  enqueueDelivery(
    deps.db,
    {
      kind: 'callback',
      subjectId: String(row.id),
      target: row.callbackUrl,
      body: JSON.stringify(body),
      contentType: 'application/json',
      headers: { 'x-arbiter-event': body.request_status.code, 'x-arbiter-he-id': row.publicId },
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
    // reported it. A compile step stored in this attempt (compiledAt) enqueued it in that commit: its body
    // is not built again; otherwise the dedupe key makes this a no-op if an earlier attempt sent it.
    if (!row.compiledAt) enqueueV4Callback(deps, row, 'compiled')
    enqueueV4Callback(deps, row, 'completed')
  },
}
