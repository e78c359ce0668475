import { describe, expect, it } from 'vitest'
import { checkedEnd, classify, jailFailure, parseInitReport, toRunResult } from './outcome.ts'
import type { SupervisorReply } from './supervisor.ts'
import type { Limits } from './types.ts'

const limits: Limits = { cpuTimeSec: 1, wallTimeSec: 4, memoryKb: 65536, processes: 16, openFiles: 64, fileSizeBytes: 1024 }
const reply = (r: Partial<SupervisorReply> = {}): SupervisorReply => ({
  exit: 0, signal: 0, cpuUs: 1000, wallUs: 2000, memKb: 500, oom: false, limit: 'none', maxRssKb: 0, ...r,
})
const exited = (code: number) => ({ exitCode: code, signal: null })
const signaled = (sig: number) => ({ exitCode: null, signal: sig })

describe('classify: one fixed order of precedence', () => {
  it.each([
    ['exit 0', reply(), exited(0), false, 'ok'],
    ['exit 3', reply(), exited(3), false, 'exit'],
    ['SIGSEGV', reply(), signaled(11), false, 'signal'],
    ['SIGXFSZ', reply(), signaled(25), false, 'output'],
    ['a full output file, even when the program carried on (EFBIG ignored)', reply(), exited(0), true, 'output'],
    ['our CPU limit', reply({ limit: 'cpu' }), signaled(9), false, 'time'],
    ['RLIMIT_CPU backstop', reply(), signaled(24), false, 'time'],
    ['our wall limit', reply({ limit: 'wall' }), signaled(9), false, 'wall'],
    ['an OOM kill beats a time limit', reply({ oom: true, limit: 'cpu' }), signaled(9), false, 'memory'],
    ['SIGKILL at the memory cap without an OOM count', reply({ memKb: 65536 }), signaled(9), false, 'memory'],
    ['a full output file beats a time limit', reply({ limit: 'cpu' }), signaled(9), true, 'output'],
    ['1.011 s of CPU at 1 s, ended before the supervisor stopped it', reply({ cpuUs: 1_011_000 }), exited(0), false, 'time'],
    ['exactly the CPU limit is not past it', reply({ cpuUs: 1_000_000 }), exited(0), false, 'ok'],
    ['a child OOM-killed while its parent exits 0', reply({ oom: true }), exited(0), false, 'memory'],
  ] as const)('%s → %s', (_, r, end, capped, want) => {
    expect(classify(r, end, capped, limits)).toBe(want)
  })

  it('a SIGKILL within 1 MB (or 3%) of a small cap is the OOM killer; further below it is not', () => {
    const small = { ...limits, memoryKb: 16384 }
    expect(classify(reply({ memKb: 15856 }), signaled(9), false, small)).toBe('memory') // seen in CI at the 16 MB floor
    expect(classify(reply({ memKb: 15000 }), signaled(9), false, small)).toBe('signal')
  })

  it('with a grace (judgedCpuSec under cpuTimeSec): TLE past the judged limit though the program ended, or was stopped, later', () => {
    const graced = { ...limits, cpuTimeSec: 1.5, judgedCpuSec: 1 }
    expect(classify(reply({ cpuUs: 1_200_000 }), exited(0), false, graced)).toBe('time')
    expect(classify(reply({ cpuUs: 1_200_000 }), signaled(11), false, graced)).toBe('time')
    expect(classify(reply({ cpuUs: 1_500_000, limit: 'cpu' }), signaled(9), false, graced)).toBe('time')
    expect(classify(reply({ cpuUs: 900_000 }), exited(0), false, graced)).toBe('ok')
    // without it, the enforced limit is the judged one
    expect(classify(reply({ cpuUs: 1_200_000 }), exited(0), false, { ...graced, judgedCpuSec: undefined })).toBe('ok')
  })

  it('counts the memory headroom as part of the cap', () => {
    expect(classify(reply({ memKb: 65536 }), signaled(9), false, limits, 131072)).toBe('signal')
  })
})

describe('evidence parsing', () => {
  it('reads the init report', () => {
    expect(parseInitReport('exit 3\n')).toEqual(exited(3))
    expect(parseInitReport('signal 11\n')).toEqual(signaled(11))
    expect(parseInitReport('')).toBeNull()
  })

  it('tells a jail that never ran the program from one that did', () => {
    const broken = "[W][t][1] createMountTarget():135 mkdir: Permission denied\n[E][t][1] buildMountTree():328 Failed to mount mandatory point: '/work'\n[E][t][9] later\n"
    expect(jailFailure(broken, false)).toBe("buildMountTree():328 Failed to mount mandatory point: '/work'")
    expect(jailFailure(broken, true)).toBeNull()
    expect(jailFailure('', false)).toBeNull() // killed before reporting, nothing went wrong on our side
  })

  it('names signals canonically and reports internal failures as such', () => {
    const out = { stdout: '', stderr: '' }
    expect(toRunResult(reply({ exit: 134 }), { log: '', status: 'signal 6', outputCapped: false }, limits, out).signal).toBe('SIGABRT')
    const broken = toRunResult(reply(), { log: '[E][t] boom', status: '', outputCapped: false }, limits, out)
    expect(broken.status).toBe('internal')
    expect(broken.message).toBe('boom')
    // killed by our limit while nsjail complained: still our limit, not our fault
    expect(toRunResult(reply({ limit: 'wall' }), { log: '[E][t] x', status: '', outputCapped: false }, limits, out).status).toBe('wall')
  })

  it('a supervisor that could not start nsjail (exit 120-125, no report, no log) is our fault', () => {
    const out = { stdout: '', stderr: '' }
    const noExec = toRunResult(reply({ exit: 124 }), { log: '', status: '', outputCapped: false }, limits, out)
    expect(noExec.status).toBe('internal')
    expect(noExec.message).toBe('the jail did not start: could not execute nsjail (supervisor exit 124)')
    // the same exit with the init's report is the program's own exit code
    expect(toRunResult(reply({ exit: 124 }), { log: '', status: 'exit 124', outputCapped: false }, limits, out)).toMatchObject({ status: 'exit', exitCode: 124 })
    // killed by our limit before the init reported: still the limit
    expect(toRunResult(reply({ exit: 124, limit: 'cpu' }), { log: '', status: '', outputCapped: false }, limits, out).status).toBe('time')
  })
})

describe('a forged init report is told from a real one', () => {
  const out = { stdout: '', stderr: '' }
  const judged = (r: SupervisorReply, status: string) => toRunResult(r, { log: '', status, outputCapped: false }, limits, out)

  it('trusts a report that agrees with nsjail\'s exit status (the init\'s: code, or 128 + signal)', () => {
    expect(checkedEnd(reply({ exit: 0 }), exited(0))).toEqual(exited(0))
    expect(checkedEnd(reply({ exit: 3 }), exited(3))).toEqual(exited(3))
    expect(checkedEnd(reply({ exit: 139 }), signaled(11))).toEqual(signaled(11))
  })

  it('a success record written by a program that then died of SIGSEGV is RE SIGSEGV, never AC', () => {
    const forged = judged(reply({ exit: 139 }), 'exit 0\n')
    expect(forged).toMatchObject({ status: 'signal', signal: 'SIGSEGV', exitCode: null })
  })

  it('a success record from a program that exited 1 is its exit 1', () => {
    expect(judged(reply({ exit: 1 }), 'exit 0\n')).toMatchObject({ status: 'exit', exitCode: 1 })
  })

  it('a forged record when our limit stopped the jail counts as killed, and the limit decides', () => {
    expect(checkedEnd(reply({ exit: 137, limit: 'cpu' }), exited(0))).toBeNull()
    expect(judged(reply({ exit: 137, limit: 'cpu' }), 'exit 0\n').status).toBe('time')
    expect(judged(reply({ exit: 0, signal: 9 }), 'exit 0\n').status).not.toBe('ok')
  })

  it('a record that forges a signal is read from the exit status', () => {
    expect(judged(reply({ exit: 0 }), 'signal 11\n')).toMatchObject({ status: 'ok', exitCode: 0 })
  })
})

describe('when the program ended (RunResult.endUs: which of two wired runs ended first)', () => {
  const run = (r: Partial<SupervisorReply>, status: string) => toRunResult(reply(r), { log: '', status, outputCapped: false }, limits, { stdout: '', stderr: '' })
  it("the init's word when it reaped the program; the supervisor's otherwise", () => {
    expect(run({ exit: 3, endUs: 900 }, 'exit 3\nended 700\n').endUs).toBe(700)
    expect(run({ exit: 3, endUs: 900 }, 'exit 3\n').endUs).toBe(900)
    expect(run({ exit: 0 }, 'exit 0\n').endUs).toBeUndefined()
  })
  it('a run our limit stopped ended when it was stopped (the supervisor\'s time of the kill)', () => {
    expect(run({ exit: 137, signal: 9, limit: 'wall', endUs: 500 }, 'signal 9\nended 800\n').endUs).toBe(500)
  })
  it('a report the supervisor does not believe gives no time either', () => {
    expect(run({ exit: 139, endUs: 900 }, 'exit 0\nended 1\n').endUs).toBe(900)
  })
})
