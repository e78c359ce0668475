// The similarity queue with a real database and the real analysis child: a queued report runs to the
// end, its progress recorded; reports left running are requeued at start; a failing analysis fails the
// report (no retry loop) and still calls back.
import { afterEach, describe, expect, test } from 'vitest'
import { findClientBySecret } from '../clients/clients.ts'
import { acceptSubmission } from '../evaluation/submissions.ts'
import { addClient, createTestDeps, testConfig, until, type TestDeps } from '../testing/evaluation.ts'
import { similarityReports } from '../storage/schema.ts'
import { generateSubmissions } from '../testing/similarity-submissions.ts'
import { createSimilarityQueue } from './queue.ts'
import { getReport, reportReply, requestReport } from './reports.ts'

let deps: TestDeps | undefined
afterEach(async () => {
  await deps?.stop()
  deps = undefined
})

function setUp(similarity: Record<string, unknown> = {}) {
  deps = createTestDeps({ config: testConfig({ similarity }), start: false })
  deps.outbox.start()
  const client = findClientBySecret(deps.db, addClient(deps))!
  const { files, planted } = generateSubmissions({ count: 6, seed: 7, copyShare: 0.2 })
  const ids = new Map<string, string>()
  for (const f of files) ids.set(f.id, acceptSubmission(deps, client, { api: 'v4', lang: 'PYTHON3', source: f.source }).heId)
  return { deps, client, ids, planted }
}

describe('similarity queue', () => {
  test('a queued report completes: planted copy first, progress 1, callback sent', { timeout: 150_000 }, async () => {
    const { deps, client, ids, planted } = setUp()
    const row = requestReport(deps, client, { he_ids: [...ids.values()], min_similarity: 0, callback: 'http://127.0.0.1:9/cb' })
    const queue = createSimilarityQueue(deps)
    queue.start()
    await until(() => getReport(deps, client, row.publicId).state === 'completed', 140_000)
    await queue.stop()
    const reply = reportReply(deps, getReport(deps, client, row.publicId))
    expect(reply.progress).toBe(1)
    expect(reply.pairs).toHaveLength(15)
    const [a, b] = planted[0]!
    expect([reply.pairs[0]!.left, reply.pairs[0]!.right].sort()).toEqual([ids.get(a), ids.get(b)].sort())
    expect(reply.submissions.every((s) => typeof s.lines === 'number' && s.lines > 10)).toBe(true)
    await until(() => deps.sent.length === 1)
    expect(deps.sent[0]!.subjectId).toBe(`similarity:${row.publicId}`)
    expect(JSON.parse(deps.sent[0]!.body)).toMatchObject({ report_id: row.publicId, status: 'completed' })
  })

  test('a report queued after the start (nothing waited then) runs when the queue is woken', { timeout: 150_000 }, async () => {
    const { deps, client, ids } = setUp()
    const queue = createSimilarityQueue(deps)
    queue.start()
    await new Promise((r) => setTimeout(r, 50))
    const row = requestReport(deps, client, { he_ids: [...ids.values()] })
    queue.wake()
    await until(() => getReport(deps, client, row.publicId).state === 'completed', 140_000)
    await queue.stop()
  })

  test('reports left running are queued again at start and run from the beginning', { timeout: 150_000 }, async () => {
    const { deps, client, ids } = setUp()
    const row = requestReport(deps, client, { he_ids: [...ids.values()] }, 'running')
    expect(row.state).toBe('running')
    const queue = createSimilarityQueue(deps)
    queue.start()
    await until(() => getReport(deps, client, row.publicId).state === 'completed', 140_000)
    await queue.stop()
    expect(getReport(deps, client, row.publicId).attempt).toBe(2)
  })

  test('an analysis over its memory cap fails the report with a reason', { timeout: 150_000 }, async () => {
    const { deps, client, ids } = setUp({ memory_mb: 128 })
    // a report whose child cannot fit: the cap is checked on the child's resident memory
    const row = requestReport(deps, client, { he_ids: [...ids.values()] })
    deps.db.update(similarityReports).set({ template: 'x = 1\n'.repeat(400_000) }).run()
    const queue = createSimilarityQueue(deps)
    queue.start()
    await until(() => getReport(deps, client, row.publicId).state !== 'queued' && getReport(deps, client, row.publicId).state !== 'running', 140_000)
    await queue.stop()
    const failed = getReport(deps, client, row.publicId)
    expect(failed.state).toBe('failed')
    expect(failed.failure).toMatch(/more than 128 MB/)
  })
})
