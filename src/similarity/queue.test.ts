// The similarity queue with a real database and the real analysis child: a queued report runs to the
// end; while it runs, pollers read its progress (between 0 and 1) and each stage; reports left running are requeued at start; a failing analysis fails the
// report (no retry loop) and still calls back.
import { afterEach, describe, expect, test } from 'vitest'
import { findClientBySecret } from '../clients/clients.ts'
import { acceptSubmission } from '../evaluation/submissions.ts'
import { addClient, createTestDeps, testConfig, until, type TestDeps } from '../testing/evaluation.ts'
import { similarityReports } from '../storage/schema.ts'
import { generateSubmissions } from '../testing/similarity-submissions.ts'
import { createSimilarityQueue, runReport } from './queue.ts'
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
  for (const f of files) ids.set(f.id, acceptSubmission(deps, client, { api: 'v4', lang: 'PYTHON3', source: f.source }).publicId)
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

  test('while it runs, a poller reads its progress strictly between 0 and 1 and each stage in order', { timeout: 150_000 }, async () => {
    const { deps, client, ids } = setUp()
    const row = requestReport(deps, client, { he_ids: [...ids.values()] }, 'running')
    // the hook runs after each progress event is stored: what it reads is what a GET would answer then
    const seen: { status: string; progress: number; stage: string | null }[] = []
    await runReport(deps, row, undefined, () => {
      const r = reportReply(deps, getReport(deps, client, row.publicId))
      seen.push({ status: r.status, progress: r.progress, stage: r.stage })
    })
    const midway = seen.filter((s) => s.status === 'running' && s.progress > 0 && s.progress < 1)
    expect(midway.length, JSON.stringify(seen)).toBeGreaterThan(0)
    // every stage is stored as it starts, whatever the throttle (tokenizing is reported only when it lasts)
    const stages = [...new Set(midway.map((s) => s.stage))].filter((s) => s !== 'tokenizing')
    expect(stages, JSON.stringify(seen)).toEqual(['fingerprinting', 'comparing', 'fragments'])
    expect(midway.find((s) => s.stage === 'fingerprinting')!.progress).toBe(0.6)
    expect(midway.find((s) => s.stage === 'comparing')!.progress).toBe(0.7)
    expect(midway.find((s) => s.stage === 'fragments')!.progress).toBe(0.85)
    // it never goes back, and never says 1 while still running
    const progress = seen.filter((s) => s.status === 'running').map((s) => s.progress)
    expect(progress).toEqual([...progress].sort((a, b) => a - b))
    expect(progress.every((p) => p < 1)).toBe(true)
    const done = reportReply(deps, getReport(deps, client, row.publicId))
    expect(done).toMatchObject({ status: 'completed', progress: 1, stage: null })
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
