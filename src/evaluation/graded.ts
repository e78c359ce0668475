// Graded submissions: the test cases stored with a submission, each test's outcome as the
// worker reports it, and the submission's verdict and score from its tests. The worker judges each
// test (grading/judge-test.ts); this file only stores and sums up.
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { CheckerSpec } from '../grading/checkers.ts'
import type { JobTest, TestOutcome } from '../jobs/types.ts'
import { submissionTests } from '../storage/schema.ts'
import type { Submission } from './model.ts'
import { preparedPerDb } from '../storage/prepared.ts'

export type SubmissionTest = typeof submissionTests.$inferSelect

/** A test case as a request gives it (v4 test_cases). */
export interface TestCaseInput {
  /** A stored problem's test name; the 1-based number otherwise. */
  name?: string
  input: string
  expected_output: string
  points?: number
  time_limit?: number
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8')

/**
 * Refuses more test cases than grading.max_tests by their count alone: a request's test_cases are
 * counted with this before anything validates them one by one (a 2 MiB body holds ~60,000 empty ones).
 */
export function checkTestCount(config: Deps['config'], tests: unknown): void {
  const max = config.grading.max_tests
  if (Array.isArray(tests) && tests.length > max) throw new AppError('PayloadTooLarge', `more than ${max} test cases`, { max_tests: max, test_count: tests.length })
}

/** Checks the tests against grading.* and clamps their time limits; the rows to insert (without the submission id). */
export function testRows(
  config: Deps['config'],
  tests: TestCaseInput[],
  clampTime: (t: number | undefined) => number | null
): Omit<typeof submissionTests.$inferInsert, 'submissionId'>[] {
  const g = config.grading
  if (tests.length === 0) throw new AppError('InvalidArgument', 'test_cases is empty', { test_cases: [] })
  checkTestCount(config, tests)
  let total = 0
  return tests.map((t, position) => {
    for (const field of ['input', 'expected_output'] as const) {
      const n = bytes(t[field])
      total += n
      if (n > g.test_max_bytes)
        throw new AppError('PayloadTooLarge', `test ${position + 1}: ${field} is larger than ${g.test_max_bytes} bytes`, { test_max_bytes: g.test_max_bytes })
    }
    if (total > g.total_max_bytes)
      throw new AppError('PayloadTooLarge', `the test cases are larger than ${g.total_max_bytes} bytes in all`, { total_max_bytes: g.total_max_bytes })
    return {
      position,
      name: t.name ?? String(position + 1),
      input: t.input,
      expectedOutput: t.expected_output,
      points: t.points ?? 1,
      timeLimitSec: clampTime(t.time_limit),
    }
  })
}

const p = sql.placeholder

// Prepared once per database: a graded submission reads its tests and writes each test's outcome
// several times on the main thread, and building and preparing each drizzle query anew cost more
// than running it (a third of the main thread's time per graded submission in bench-grading)
function prepare(db: Deps['db']) {
  const ofSubmission = eq(submissionTests.submissionId, p('submissionId'))
  return {
    tests: db.select().from(submissionTests).where(ofSubmission).orderBy(asc(submissionTests.position)).prepare(),
    points: db.select({ points: submissionTests.points }).from(submissionTests).where(ofSubmission).orderBy(asc(submissionTests.position)).prepare(),
    record: db
      .update(submissionTests)
      .set({
        status: p('status'),
        statusDetail: p('statusDetail'),
        timeUsedSec: p('timeUsedSec'),
        memoryUsedKb: p('memoryUsedKb'),
        exitCode: p('exitCode'),
        signal: p('signal'),
        earnedPoints: p('earnedPoints'),
        checkerMessage: p('checkerMessage'),
        stdout: p('stdout'),
        score: p('score'),
        attempt: p('attempt'),
      } as never)
      .where(and(ofSubmission, eq(submissionTests.position, p('position'))))
      .prepare(),
  }
}
const stmts = preparedPerDb(prepare)

export function testsOf(db: Deps['db'], submissionId: number): SubmissionTest[] {
  return stmts(db).tests.all({ submissionId })
}

/** Each test's points, in order (without reading inputs and outputs). */
export function testPoints(db: Deps['db'], submissionId: number): number[] {
  return stmts(db)
    .points.all({ submissionId })
    .map((t) => t.points)
}

/** The job's tests, in order. */
export const jobTests = (tests: SubmissionTest[]): JobTest[] =>
  tests.map((t) => ({ input: t.input, expectedOutput: t.expectedOutput, ...(t.timeLimitSec !== null ? { timeLimitSec: t.timeLimitSec } : {}) }))

export const checkerOf = (row: Submission): CheckerSpec | undefined => (row.checkerJson ? (JSON.parse(row.checkerJson) as CheckerSpec) : undefined)

/** Stores one test's outcome for the claim `attempt` (a later attempt overwrites an earlier one's). */
export function recordTest(db: Deps['db'], row: Submission, position: number, outcome: TestOutcome, points: number): void {
  stmts(db).record.run({
    submissionId: row.id,
    position,
    status: outcome.status,
    statusDetail: outcome.statusDetail ?? null,
    timeUsedSec: outcome.timeUsedSec,
    memoryUsedKb: outcome.memoryUsedKb,
    exitCode: outcome.exitCode ?? null,
    signal: outcome.signal ?? null,
    earnedPoints: outcome.earned * points,
    checkerMessage: outcome.checkerMessage ?? null,
    stdout: outcome.stdout ?? null,
    score: outcome.score ?? null,
    attempt: row.attempt,
  })
}

/**
 * The submission's verdict from its tests: the first test that is not AC decides (its status, detail,
 * signal, exit code and stdout), else the last test; time and memory are the maxima over the tests.
 */
export function gradedVerdict(outcomes: TestOutcome[]) {
  const deciding = outcomes.find((o) => o.status !== 'AC' && o.status !== 'SKIPPED') ?? outcomes[outcomes.length - 1]
  return {
    verdict: deciding.status,
    statusDetail: deciding.statusDetail,
    signal: deciding.signal,
    exitCode: deciding.exitCode,
    timeUsedSec: Math.max(...outcomes.map((o) => o.timeUsedSec)),
    memoryUsedKb: Math.max(...outcomes.map((o) => o.memoryUsedKb)),
    stdout: deciding.stdout,
  }
}

export interface Score {
  passed: number
  total: number
  points: number
  max_points: number
}

export function scoreOf(tests: SubmissionTest[]): Score {
  const round = (n: number) => Math.round(n * 1e6) / 1e6
  return {
    passed: tests.filter((t) => t.status === 'AC').length,
    total: tests.length,
    points: round(tests.reduce((sum, t) => sum + (t.earnedPoints ?? 0), 0)),
    max_points: round(tests.reduce((sum, t) => sum + t.points, 0)),
  }
}
