// The result schema a sandbox host's messages are read with takes every field a local run reports: a
// field added to a run's result (its type) and not to the schema made every host's result unreadable.
import { expect, test } from 'vitest'
import type { RunResult } from '../sandbox/types.ts'
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
