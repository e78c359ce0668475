// Which test files the cgroup v2 check runs once more, in the same boot, after a fault of the
// emulated CPU rather than of the jail (scripts/cgroup-v2/vm-init.sh; docs/sandbox/README.md).
// Under QEMU's software CPU (TCG) two JIT runtimes now and then die of a fault no host run has shown:
// node itself (its test process "exited unexpectedly", the kernel logged a segfault or trap), and a
// JVM judged inside the jail (its own fatal error report, SIGILL or SIGSEGV at a pc, on the stdout a
// failed test prints). Anything else a run can end in (an assertion, an import error, a kill, a file
// that failed outside its tests) runs nothing again, so the check fails.
// Usage: node --import tsx scripts/cgroup-v2/emulation-faults.ts REPORT.json NODE_FAULTED(0|1)
// prints the files to run again, one a line, then nothing else; a line "reason: ..." goes to stderr.
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

/** The parts of vitest's JSON report (jest's shape) this reads. */
export interface VitestReport {
  testResults: {
    name: string
    status: string
    message?: string
    assertionResults: { status: string; fullName?: string; failureMessages?: string[] }[]
  }[]
}

// HotSpot's own report of a fault it did not expect (hs_err's header, printed on stdout): the program's
// stdout is in the failure message, JSON-escaped, so its line breaks may be "\n" as two characters
const JVM_FAULT = /A fatal error has been detected by the Java Runtime Environment:(?:\\n|\n|#|\s)*(SIGILL|SIGSEGV) \(0x[0-9a-f]+\) at pc=/

/** True when a failed test's message shows a JVM dying of SIGILL or SIGSEGV at a pc of its own. */
export function isJvmFault(failureMessages: readonly string[] = []): boolean {
  return failureMessages.some((m) => JVM_FAULT.test(m))
}

export interface Rerun {
  files: string[]
  reason: string
}

export function filesToRunAgain(report: VitestReport, nodeFaulted: boolean): Rerun {
  const files = new Set<string>()
  const reasons = new Set<string>()
  for (const file of report.testResults) {
    const failed = file.assertionResults.filter((t) => t.status === 'failed')
    const unfinished = file.assertionResults.some((t) => t.status === 'pending')
    if (failed.length > 0) {
      const other = failed.find((t) => !isJvmFault(t.failureMessages))
      if (other) return { files: [], reason: `a test failed otherwise: ${other.fullName ?? file.name}` }
      files.add(file.name)
      reasons.add(`a JVM died of a fault of its own in ${failed.length} test(s) of ${file.name}`)
    } else if (unfinished && nodeFaulted) {
      files.add(file.name)
      reasons.add(`node faulted; ${file.name} left tests unfinished`)
    } else if (file.status === 'failed') {
      return { files: [], reason: `${file.name} failed outside its tests${file.message ? `: ${file.message.split('\n')[0]}` : ''}` }
    }
  }
  if (files.size === 0) return { files: [], reason: 'no file ended in a fault of the emulated CPU' }
  return { files: [...files], reason: [...reasons].join('; ') }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [reportPath, nodeFaulted] = process.argv.slice(2)
  if (!reportPath) {
    console.error('usage: emulation-faults.ts REPORT.json NODE_FAULTED(0|1)')
    process.exit(2)
  }
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as VitestReport
  const rerun = filesToRunAgain(report, nodeFaulted === '1')
  console.error(`reason: ${rerun.reason}`)
  for (const f of rerun.files) console.log(f)
}
