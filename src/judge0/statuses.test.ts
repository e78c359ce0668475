import { describe, expect, it } from 'vitest'
import { judge0Strip, outputMatches, runReport, STATUSES, statusById } from './statuses.ts'

describe('Judge0 statuses', () => {
  it('are ids 1–14 with Judge0 CE 1.13.1 descriptions', () => {
    expect(STATUSES.map((s) => s.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
    expect(statusById(1).description).toBe('In Queue')
    expect(statusById(11).description).toBe('Runtime Error (NZEC)')
    expect(statusById(14).description).toBe('Exec Format Error')
  })

  it('compares output Judge0\'s way: trailing whitespace per line and trailing blank lines ignored', () => {
    expect(judge0Strip('a  \r\nb\t\n\n\n')).toBe('a\nb')
    expect(outputMatches('hello, world', 'hello, world\n')).toBe(true)
    expect(outputMatches('1 2\n3', '1 2   \n3\n\n')).toBe(true)
    expect(outputMatches('a\nb', 'a\n\nb')).toBe(false)
    expect(outputMatches(' a', 'a')).toBe(false)
    expect(outputMatches(null, 'anything')).toBe(true)
    expect(outputMatches('', '')).toBe(true)
  })

  it.each([
    [{ status: 'ok', exitCode: 0, signal: null }, 'x', 'x\n', { statusId: 3, exitCode: 0, exitSignal: null, message: null }],
    [{ status: 'ok', exitCode: 0, signal: null }, 'y', 'x\n', { statusId: 4, exitCode: 0, exitSignal: null, message: null }],
    [{ status: 'time', exitCode: null, signal: 'SIGKILL' }, null, '', { statusId: 5, exitCode: 0, exitSignal: null, message: 'Time limit exceeded' }],
    [{ status: 'wall', exitCode: null, signal: 'SIGKILL' }, null, '', { statusId: 5, exitCode: 0, exitSignal: null, message: 'Time limit exceeded (wall clock)' }],
    [{ status: 'signal', exitCode: null, signal: 'SIGSEGV' }, null, '', { statusId: 7, exitCode: 0, exitSignal: 11, message: 'Caught fatal signal 11' }],
    [{ status: 'output', exitCode: null, signal: 'SIGXFSZ' }, null, '', { statusId: 8, exitCode: 0, exitSignal: 25, message: 'Caught fatal signal 25' }],
    [{ status: 'signal', exitCode: null, signal: 'SIGFPE' }, null, '', { statusId: 9, exitCode: 0, exitSignal: 8, message: 'Caught fatal signal 8' }],
    [{ status: 'signal', exitCode: null, signal: 'SIGABRT' }, null, '', { statusId: 10, exitCode: 0, exitSignal: 6, message: 'Caught fatal signal 6' }],
    [{ status: 'exit', exitCode: 3, signal: null }, null, '', { statusId: 11, exitCode: 3, exitSignal: null, message: 'Exited with error status 3' }],
    [{ status: 'signal', exitCode: null, signal: 'SIGBUS' }, null, '', { statusId: 12, exitCode: 0, exitSignal: 7, message: 'Caught fatal signal 7' }],
    [{ status: 'memory', exitCode: null, signal: 'SIGKILL' }, null, '', { statusId: 12, exitCode: 0, exitSignal: 9, message: 'Caught fatal signal 9' }],
    [{ status: 'internal', exitCode: null, signal: null }, null, '', { statusId: 13, exitCode: null, exitSignal: null, message: 'the sandbox could not run the program' }],
  ] as const)('run %j → Judge0 report', (run, expected, stdout, report) => {
    expect(runReport(run, expected, stdout)).toEqual(report)
  })
})
