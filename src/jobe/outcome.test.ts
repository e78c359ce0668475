// Each of the core's run statuses has its Jobe outcome (the switch is total over them): a run the
// sandbox could not start is Jobe's internal error (20), never a success because stderr was empty.
import { describe, expect, test } from 'vitest'
import type { RawStep, Submission } from '../evaluation/model.ts'
import { jobeResult, OUTCOME } from './outcome.ts'

const row = (status: RawStep['status'], stderr = '', exitCode: number | null = 0): Submission =>
  ({
    failure: null,
    verdict: null,
    stdout: 'out',
    stderr,
    rawResultJson: JSON.stringify({ compile: null, run: { status, exitCode, signal: status === 'signal' ? 'SIGSEGV' : null, cpuSec: 0, wallSec: 0, memoryKb: 0 } }),
  }) as unknown as Submission

describe('jobeResult by run status', () => {
  test.each([
    ['ok', '', OUTCOME.success],
    ['exit', '', OUTCOME.success],
    ['exit', 'oops', OUTCOME.runtimeError],
    ['signal', '', OUTCOME.runtimeError],
    ['time', '', OUTCOME.timeLimit],
    ['wall', '', OUTCOME.timeLimit],
    ['output', '', OUTCOME.timeLimit],
    ['memory', '', OUTCOME.memoryLimit],
    ['internal', '', OUTCOME.internalError],
  ] as [RawStep['status'], string, number][])('%s (stderr %j) → %i', (status, stderr, outcome) => {
    expect(jobeResult(row(status, stderr)).outcome).toBe(outcome)
  })
})
