import { describe, expect, it } from 'vitest'
import type { RunResult } from '../sandbox/types.ts'
import { checkerOutcome, interactiveOutcome, judgeTest } from './judge-test.ts'

const run = (over: Partial<RunResult>): RunResult => ({ status: 'ok', exitCode: 0, signal: undefined, cpuSec: 0.01, wallSec: 0.02, memoryKb: 1000, stdout: '42\n', stderr: '', ...over }) as RunResult
const limits = { timeLimitSec: 1, memoryLimitKb: 65536 }

describe('judging one test', () => {
  it("the run's own verdict comes first; only a run that ended well is compared", () => {
    expect(judgeTest(run({ status: 'time' }), '42', 'lines', limits).status).toBe('TLE')
    expect(judgeTest(run({ status: 'exit', exitCode: 1 }), '42', 'lines', limits)).toMatchObject({ status: 'RE', statusDetail: 'NZEC' })
    expect(judgeTest(run({}), '42', 'lines', limits)).toMatchObject({ status: 'AC', earned: 1 })
    expect(judgeTest(run({ stdout: '41\n' }), '42', 'lines', limits)).toMatchObject({ status: 'WA', earned: 0, checkerMessage: 'line 1: expected "42", got "41"' })
  })

  it('judges the bytes the program wrote, not their UTF-8 decoding (FE and FF both read as U+FFFD)', () => {
    const decoded = run({ stdout: '\uFFFD' })
    expect(judgeTest(decoded, '\uFFFD', 'exact', limits).status).toBe('AC')
    expect(judgeTest(decoded, '\uFFFD', 'exact', limits, { stdoutBytes: Buffer.from([0xfe]) }).status).toBe('WA')
    expect(judgeTest(decoded, '\uFFFD', 'exact', limits, { stdoutBytes: Buffer.from('\uFFFD') }).status).toBe('AC')
  })

  it('judging past grading.judge_time_sec is IE, with the reason', () => {
    const big = '1 '.repeat(1 << 20)
    const o = judgeTest(run({ stdout: big }), big, { type: 'float' }, limits, { timeMs: 0 })
    expect(o).toMatchObject({ status: 'IE', earned: 0 })
    expect(o.checkerMessage).toMatch(/judge_time_sec/)
    expect(judgeTest(run({ stdout: big }), big, { type: 'float' }, limits, { timeMs: 60_000 }).status).toBe('AC')
  }, 30_000) // two passes over 2 MB: 3-8 s on this machine under the other tests' load
})

describe("a checker program's run, by testlib's exit codes", () => {
  const program = run({})
  const checker = (over: Partial<RunResult>) => checkerOutcome(program, run({ stdout: '', ...over }))
  it.each([
    [{ status: 'ok' as const }, 'AC', 'NA', 1],
    [{ status: 'exit' as const, exitCode: 1 }, 'WA', 'NA', 0],
    [{ status: 'exit' as const, exitCode: 2 }, 'WA', 'PE', 0],
    [{ status: 'exit' as const, exitCode: 7, stdout: '0.5\n' }, 'WA', 'PARTIAL', 0.5],
    [{ status: 'exit' as const, exitCode: 7, stdout: '1' }, 'AC', 'NA', 1],
    [{ status: 'exit' as const, exitCode: 7, stdout: '1.5' }, 'IE', 'NA', 0],
    [{ status: 'exit' as const, exitCode: 7, stdout: '-0.1' }, 'IE', 'NA', 0],
    // a long digit run is refused by its length, not by a backtracking pattern
    [{ status: 'exit' as const, exitCode: 7, stdout: '1'.repeat(1 << 20) + 'x' }, 'IE', 'NA', 0],
    [{ status: 'exit' as const, exitCode: 3 }, 'IE', 'NA', 0],
    [{ status: 'exit' as const, exitCode: 4 }, 'IE', 'NA', 0],
    [{ status: 'signal' as const, signal: 'SIGSEGV' }, 'IE', 'NA', 0],
    [{ status: 'time' as const }, 'IE', 'NA', 0],
    [{ status: 'memory' as const }, 'IE', 'NA', 0],
  ])('%j → %s %s, earned %d', (over, status, detail, earned) => {
    expect(checker(over)).toMatchObject({ status, statusDetail: detail, earned })
  })
  it("its stderr is the checker_message, capped; the program's figures are the test's", () => {
    const o = checker({ status: 'exit', exitCode: 1, stderr: 'x'.repeat(10_000), cpuSec: 3 })
    expect(Buffer.byteLength(o.checkerMessage)).toBeLessThanOrEqual(4096 + 3)
    expect(o.timeUsedSec).toBe(0.01)
    expect(o.stdout).toBe('42\n')
  })
})

describe('an interactive test: who decides (problemtools\' _run_interactive)', () => {
  const v = (exitCode: number | null, endUs: number, over: Partial<RunResult> = {}) => run({ status: exitCode === 0 ? 'ok' : 'exit', exitCode, endUs, stdout: '', ...over })
  const p = (over: Partial<RunResult>, endUs: number) => run({ stdout: '', endUs, ...over })
  it('the validator\'s own fault is IE whatever the submission did', () => {
    expect(interactiveOutcome(p({ status: 'time' }, 5), v(1, 1), {}, limits).status).toBe('IE')
    expect(interactiveOutcome(p({}, 5), v(null, 9, { status: 'signal', signal: 'SIGABRT' }), {}, limits).checkerMessage).toBe('output validator killed by SIGABRT')
    expect(interactiveOutcome(p({}, 5), v(null, 9, { status: 'wall' }), {}, limits).checkerMessage).toBe('output validator exceeded its wall limit')
  })
  it('a rejection before the submission ended is WA; after it, the submission\'s TLE then RTE come first', () => {
    expect(interactiveOutcome(p({ status: 'time' }, 5), v(43, 4), { judgemessage: 'early' }, limits)).toMatchObject({ status: 'WA', checkerMessage: 'early' })
    expect(interactiveOutcome(p({ status: 'exit', exitCode: 3 }, 5), v(43, 4), {}, limits).status).toBe('WA')
    expect(interactiveOutcome(p({ status: 'time' }, 5), v(43, 6), {}, limits).status).toBe('TLE')
    expect(interactiveOutcome(p({ status: 'exit', exitCode: 3 }, 5), v(43, 6), {}, limits).status).toBe('RE')
    expect(interactiveOutcome(p({}, 5), v(43, 6), {}, limits).status).toBe('WA')
  })
  it('a submission killed by SIGPIPE wrote after the validator had gone: a rejection decides, whatever the end times say', () => {
    expect(interactiveOutcome(p({ status: 'signal', signal: 'SIGPIPE' }, 5), v(43, 6), { judgemessage: 'got 1' }, limits)).toMatchObject({ status: 'WA', checkerMessage: 'got 1' })
    expect(interactiveOutcome(p({ status: 'signal', signal: 'SIGSEGV' }, 5), v(43, 6), {}, limits).status).toBe('RE')
    expect(interactiveOutcome(p({ status: 'signal', signal: 'SIGPIPE' }, 5), v(42, 6), {}, limits).status).toBe('RE')
  })
  it('an acceptance decides only when the submission ended well, whenever the validator ended', () => {
    expect(interactiveOutcome(p({}, 5), v(42, 4), {}, limits)).toMatchObject({ status: 'AC', earned: 1 })
    expect(interactiveOutcome(p({ status: 'time' }, 5), v(42, 4), {}, limits).status).toBe('TLE')
    expect(interactiveOutcome(p({ status: 'signal', signal: 'SIGPIPE' }, 5), v(42, 4), {}, limits).status).toBe('RE')
  })
})
