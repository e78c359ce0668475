// The result schema a sandbox host's messages are read with takes every field a local run reports: a
// field added to a run's result (its type) and not to the schema made every host's result unreadable.
import { expect, test } from 'vitest'
import type { RunResult } from '../sandbox/types.ts'
import type { TestOutcome } from '../grading/types.ts'
import { jobRequestSchema } from '../jobs/jail-protocol.ts'
import type { Job } from '../jobs/types.ts'
import { testConfig } from '../testing/evaluation.ts'
import { resultMessageSchema } from './wire.ts'

test("a host's result with every field of a run's result is readable", () => {
  // Required<…>: a new optional field of RunResult fails to compile here until it is written below
  const run: Required<RunResult> = {
    status: 'ok',
    exitCode: 0,
    signal: null,
    cpuSec: 0.01,
    wallSec: 0.02,
    memoryKb: 1024,
    stdout: 'hi\n',
    stderr: '',
    textCut: false,
    message: '',
    endUs: 123456789,
  }
  const message = { key: '7:1', host: 'h1', kind: 'result', result: { compile: { ok: true, message: '', step: run }, run } }
  expect(resultMessageSchema(1 << 20, 100).safeParse(message)).toMatchObject({ success: true })
  // and it stays strict: a key no run reports is refused
  expect(resultMessageSchema(1 << 20, 100).safeParse({ ...message, result: { ...message.result, run: { ...run, extra: 1 } } }).success).toBe(false)
})

test("an interactive, multi-pass job reaches a host whole, and its tests' outcomes come back readable", () => {
  // what the API host sends for a graded submission of such a problem: the host reads it with the same
  // checks as the jail daemon (non-strict objects would drop an unknown field silently: compared whole)
  const job: Job = {
    language: 'C',
    source: 'int main(void){return 0;}',
    input: '',
    timeLimitSec: 1,
    memoryLimitKb: 65536,
    tests: [{ input: 'play 3\n', expectedOutput: '', timeLimitSec: 2, checkerFlags: ['x'] }],
    checker: { type: 'output_validator', lang: 'C', source: 'int main(void){return 42;}', files: [{ name: 'v.h', content: '' }], flags: ['a'], interactive: true, passes: 3 },
    validatorScores: 'allowed',
    stopOnFirstFailure: true,
  }
  const parsed = jobRequestSchema(testConfig()).safeParse({ job })
  expect(parsed.success && parsed.data.job).toEqual(job)
  // a wired test's outcome as the worker reports it (every field of TestOutcome, score included)
  const outcome: Required<TestOutcome> = { status: 'IE', statusDetail: 'NA', timeUsedSec: 0.5, memoryUsedKb: 900, exitCode: 0, signal: '', checkerMessage: 'output validator exceeded its wall limit', earned: 0, stdout: '', score: 0 }
  const schema = resultMessageSchema(1 << 20, 100)
  expect(schema.safeParse({ key: 's1-a1', host: 'h1', kind: 'test', index: 0, outcome }).success).toBe(true)
  expect(schema.safeParse({ key: 's1-a1', host: 'h1', kind: 'result', result: { compile: { ok: true, message: '' }, tests: [outcome] } }).success).toBe(true)
})
