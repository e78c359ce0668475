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

describe('cmpinfo of a compile error', () => {
  const ce = (compile: { status: RawStep['status']; stdout: string; stderr: string }, compileStatus: string): Submission =>
    ({
      failure: null,
      verdict: 'CE',
      compileStatus,
      stdout: '',
      stderr: '',
      rawResultJson: JSON.stringify({ compile: { ...compile, exitCode: 1, signal: null, cpuSec: 0, wallSec: 0, memoryKb: 0 }, run: null }),
    }) as unknown as Submission

  test("the compiler's stderr as written, untrimmed, as a native Jobe answers", () => {
    const text = '  File "prog.py", line 1\n    print(\n         ^\nSyntaxError: \'(\' was never closed\n'
    expect(jobeResult(ce({ status: 'exit', stdout: '', stderr: text }, text.trim()))).toMatchObject({ outcome: OUTCOME.compileError, cmpinfo: text })
  })

  test("the core's message when a limit stopped the compile, or when the compiler wrote to stdout too", () => {
    const limited = 'compilation exceeded its time limit (10 s)\nx.c: partial'
    expect(jobeResult(ce({ status: 'time', stdout: '', stderr: 'x.c: partial' }, limited)).cmpinfo).toBe(limited)
    expect(jobeResult(ce({ status: 'exit', stdout: 'prog.pas(1,1) Fatal: Syntax error', stderr: 'Error: fpc returned 1\n' }, 'both')).cmpinfo).toBe('both')
  })
})
