// Pure: one test's run (the sandbox's neutral RunResult) and the expected output → the test's outcome.
// The run's own verdict comes first (TLE, MLE, RE by the same fixed order as a plain submission);
// only a run that ended well is judged by the checker, AC or WA.
import { runVerdict } from '../evaluation/verdict.ts'
import type { TestOutcome } from '../jobs/types.ts'
import type { RunResult } from '../sandbox/types.ts'
import { check, type CheckerSpec } from './checkers.ts'

export function judgeTest(run: RunResult, expectedOutput: string, checker: CheckerSpec, limits: { timeLimitSec: number; memoryLimitKb: number }): TestOutcome {
  const { verdict, statusDetail } = runVerdict(run, limits)
  const figures = {
    timeUsedSec: run.cpuSec,
    memoryUsedKb: Math.round(run.memoryKb),
    exitCode: run.exitCode,
    signal: run.signal ?? 'OTHER',
    stdout: run.stdout,
  }
  if (verdict !== 'AC') return { ...figures, status: verdict as TestOutcome['status'], statusDetail, checkerMessage: '', earned: 0 }
  const judged = check(checker, expectedOutput, run.stdout)
  return judged.ok
    ? { ...figures, status: 'AC', statusDetail: 'NA', checkerMessage: '', earned: 1 }
    : { ...figures, status: 'WA', statusDetail: 'NA', checkerMessage: judged.message, earned: 0 }
}

/** A test not run because an earlier one failed and the submission asked to stop there. */
export const SKIPPED: TestOutcome = {
  status: 'SKIPPED',
  statusDetail: 'NA',
  timeUsedSec: 0,
  memoryUsedKb: 0,
  exitCode: null,
  signal: 'OTHER',
  checkerMessage: '',
  earned: 0,
  stdout: '',
}
