// Pure: one test's run (the sandbox's neutral RunResult) and the expected output → the test's outcome.
// The run's own verdict comes first (TLE, MLE, RE by the same fixed order as a plain submission);
// only a run that ended well is judged: by a built-in checker here, or by a checker program whose
// own run (testlib's exit codes) is read by checkerOutcome.
import { runVerdict, type JobLimits } from './verdict.ts'
import type { TestOutcome } from './types.ts'
import type { RunResult } from '../sandbox/types.ts'
import { Budget, check, JudgeTimeout, type BuiltinChecker, type KattisDefaultChecker } from './checkers.ts'
import { defaultValidator, parseValidatorFlags } from './default-validator.ts'

const figures = (run: RunResult) => ({
  timeUsedSec: run.cpuSec,
  memoryUsedKb: Math.round(run.memoryKb),
  exitCode: run.exitCode,
  signal: run.signal ?? 'OTHER',
  stdout: run.stdout,
})

/** The outcome of a run that did not end well (TLE, MLE, RE); undefined when it did and is to be judged. */
export function runFailure(run: RunResult, limits: JobLimits): TestOutcome | undefined {
  const { verdict, statusDetail } = runVerdict(run, limits)
  if (verdict === 'AC') return undefined
  return { ...figures(run), status: verdict as TestOutcome['status'], statusDetail, checkerMessage: '', earned: 0 }
}

/** How a test is judged beyond its checker: the output as the bytes written, and the time judging may take. */
export interface JudgeOptions {
  /** The program's stdout as it wrote it (run.stdout is that decoded as UTF-8, where bytes may merge). */
  stdoutBytes?: Uint8Array
  /** Milliseconds the checker may take (grading.judge_time_sec); past them the test is IE. */
  timeMs?: number
}

export function judgeTest(run: RunResult, expectedOutput: string, checker: BuiltinChecker | KattisDefaultChecker, limits: JobLimits, opts: JudgeOptions = {}): TestOutcome {
  const failed = runFailure(run, limits)
  if (failed) return failed
  let judged
  const budget = opts.timeMs === undefined ? undefined : Budget.ms(opts.timeMs)
  try {
    if (typeof checker === 'object' && checker.type === 'kattis') {
      let flags
      try {
        flags = parseValidatorFlags(checker.flags ?? [])
      } catch (err) {
        // problemtools' validator stops with a judge error on flags it does not take: the grader's fault
        return { ...figures(run), status: 'IE', statusDetail: 'NA', checkerMessage: `the default validator refuses its flags: ${(err as Error).message}`, earned: 0 }
      }
      const v = defaultValidator(Buffer.from(expectedOutput), opts.stdoutBytes ?? Buffer.from(run.stdout), flags, budget)
      judged = { ok: v.accepted, message: v.message }
    } else judged = check(checker, expectedOutput, opts.stdoutBytes ?? run.stdout, budget)
  } catch (err) {
    if (!(err instanceof JudgeTimeout)) throw err
    // the grader's bound, not the student's fault
    const why = `judging took longer than its bound (grading.judge_time_sec: ${(opts.timeMs ?? 0) / 1000} s)`
    return { ...figures(run), status: 'IE', statusDetail: 'NA', checkerMessage: why, earned: 0 }
  }
  return judged.ok
    ? { ...figures(run), status: 'AC', statusDetail: 'NA', checkerMessage: '', earned: 1 }
    : { ...figures(run), status: 'WA', statusDetail: 'NA', checkerMessage: judged.message, earned: 0 }
}

/** What a checker may say about itself: its stderr, cut short. */
export const CHECKER_MESSAGE_BYTES = 4096
const clipMessage = (s: string) => {
  const b = Buffer.from(s.trim())
  return b.length > CHECKER_MESSAGE_BYTES ? `${b.subarray(0, CHECKER_MESSAGE_BYTES).toString('utf8')}…` : b.toString('utf8')
}

/**
 * testlib's exit codes, from the checker's own run: 0 AC, 1 WA, 2 presentation error (WA, detail PE),
 * 3 the checker failed, 7 partial (the fraction of the points is the first token of its stdout).
 * A checker that crashes, runs out of time or memory, exits otherwise or gives a bad fraction is the
 * grader's fault, not the student's: IE with the reason.
 */
export function checkerOutcome(program: RunResult, checker: RunResult): TestOutcome {
  const base = { ...figures(program), checkerMessage: clipMessage(checker.stderr) }
  const ie = (why: string): TestOutcome => ({ ...base, status: 'IE', statusDetail: 'NA', checkerMessage: clipMessage(`checker ${why}${checker.stderr.trim() ? `: ${checker.stderr}` : ''}`), earned: 0 })
  if (checker.status === 'ok') return { ...base, status: 'AC', statusDetail: 'NA', earned: 1 }
  if (checker.status !== 'exit') return ie(checker.status === 'signal' ? `killed by ${checker.signal}` : `exceeded its ${checker.status} limit`)
  switch (checker.exitCode) {
    case 1:
      return { ...base, status: 'WA', statusDetail: 'NA', earned: 0 }
    case 2:
      return { ...base, status: 'WA', statusDetail: 'PE', earned: 0 }
    case 3:
      return ie('failed (exit 3)')
    case 7: {
      const token = checker.stdout.trim().split(/\s+/)[0] ?? ''
      // a fraction is short; a long token is refused before any pattern looks at it
      const fraction = token.length <= 64 && /^\d*\.?\d+(e[-+]?\d+)?$/i.test(token) ? Number(token) : NaN
      if (!(fraction >= 0 && fraction <= 1)) return ie(`gave no points fraction in [0, 1] (stdout starts ${JSON.stringify(token.slice(0, 20))})`)
      return fraction === 1 ? { ...base, status: 'AC', statusDetail: 'NA', earned: 1 } : { ...base, status: 'WA', statusDetail: 'PARTIAL', earned: fraction }
    }
    default:
      return ie(`exited with ${checker.exitCode}`)
  }
}

/** A test not run because an earlier one failed and the submission asked to stop there. */
export const SKIPPED: TestOutcome = {
  status: 'SKIPPED',
  statusDetail: 'NA',
  timeUsedSec: 0,
  memoryUsedKb: 0,
  exitCode: null,
  signal: 'OTHER',
  checkerMessage: '',
  earned: 0,
  stdout: '',
}

/** What a Kattis output validator left in its feedback folder (each file at most a few KiB read). */
export interface ValidatorFeedback {
  judgemessage?: string
  teammessage?: string
  score?: string
  /** The folder was not the folder root made (a link, a file): nothing in it is read. */
  broken?: string
}

/**
 * A Kattis/ICPC output validator's run: exit 42 accepted, 43 wrong answer; anything else, a signal or
 * a limit is the grader's fault (IE, never the student's verdict). judgemessage.txt then
 * teammessage.txt become the test's message. score.txt is refused (IE) on a 43, and where the problem
 * does not give scores (scores absent), as problemtools refuses it; where it does, an accepted test
 * carries the number score.txt holds (not a number: IE), and 'required' makes a missing one IE.
 */
export function validatorOutcome(program: RunResult, validator: RunResult, feedback: ValidatorFeedback, scores?: 'allowed' | 'required'): TestOutcome {
  const message = [feedback.judgemessage, feedback.teammessage].filter((m) => m?.trim()).join('\n')
  const base = { ...figures(program), checkerMessage: clipMessage(message) }
  const ie = (why: string): TestOutcome => ({ ...base, status: 'IE', statusDetail: 'NA', checkerMessage: clipMessage(`output validator ${why}${message.trim() ? `: ${message}` : validator.stderr.trim() ? `: ${validator.stderr}` : ''}`), earned: 0 })
  if (feedback.broken) return ie(feedback.broken)
  if (validator.status === 'signal') return ie(`killed by ${validator.signal}`)
  if (validator.status !== 'exit' && validator.status !== 'ok') return ie(`exceeded its ${validator.status} limit`)
  if (validator.exitCode === 43) return feedback.score !== undefined ? ie('wrote score.txt on a rejection (exit 43)') : { ...base, status: 'WA', statusDetail: 'NA', earned: 0 }
  if (validator.exitCode !== 42) return ie(`exited with ${validator.exitCode} (42 accepts, 43 rejects)`)
  if (feedback.score !== undefined && !scores) return ie('wrote score.txt, but the problem does not give scores')
  if (feedback.score === undefined) return scores === 'required' ? ie('wrote no score.txt, which the problem requires (validation: custom score)') : { ...base, status: 'AC', statusDetail: 'NA', earned: 1 }
  // Python's float(): surrounding whitespace allowed, one number, inf and nan as words
  const text = feedback.score.trim()
  const score = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(text) ? Number(text) : NaN
  if (!Number.isFinite(score)) return ie(`wrote a score.txt that is not a finite number (${JSON.stringify(text.slice(0, 40))})`)
  return { ...base, status: 'AC', statusDetail: 'NA', earned: 1, score }
}

/**
 * An interactive test as problemtools decides it (_run_interactive): a validator that crashed, ran out
 * of its limits or exited with neither 42 nor 43 is the grader's fault (IE); one that rejected (43)
 * before the program ended makes it WA whatever the program did next; otherwise the program's own
 * failure (TLE, then RTE, as for any run) comes first, then the validator's verdict.
 * Which ended first: the supervisors' end times (RunResult.endUs, one clock for the host's jails), and
 * a program killed by SIGPIPE ended after its reader did. Two ends microseconds apart (a program that
 * exits and a validator that rejects on the end of file it then reads) are ordered only as well as the
 * two inits' wake-ups: docs/api/problem-packages.md.
 */
export function interactiveOutcome(program: RunResult, validator: RunResult, feedback: ValidatorFeedback, limits: JobLimits, scores?: 'allowed' | 'required'): TestOutcome {
  const judged = validatorOutcome(program, validator, feedback, scores)
  if (judged.status === 'IE') return judged
  // a program killed by SIGPIPE wrote to a pipe whose reader, the validator, had gone: the validator
  // ended first, whatever order the two inits' wake-ups reported
  const readerGone = program.status === 'signal' && program.signal === 'SIGPIPE'
  const rejectedFirst = validator.exitCode === 43 && (readerGone || (validator.endUs !== undefined && program.endUs !== undefined && validator.endUs < program.endUs))
  if (rejectedFirst) return judged
  return runFailure(program, limits) ?? judged
}
