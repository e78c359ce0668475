import { describe, expect, it } from 'vitest'
import { filesToRunAgain, isJvmFault, type VitestReport } from './emulation-faults.js'

// the failure CI's check printed on 2026-12-01 (dodges.test.ts, JAVA's 300 MB row), as why(v) quotes it
const SIGILL =
  'AssertionError: {"compileStatus":"OK","stdout":"#\\n# A fatal error has been detected by the Java Runtime Environment:\\n#\\n#  SIGILL (0x4) at pc=0x00007f4600ad26a4, pid=2, tid=3\\n#\\n# JRE version: OpenJDK","signal":"SIGABRT","verdict":"RE"}: expected \'RE\' to be \'MLE\''
const SIGSEGV = '# A fatal error has been detected by the Java Runtime Environment:\n#\n#  SIGSEGV (0xb) at pc=0x00007f3c1d2e4f10, pid=2, tid=14\n'

const report = (...files: VitestReport['testResults']): VitestReport => ({ testResults: files })
const passed = { status: 'passed', failureMessages: [] }

describe('the cgroup v2 check runs a file again only after a fault of the emulated CPU', () => {
  it("knows HotSpot's own report of SIGILL or SIGSEGV, escaped or not", () => {
    expect(isJvmFault([SIGILL])).toBe(true)
    expect(isJvmFault([SIGSEGV])).toBe(true)
  })

  it('a JVM that failed otherwise is no fault of the CPU', () => {
    // a verdict that is wrong with the JVM well, its out-of-memory report, a kill: the jail may be the cause
    expect(isJvmFault(["AssertionError: expected 'RE' to be 'MLE'"])).toBe(false)
    expect(isJvmFault(['# There is insufficient memory for the Java Runtime Environment to continue.'])).toBe(false)
    expect(isJvmFault(['"signal":"SIGKILL","verdict":"MLE"'])).toBe(false)
    // the header alone, or a signal a jail can cause (SIGBUS from a full tmpfs, SIGSYS from seccomp)
    expect(isJvmFault(['# A fatal error has been detected by the Java Runtime Environment:\n#\n#  SIGBUS (0x7) at pc=0x1'])).toBe(false)
    expect(isJvmFault(['# A fatal error has been detected by the Java Runtime Environment:\n#\n#  SIGSYS (0x1f) at pc=0x1'])).toBe(false)
  })

  it('runs again the files whose every failure is a JVM fault', () => {
    const r = filesToRunAgain(
      report(
        { name: '/p/src/sandbox/dodges.test.ts', status: 'failed', assertionResults: [passed, { status: 'failed', failureMessages: [SIGILL] }] },
        { name: '/p/src/jobs/worker.test.ts', status: 'passed', assertionResults: [passed] },
      ),
      false,
    )
    expect(r.files).toEqual(['/p/src/sandbox/dodges.test.ts'])
    expect(r.reason).toMatch(/JVM died of a fault/)
  })

  it('runs nothing again when any failure is not a fault of the CPU, even beside one that is', () => {
    const r = filesToRunAgain(
      report(
        { name: '/p/a.test.ts', status: 'failed', assertionResults: [{ status: 'failed', failureMessages: [SIGILL] }] },
        { name: '/p/b.test.ts', status: 'failed', assertionResults: [{ status: 'failed', fullName: 'b row', failureMessages: ["expected 'TLE' to be 'OK'"] }] },
      ),
      true,
    )
    expect(r.files).toEqual([])
    expect(r.reason).toMatch(/b row/)
  })

  it('a file that failed outside its tests (an import error) runs nothing again', () => {
    const r = filesToRunAgain(
      report(
        { name: '/p/a.test.ts', status: 'failed', assertionResults: [{ status: 'failed', failureMessages: [SIGSEGV] }] },
        { name: '/p/c.test.ts', status: 'failed', message: 'Failed to load url ./nope.js', assertionResults: [] },
      ),
      false,
    )
    expect(r.files).toEqual([])
    expect(r.reason).toMatch(/c\.test\.ts failed outside its tests: Failed to load/)
  })

  it('unfinished files run again only when the kernel logged a fault of node', () => {
    const died = report({ name: '/p/net.test.ts', status: 'failed', assertionResults: [passed, { status: 'pending' }] })
    expect(filesToRunAgain(died, true).files).toEqual(['/p/net.test.ts'])
    // killed by something else (no fault logged): the check fails
    expect(filesToRunAgain(died, false).files).toEqual([])
  })

  it('a run with nothing failed runs nothing again', () => {
    expect(filesToRunAgain(report({ name: '/p/a.test.ts', status: 'passed', assertionResults: [passed] }), true).files).toEqual([])
  })
})
