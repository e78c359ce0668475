// Judge0 CE 1.13.1's statuses (its app/enumerations/status.rb) and the rules that pick one for a
// finished run (its IsolateJob#determine_status), read from the core's raw step outcome.
import { constants } from 'node:os'
import type { RawStep } from '../evaluation/model.ts'

export interface Judge0Status {
  id: number
  description: string
}

/** Ids 1–14 with Judge0's own descriptions, in its order (GET /statuses). */
export const STATUSES: readonly Judge0Status[] = [
  { id: 1, description: 'In Queue' },
  { id: 2, description: 'Processing' },
  { id: 3, description: 'Accepted' },
  { id: 4, description: 'Wrong Answer' },
  { id: 5, description: 'Time Limit Exceeded' },
  { id: 6, description: 'Compilation Error' },
  { id: 7, description: 'Runtime Error (SIGSEGV)' },
  { id: 8, description: 'Runtime Error (SIGXFSZ)' },
  { id: 9, description: 'Runtime Error (SIGFPE)' },
  { id: 10, description: 'Runtime Error (SIGABRT)' },
  { id: 11, description: 'Runtime Error (NZEC)' },
  { id: 12, description: 'Runtime Error (Other)' },
  { id: 13, description: 'Internal Error' },
  { id: 14, description: 'Exec Format Error' },
]

export const STATUS = {
  queue: 1,
  process: 2,
  accepted: 3,
  wrongAnswer: 4,
  timeLimit: 5,
  compilationError: 6,
  sigsegv: 7,
  sigxfsz: 8,
  sigfpe: 9,
  sigabrt: 10,
  nzec: 11,
  other: 12,
  internal: 13,
  execFormat: 14,
} as const

export const statusById = (id: number): Judge0Status => STATUSES[id - 1] ?? STATUSES[STATUS.internal - 1]

/** Status.find_runtime_error_by_status_code: the signal number of a killed run → its status. */
export function runtimeErrorBySignal(signal: number): number {
  switch (signal) {
    case 11:
      return STATUS.sigsegv
    case 25:
      return STATUS.sigxfsz
    case 8:
      return STATUS.sigfpe
    case 6:
      return STATUS.sigabrt
    default:
      return STATUS.other
  }
}

/** A signal's Linux number from its name ('SIGSEGV' → 11); null for none or an unknown name. */
export function signalNumber(name: string | null | undefined): number | null {
  if (!name) return null
  const n = (constants.signals as Record<string, number>)[name]
  return typeof n === 'number' ? n : null
}

/**
 * Judge0's comparison (IsolateJob#strip): each line's trailing whitespace and the text's trailing
 * blank lines are ignored. Ruby's rstrip also drops NUL characters, so this does too.
 */
export function judge0Strip(text: string): string {
  const lines = text.split('\n')
  return lines
    .map((l) => l.replace(/[\0\t\n\v\f\r ]+$/, ''))
    .join('\n')
    .replace(/[\0\t\n\v\f\r ]+$/, '')
}

/**
 * Whether stdout matches expected_output Judge0's way; a submission without expected_output is
 * always accepted. (Judge0 itself answers Wrong Answer for an empty expected_output against an empty
 * stdout, because it stores empty output as null; here empty matches empty.)
 */
export function outputMatches(expected: string | null | undefined, stdout: string | null | undefined): boolean {
  if (expected === null || expected === undefined) return true
  return judge0Strip(expected) === judge0Strip(stdout ?? '')
}

/** The run step as the core stored it (every status of the core's has its case in runReport). */
export interface RunOutcome {
  status: RawStep['status']
  exitCode: number | null
  signal: string | null
}

/** What Judge0 reports for a finished run: its status id, exit_code, exit_signal and isolate's message. */
export interface RunReport {
  statusId: number
  exitCode: number | null
  exitSignal: number | null
  message: string | null
}

/**
 * isolate's verdicts as Judge0 reads them: TO (time, CPU or wall clock) → 5; SG (killed by a signal)
 * → 7–10 or 12 by the signal; RE (non-zero exit) → 11; XX (the sandbox failed) → 13; otherwise the
 * output comparison → 3 or 4. Judge0 runs with a cgroup memory limit, so a memory overrun is the
 * kernel's SIGKILL: Runtime Error (Other) with exit_signal 9. A full output file is SIGXFSZ (25).
 * exit_code is 0 unless the program exited on its own (Judge0: `exitcode || 0`).
 */
export function runReport(run: RunOutcome, expected: string | null | undefined, stdout: string | null | undefined): RunReport {
  switch (run.status) {
    case 'time':
      return { statusId: STATUS.timeLimit, exitCode: 0, exitSignal: null, message: 'Time limit exceeded' }
    case 'wall':
      return { statusId: STATUS.timeLimit, exitCode: 0, exitSignal: null, message: 'Time limit exceeded (wall clock)' }
    case 'memory':
      return { statusId: STATUS.other, exitCode: 0, exitSignal: 9, message: 'Caught fatal signal 9' }
    case 'output':
      return { statusId: STATUS.sigxfsz, exitCode: 0, exitSignal: 25, message: 'Caught fatal signal 25' }
    case 'signal': {
      const n = signalNumber(run.signal) ?? 9
      return { statusId: runtimeErrorBySignal(n), exitCode: 0, exitSignal: n, message: `Caught fatal signal ${n}` }
    }
    case 'exit':
      return { statusId: STATUS.nzec, exitCode: run.exitCode ?? 1, exitSignal: null, message: `Exited with error status ${run.exitCode ?? 1}` }
    case 'internal':
      return { statusId: STATUS.internal, exitCode: null, exitSignal: null, message: 'the sandbox could not run the program' }
    case 'ok':
      return {
        statusId: outputMatches(expected, stdout) ? STATUS.accepted : STATUS.wrongAnswer,
        exitCode: run.exitCode ?? 0,
        exitSignal: null,
        message: null,
      }
  }
}
