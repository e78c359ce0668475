// What the evaluation side hands the worker pool, and what comes back. Plain data: crosses threads.
import type { RunResult } from '../sandbox/types.ts'

export interface Job {
  /** Language code as resolved by languages.ts (canonical code). */
  language: string
  source: string
  input: string
  timeLimitSec: number
  memoryLimitKb: number
  /** v3 /code/compile/: stop after the compile step. */
  compileOnly?: boolean
}

export interface CompileOutcome {
  /** true when the language has no compile step or it succeeded. */
  ok: boolean
  /** The compiler's message (stdout+stderr) when it failed; '' otherwise. */
  message: string
  /** The raw compile step, absent for interpreted languages. */
  step?: RunResult
}

export interface JobResult {
  compile: CompileOutcome
  /** Absent when compilation failed or compileOnly was set. */
  run?: RunResult
}
