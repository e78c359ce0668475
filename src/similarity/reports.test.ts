// Choosing a report's submissions: the too-many refusal on the problem_id path (the he_ids path is in
// the e2e test), counted after the language family is chosen; and the sources read for the child in
// batches bounded by size, in the report's order, a submission removed since left out.
import { eq } from 'drizzle-orm'
import { afterEach, describe, expect, test } from 'vitest'
import { findClientBySecret, type Client } from '../clients/clients.ts'
import { AppError } from '../errors.ts'
import { acceptSubmission } from '../evaluation/submissions.ts'
import { createProblem } from '../problems/problems.ts'
import { similarityReports, submissions } from '../storage/schema.ts'
import { addClient, createTestDeps, testConfig, type TestDeps } from '../testing/evaluation.ts'
import { requestReport, sourceBatches, storedOf } from './reports.ts'

let deps: TestDeps | undefined
afterEach(async () => {
  await deps?.stop()
  deps = undefined
})

const PY = (k: number) => `def f${k}(x):\n    return x * ${k}\n\nprint(f${k}(int(input())))\n`
const JAVA = 'public class Main { public static void main(String[] a) { System.out.println(1); } }\n'

/** A problem of `client` with `python` PYTHON3 submissions and one JAVA submission. */
function problemWith(d: TestDeps, client: Client, python: number): string {
  const problemId = createProblem(d, client, { name: 'sums', tests: [{ input: '1', expected_output: '1' }] }).problem.publicId
  for (let k = 0; k < python; k++) acceptSubmission(d, client, { api: 'v4', lang: 'PYTHON3', source: PY(k), problemId })
  acceptSubmission(d, client, { api: 'v4', lang: 'JAVA', source: JAVA, problemId })
  return problemId
}

function refusal(fn: () => unknown): AppError {
  try {
    fn()
  } catch (err) {
    if (err instanceof AppError) return err
    throw err
  }
  throw new Error('not refused')
}

describe('requestReport by problem_id', () => {
  test('a problem with more submissions of the family than similarity.max_submissions is refused, nothing stored', () => {
    deps = createTestDeps({ config: testConfig({ similarity: { max_submissions: 3 } }), start: false })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const problemId = problemWith(deps, client, 4)
    const err = refusal(() => requestReport(deps!, client, { problem_id: problemId, language: 'python' }))
    expect(err.code).toBe('InvalidArgument')
    expect(err.detail).toBe('too many submissions: 4, at most 3 per report (similarity.max_submissions)')
    expect(err.data).toEqual({ submissions: 4, max_submissions: 3 })
    expect(deps.db.select().from(similarityReports).all()).toHaveLength(0)
    // counted within the family asked for: the problem's one java submission is too few, not too many
    expect(refusal(() => requestReport(deps!, client, { problem_id: problemId, language: 'java' })).detail).toMatch(/at least two java submissions; found 1/)
  })

  test('at the limit it is accepted', () => {
    deps = createTestDeps({ config: testConfig({ similarity: { max_submissions: 4 } }), start: false })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const row = requestReport(deps, client, { problem_id: problemWith(deps, client, 4), language: 'PYTHON3' })
    expect(row).toMatchObject({ state: 'queued', submissionCount: 4, language: 'python' })
  })
})

describe('sourceBatches', () => {
  test('the sources in the report\'s order, in batches of at most maxBytes (a larger source alone), a removed one left out', () => {
    deps = createTestDeps({ start: false })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const sizes = [300, 300, 300, 900, 100, 100, 2000, 50]
    const heIds = sizes.map((n, k) => acceptSubmission(deps!, client, { api: 'v4', lang: 'PYTHON3', source: `# ${k}\n${'x'.repeat(n - `# ${k}\n`.length)}` }).publicId)
    const row = requestReport(deps, client, { he_ids: heIds })
    deps.db.delete(submissions).where(eq(submissions.publicId, heIds[5]!)).run()
    const stored = storedOf(deps, row)
    expect(stored.map((s) => s.id)).toEqual(heIds.filter((_, k) => k !== 5))
    expect(stored.map((s) => s.bytes)).toEqual(sizes.filter((_, k) => k !== 5))
    const batches = [...sourceBatches(deps, row, stored, 1000)]
    expect(batches.map((b) => b.map((f) => Number(/^# (\d+)/.exec(f.source)![1])))).toEqual([[0, 1, 2], [3, 4], [6], [7]])
    for (const b of batches) for (const f of b) expect(f.id).toBe(heIds[Number(/^# (\d+)/.exec(f.source)![1])])
    // a source removed after the sizes were read is left out of its batch
    deps.db.delete(submissions).where(eq(submissions.publicId, heIds[4]!)).run()
    expect([...sourceBatches(deps, row, stored, 1000)].flat().map((f) => f.id)).toEqual(heIds.filter((_, k) => k !== 5 && k !== 4))
  })
})
