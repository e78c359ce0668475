// Each of the core's run statuses has its Jobe outcome (the switch is total over them): a run the
// sandbox could not start is Jobe's internal error (20), never a success because stderr was empty.
import { describe, expect, test } from 'vitest'
import type { RawStep, Submission } from '../evaluation/model.ts'
import { jobeResult, OUTCOME, signalText } from './outcome.ts'

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

const ran = (run: { status: RawStep['status']; signal?: string | null }, stdout: string, stderr: string): Submission =>
  ({
    failure: null,
    verdict: null,
    stdout,
    stderr,
    rawResultJson: JSON.stringify({ compile: null, run: { exitCode: null, signal: null, cpuSec: 0, wallSec: 0, memoryKb: 0, ...run } }),
  }) as unknown as Submission

describe('the jail work folder, as CodeRunner removes Jobe’s', () => {
  test('a traceback names the file alone, in stderr, stdout and cmpinfo', () => {
    const tb = 'Traceback (most recent call last):\n  File "/work/__tester__.python3", line 3, in <module>\n    boom()\nZeroDivisionError: division by zero\n'
    const r = jobeResult(ran({ status: 'exit' }, 'cwd /work/data.txt\n', tb))
    expect(r.stderr).toBe(tb.replace('/work/', ''))
    expect(r.stdout).toBe('cwd data.txt\n')
    expect(r.outcome).toBe(OUTCOME.runtimeError)
    // node's trace and its file URL; several on one line
    const node = 'file:///work/prog.mjs:2\n    at Object.<anonymous> (/work/prog.js:2:7) (/work/x.js)\n'
    expect(jobeResult(ran({ status: 'exit' }, '', node)).stderr).toBe('file://prog.mjs:2\n    at Object.<anonymous> (prog.js:2:7) (x.js)\n')
    const ce = { failure: null, verdict: 'CE', compileStatus: 'x', stdout: '', stderr: '', rawResultJson: JSON.stringify({ compile: { status: 'exit', stdout: '', stderr: '/work/prog.c:1: error\n', exitCode: 1, signal: null, cpuSec: 0, wallSec: 0, memoryKb: 0 }, run: null }) } as unknown as Submission
    expect(jobeResult(ce).cmpinfo).toBe('prog.c:1: error\n')
  })

  test('a path that only ends in work/ stays, and so does /work/ before what CodeRunner would not strip', () => {
    const text = '/home/u/work/a my-work/b ./work/c /work/ /work/.hidden\n'
    expect(jobeResult(ran({ status: 'ok' }, text, '')).stdout).toBe(text)
  })
})

describe("Java's stack traces as JavaTask shows them", () => {
  const trace = 'Exception in thread "main" java.lang.RuntimeException: boom\n\tat Boom.f(Boom.java:3)\n\tat Boom.main(Boom.java:5)\n'
  test('each newline-tab is a newline and eight spaces for java', () => {
    expect(jobeResult(ran({ status: 'exit' }, 'a\n\tb', trace), { stderrTabsAsSpaces: true })).toMatchObject({
      outcome: OUTCOME.runtimeError,
      stdout: 'a\n\tb',
      stderr: 'Exception in thread "main" java.lang.RuntimeException: boom\n        at Boom.f(Boom.java:3)\n        at Boom.main(Boom.java:5)\n',
    })
  })
  test('other languages keep their tabs', () => {
    expect(jobeResult(ran({ status: 'exit' }, '', trace)).stderr).toBe(trace)
  })
})

describe('signals as the shell writes them', () => {
  test.each([
    ['SIGTRAP', 'Trace/breakpoint trap\n'],
    ['SIGSEGV', 'Segmentation fault\n'],
    ['SIGABRT', 'Aborted\n'],
    ['SIGUSR1', 'User defined signal 1\n'],
    ['SIGALRM', 'Alarm clock\n'],
    ['SIGHUP', 'Hangup\n'],
    ['SIGSYS', 'Bad system call\n'],
    ['SIG40', 'Real-time signal 6\n'],
  ])('%s → %j, after what the program wrote (no newline added)', (signal, text) => {
    expect(jobeResult(ran({ status: 'signal', signal }, '', 'half'))).toMatchObject({ outcome: OUTCOME.runtimeError, stderr: `half${text}` })
    expect(signalText(signal)).toBe(text)
  })
  test('SIGPIPE and SIGINT: the shell says nothing, so an empty stderr is a success as on Jobe', () => {
    expect(jobeResult(ran({ status: 'signal', signal: 'SIGPIPE' }, 'x', ''))).toMatchObject({ outcome: OUTCOME.success, stderr: '' })
    expect(jobeResult(ran({ status: 'signal', signal: 'SIGINT' }, 'x', 'e'))).toMatchObject({ outcome: OUTCOME.runtimeError, stderr: 'e' })
  })
})

describe("PHP's cmpinfo as PhpTask builds it", () => {
  const php = { status: 'exit' as const, stdout: 'Errors parsing prog.php', stderr: 'PHP Parse error:  syntax error, unexpected end of file in prog.php on line 3\n' }
  const ce = { failure: null, verdict: 'CE', compileStatus: 'core message', stdout: '', stderr: '', rawResultJson: JSON.stringify({ compile: { ...php, exitCode: 255, signal: null, cpuSec: 0, wallSec: 0, memoryKb: 0 }, run: null }) } as unknown as Submission
  test('stdout, a newline, then stderr as written (its final newline kept)', () => {
    expect(jobeResult(ce, { cmpinfoStdoutFirst: true }).cmpinfo).toBe(`${php.stdout}\n${php.stderr}`)
  })
})
