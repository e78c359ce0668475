// What the evaluation side hands the worker pool, and what comes back. Plain data: crosses threads.
import type { CheckerSpec } from '../grading/checkers.ts'
import type { TestOutcome, TestStatus } from '../grading/types.ts'
import type { RunResult } from '../sandbox/types.ts'
import type { JobFileAt } from '../storage/payloads.ts'

export interface Job extends JobSpec {
  /** Language code as resolved by languages.ts (canonical code). */
  language: string
  source: string
  input: string
  timeLimitSec: number
  memoryLimitKb: number
  /** v3 /code/compile/: stop after the compile step. */
  compileOnly?: boolean
  /**
   * Compile the job's checker program (or output validator) only, as a graded job would, and say in
   * `compile` whether it compiled (a package's validator checked at import; the compile cache keeps it
   * for the graded jobs of the same scope). language and source are not compiled.
   */
  checkerOnly?: boolean
  /**
   * Graded: compile once, then run each test in a fresh jail (a fresh work directory
   * holding only what the compile step left) and judge its stdout with the checker. input is unused.
   */
  tests?: JobTest[]
  /** The built-in checker; 'lines' when absent. */
  checker?: CheckerSpec
  /** Tests after the first that is not AC are SKIPPED. */
  stopOnFirstFailure?: boolean
  /**
   * Whose compiles the compile cache may share with this job (the client; absent: the command line's
   * own): a program compiled for one scope is never found by another.
   */
  cacheScope?: string
  /**
   * A Kattis/ICPC output validator's score.txt (scoring packages): 'allowed' reads it when present,
   * 'required' makes an accepted test without one IE (problemtools' legacy `validation: custom score`).
   * Absent: a score.txt is IE, as in a problem without scores.
   */
  validatorScores?: 'allowed' | 'required'
}

export interface JobTest {
  input: string
  expectedOutput: string
  /** This test's CPU limit; the job's when absent. */
  timeLimitSec?: number
  /** The Kattis validator's flags for this test (its group's, in a package): replace the checker's own. */
  checkerFlags?: string[]
}

// A test's status and outcome are the judge's (src/grading/types.ts); a job carries them.
export type { TestOutcome, TestStatus }

export interface CompileOutcome {
  /** true when the language has no compile step or it succeeded. */
  ok: boolean
  /** The compiler's message (stdout+stderr) when it failed; '' otherwise. */
  message: string
  /**
   * The raw compile step, absent for interpreted languages. For a program from the compile cache, the
   * compile that was kept: its output as it printed it, status ok, zero time and memory.
   */
  step?: RunResult
  /** The compiled program came from the compile cache: no compile step ran (step is the kept one's replay). */
  cached?: boolean
}

/** What one run measured (a repeated run's figures). */
export interface RunFigures {
  cpuSec: number
  wallSec: number
  memoryKb: number
}

/** What JobSpec.compileCheckMarker may be: a word no program writes by chance. */
export const COMPILE_CHECK_MARKER = /^[A-Za-z0-9_-]{16,64}$/

/** Most times a job's run may be repeated (JobSpec.repeat). */
export const MAX_REPEAT = 20

export interface JobResult {
  compile: CompileOutcome
  /** Absent when compilation failed or compileOnly was set; absent for a graded job (see tests). The last run of a repeated one. */
  run?: RunResult
  /** A repeated run (JobSpec.repeat > 1): each run's figures in order, the last being run's. */
  repeats?: RunFigures[]
  /** A graded job's outcomes, one per test in order (absent when compilation failed). */
  tests?: TestOutcome[]
}

/** An extra file written into the work directory before the compile step. */
export interface JobFile {
  /** A plain name: no '/', no '..', not starting with '.' (checked at the edge and again in the worker). */
  name: string
  contentBase64: string
}

// an extra file the core stored when it accepted the job: the store's own type
export type { JobFileAt }

/**
 * What a protocol may set on a job besides language, source, input and the cpu/memory limits. Every
 * field is optional; absent means the language manifest's or the config's value.
 */
export interface JobSpec {
  files?: JobFile[]
  /** Files stored on disk at accept, written into the work directory after `files` (the worker reads them). */
  filesAt?: JobFileAt[]
  /** The source's file name in the work directory (Jobe sourcefilename, Piston's first file). */
  sourceFileName?: string
  /** Full argv of the compile step; [] = no compile step. The compile cache key includes it. */
  compileArgv?: string[]
  /** Full argv of the run step. */
  runArgv?: string[]
  wallTimeSec?: number
  /** RLIMIT_AS of the run step (allocations fail rather than the job being killed). */
  addressSpaceKb?: number
  processes?: number
  /** Most bytes of stdout (and of stderr) the run may write: past it the run ends with status 'output'. */
  outputBytes?: number
  /**
   * Most bytes of stdout (and of stderr) read back; what the run writes past it, up to outputBytes, is
   * dropped and the run goes on (Jobe's streamsize). Absent: all it may write.
   */
  outputKeptBytes?: number
  compileTimeSec?: number
  compileMemoryKb?: number
  /** A compile step that writes anything to stderr has failed, whatever its exit status (Jobe's rule: warnings fail). */
  compileStderrFails?: boolean
  /**
   * The run step checks the source itself before running it (one jailed process instead of a compile
   * step and a run): a run whose stderr starts with this marker and a newline did not compile, and the
   * rest of its stderr is the compiler's message (JobResult.compile fails, no run). Only for a job that
   * is not graded (a graded job ignores it: it compiles as its language does); a repeated job checks in its first run. The marker is a per-job random word the protocol puts in the argv.
   */
  compileCheckMarker?: string
  /** 'latin1': the run's stdout and stderr come back one character per byte (Buffer.from(s, 'latin1') gives the exact bytes), for a protocol that must tell invalid UTF-8 or encode the bytes itself. */
  outputEncoding?: 'latin1'
  /**
   * 'latin1': the source and the input (stdin) are one character per byte, and Buffer.from(s, 'latin1')
   * is what the jail gets, for a protocol that takes bytes (Base64) rather than text: invalid UTF-8, NULs
   * and any other byte reach the program as sent. Sizes are counted in those bytes. A graded job's tests
   * and a checker's source are text whatever this says.
   */
  inputEncoding?: 'latin1'
  /** stderr is appended to stdout after the run (the two streams are read separately by the jail). */
  redirectStderrToStdout?: boolean
  /**
   * CPU seconds the run may go on past its time limit before it is stopped; it is judged over its limit
   * (TLE) all the same, from the CPU time measured, which a client then sees in full (isolate's extra time).
   */
  cpuExtraSec?: number
  /** RLIMIT_STACK of the run, KB (whole MB in the jail, rounded up); absent: the jail's 64 MB. */
  stackKb?: number
  /**
   * The run is made this many times (at most MAX_REPEAT), each in a fresh box holding only what the
   * compile step left, until one does not exit 0: JobResult.repeats has each run's figures, run is the
   * last. Not for graded jobs (their tests are the repetition).
   */
  repeat?: number
}
