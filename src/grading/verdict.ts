// Pure: a job's result (the sandbox's neutral RunResults) → the spec's run status (AC/TLE/MLE/RE, plus CE for
// compile errors), status_detail and the figures, decided in one fixed order (DMOJ's CODE_DISPLAY_ORDER).
import type { RunResult } from '../sandbox/types.ts'

export type VerdictCode = 'AC' | 'TLE' | 'MLE' | 'RE' | 'CE'
/** What a graded submission's run_status.status may also be: WA (a test's output was judged wrong), IE (a checker failed). */
export type GradedVerdictCode = VerdictCode | 'WA' | 'IE'

export interface Verdict {
  /** null for a v3 compile-only job that compiled. */
  verdict: VerdictCode | null
  /** 'NA', or for RE one of SIGXFSZ, SIGSEGV, SIGFPE, SIGBUS, SIGABRT, NZEC, OTHER. */
  statusDetail: string
  /** The signal that ended the program, 'OTHER' when none did. */
  signal: string
  exitCode: number | null
  timeUsedSec: number
  memoryUsedKb: number
  stdout: string
  stderr: string
  /** 'OK' or the compiler's message. */
  compileStatus: string
}

/** The job failed on our side (the jail could not run): not a verdict on the user's program. */
export class InternalFailure extends Error {}

const RE_SIGNALS = new Set(['SIGXFSZ', 'SIGSEGV', 'SIGFPE', 'SIGBUS', 'SIGABRT'])

/**
 * The order in which one run's evidence is read. The first rule that matches decides, so a program that
 * was OOM-killed while also over its time is MLE (it would not have finished anyway, and MLE is what a
 * user can act on), and a SIGKILL that coincides with a limit is reported as that limit, not as RE.
 */
const ORDER: { verdict: VerdictCode; detail: (r: RunResult) => string; when: (r: RunResult, l: JobLimits) => boolean }[] = [
  // the sandbox already read the evidence (OOM kill, full output file, its own limit kills) in
  // its fixed order (sandbox/outcome.ts): its status is the verdict, not re-guessed from figures
  { verdict: 'MLE', detail: () => 'NA', when: (r) => r.status === 'memory' },
  { verdict: 'TLE', detail: () => 'NA', when: (r) => r.status === 'time' || r.status === 'wall' },
  { verdict: 'RE', detail: () => 'SIGXFSZ', when: (r) => r.status === 'output' || r.signal === 'SIGXFSZ' },
  { verdict: 'RE', detail: (r) => (r.signal && RE_SIGNALS.has(r.signal) ? r.signal : 'OTHER'), when: (r) => r.status === 'signal' },
  { verdict: 'RE', detail: () => 'NZEC', when: (r) => r.status === 'exit' },
  { verdict: 'AC', detail: () => 'NA', when: (r) => r.status === 'ok' },
]

/** One run's verdict and detail by the fixed order; InternalFailure when the jail failed on our side. */
export function runVerdict(run: RunResult, limits: JobLimits): { verdict: VerdictCode; statusDetail: string } {
  if (run.status === 'internal') throw new InternalFailure(run.message ?? 'the run step could not run')
  const rule = ORDER.find((r) => r.when(run, limits))
  if (!rule) throw new InternalFailure(`unexpected run status ${run.status}`)
  return { verdict: rule.verdict, statusDetail: rule.detail(run) }
}

/** The limits the client asked for (a sandbox step's own are sandbox/types.ts Limits). */
export interface JobLimits {
  timeLimitSec: number
  memoryLimitKb: number
}

/** What the verdict is decided from: the compile step and the run (a job's result is one, src/jobs/types.ts). */
export interface JudgedSteps {
  compile: { ok: boolean; message: string; step?: RunResult }
  /** Absent when there was nothing to run (compile only). */
  run?: RunResult
}

/** Throws InternalFailure when either step failed on our side; the dispatcher retries or reports it. */
export function verdictOf(result: JudgedSteps, limits: JobLimits): Verdict {
  const { compile, run } = result
  if (compile.step?.status === 'internal') throw new InternalFailure(compile.step.message ?? 'the compile step could not run')
  if (!compile.ok) {
    return {
      verdict: 'CE',
      statusDetail: 'NA',
      signal: 'OTHER',
      exitCode: compile.step?.exitCode ?? null,
      timeUsedSec: 0,
      memoryUsedKb: 0,
      stdout: '',
      stderr: '',
      // never 'OK' and never empty: it is how a client tells a compile error from success
      compileStatus: compile.message.trim() ? compile.message : 'Compilation failed',
    }
  }
  const base = { compileStatus: 'OK', stdout: '', stderr: '', signal: 'OTHER', exitCode: null, timeUsedSec: 0, memoryUsedKb: 0 }
  if (!run) return { ...base, verdict: null, statusDetail: 'NA' }
  if (run.status === 'internal') throw new InternalFailure(run.message ?? 'the run step could not run')
  const rule = ORDER.find((r) => r.when(run, limits))
  if (!rule) throw new InternalFailure(`unexpected run status ${run.status}`)
  return {
    ...base,
    verdict: rule.verdict,
    statusDetail: rule.detail(run),
    signal: run.signal ?? 'OTHER',
    exitCode: run.exitCode,
    timeUsedSec: run.cpuSec,
    memoryUsedKb: Math.round(run.memoryKb),
    stdout: run.stdout,
    stderr: run.stderr,
  }
}
