import { describe, expect, test } from 'vitest'
import { okRun } from '../testing/fake-pool.ts'
import type { JobResult } from '../jobs/types.ts'
import type { RunResult } from '../sandbox/types.ts'
import { InternalFailure, verdictOf } from './verdict.ts'

const limits = { timeLimitSec: 2, memoryLimitKb: 65536 }
const ran = (over: Partial<RunResult>): JobResult => ({ compile: { ok: true, message: '' }, run: okRun(over) })

describe('verdictOf', () => {
  test.each([
    ['exit 0', { status: 'ok' }, 'AC', 'NA'],
    ['exit 3', { status: 'exit', exitCode: 3 }, 'RE', 'NZEC'],
    ['SIGSEGV', { status: 'signal', signal: 'SIGSEGV', exitCode: null }, 'RE', 'SIGSEGV'],
    ['SIGFPE', { status: 'signal', signal: 'SIGFPE', exitCode: null }, 'RE', 'SIGFPE'],
    ['SIGBUS', { status: 'signal', signal: 'SIGBUS', exitCode: null }, 'RE', 'SIGBUS'],
    ['SIGABRT', { status: 'signal', signal: 'SIGABRT', exitCode: null }, 'RE', 'SIGABRT'],
    ['SIGXFSZ by signal', { status: 'signal', signal: 'SIGXFSZ', exitCode: null }, 'RE', 'SIGXFSZ'],
    ['SIGTERM', { status: 'signal', signal: 'SIGTERM', exitCode: null }, 'RE', 'OTHER'],
    ['output cap', { status: 'output' }, 'RE', 'SIGXFSZ'],
    ['cpu limit', { status: 'time', cpuSec: 2.01 }, 'TLE', 'NA'],
    ['wall limit', { status: 'wall', cpuSec: 0 }, 'TLE', 'NA'],
    ['memory limit', { status: 'memory', memoryKb: 65536 }, 'MLE', 'NA'],
    // precedence is the sandbox's (sandbox/outcome.ts): its status is taken as given, never re-guessed
    ['OOM-killed while over time', { status: 'memory', cpuSec: 5 }, 'MLE', 'NA'],
    ['a SIGKILL the sandbox did not attribute to a limit', { status: 'signal', signal: 'SIGKILL', memoryKb: 65536 }, 'RE', 'OTHER'],
    ['a non-zero exit with high cpu figures', { status: 'exit', exitCode: 1, cpuSec: 2.5 }, 'RE', 'NZEC'],
  ] as [string, Partial<RunResult>, string, string][])('%s → %s %s', (_name, run, verdict, detail) => {
    const v = verdictOf(ran(run), limits)
    expect(v.verdict).toBe(verdict)
    expect(v.statusDetail).toBe(detail)
  })

  test('figures and streams are carried through', () => {
    const v = verdictOf(ran({ cpuSec: 0.123456, memoryKb: 2048.6, stdout: 'out', stderr: 'err' }), limits)
    expect(v).toMatchObject({ timeUsedSec: 0.123456, memoryUsedKb: 2049, stdout: 'out', stderr: 'err', compileStatus: 'OK', signal: 'OTHER', exitCode: 0 })
  })

  test('a signal is named in signal', () => {
    expect(verdictOf(ran({ status: 'signal', signal: 'SIGSEGV', exitCode: null }), limits).signal).toBe('SIGSEGV')
  })

  test('compile error: CE with the compiler text as compile_status', () => {
    const v = verdictOf({ compile: { ok: false, message: 'main.c:1: error', step: okRun({ status: 'exit', exitCode: 1 }) } }, limits)
    expect(v).toMatchObject({ verdict: 'CE', compileStatus: 'main.c:1: error', exitCode: 1 })
  })

  test('a compile error without text still never reads OK', () => {
    expect(verdictOf({ compile: { ok: false, message: '  ' } }, limits).compileStatus).toBe('Compilation failed')
  })

  test('compile only: no verdict, compile_status OK', () => {
    expect(verdictOf({ compile: { ok: true, message: '' } }, limits)).toMatchObject({ verdict: null, compileStatus: 'OK' })
  })

  test('our own faults are not verdicts', () => {
    expect(() => verdictOf(ran({ status: 'internal', message: 'no cgroup' }), limits)).toThrow(InternalFailure)
    expect(() => verdictOf({ compile: { ok: false, message: '', step: okRun({ status: 'internal' }) } }, limits)).toThrow(InternalFailure)
  })
})
