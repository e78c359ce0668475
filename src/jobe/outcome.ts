// Pure: a completed submission → Jobe's result object. Jobe's rules, which graders rely on: the outcome
// follows stderr, not the exit status (any stderr is a runtime error, an empty one success even after
// `return 3`); a compiler's message is a compile error; output past streamsize ends the run as a time
// limit; text that is not valid UTF-8 comes back with its bytes as \xNN. Arbiter reports a real memory
// limit (17) where Jobe cannot tell one.
import { constants } from 'node:os'
import { rawResultOf, type Submission } from '../evaluation/model.ts'

export const OUTCOME = {
  compileError: 11,
  runtimeError: 12,
  timeLimit: 13,
  success: 15,
  memoryLimit: 17,
  illegalSyscall: 19,
  internalError: 20,
  overload: 21,
} as const

export interface JobeResult {
  run_id: null
  outcome: number
  cmpinfo: string
  stdout: string
  stderr: string
}

/** Jobe's ResultObject::clean: valid UTF-8 as is; otherwise control characters (but \n \r \t) and bytes past 0x7E as \xNN. */
export function cleanText(bytes: Buffer): string {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes)
  if (isValidUtf8(bytes)) return text
  let out = ''
  for (const b of bytes) out += (b < 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) || b > 0x7e ? `\\x${b.toString(16).padStart(2, '0')}` : String.fromCharCode(b)
  return out
}

function isValidUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

/** The run's text as the jail kept it, byte for byte (latin1: one character per byte). */
const bytesOf = (latin1: string | null) => Buffer.from(latin1 ?? '', 'latin1')

/** What a shell prints when its child dies of a signal (Jobe runs every program under sh). */
const SIGNAL_TEXT: Record<string, string> = {
  SIGSEGV: 'Segmentation fault',
  SIGFPE: 'Floating point exception',
  SIGABRT: 'Aborted',
  SIGBUS: 'Bus error',
  SIGKILL: 'Killed',
  SIGILL: 'Illegal instruction',
  SIGTERM: 'Terminated',
  SIGXFSZ: 'File size limit exceeded',
  SIGXCPU: 'CPU time limit exceeded',
  SIGPIPE: 'Broken pipe',
  SIGSYS: 'Bad system call',
}
const signalText = (signal: string | null) => (signal ? (SIGNAL_TEXT[signal] ?? `Killed by signal ${(constants.signals as Record<string, number>)[signal] ?? signal}`) : 'Killed')

export const overloadResult = (): JobeResult => ({ run_id: null, outcome: OUTCOME.overload, cmpinfo: '', stdout: '', stderr: '' })

export function jobeResult(row: Submission): JobeResult {
  const result = (outcome: number, parts: Partial<JobeResult> = {}): JobeResult => ({ run_id: null, outcome, cmpinfo: '', stdout: '', stderr: '', ...parts })
  if (row.failure) return result(OUTCOME.internalError, { stderr: row.failure })
  if (row.verdict === 'CE') {
    // Jobe's cmpinfo is the compiler's stderr as written, not trimmed (py_compile's leading spaces and
    // final newline included); a compile a limit stopped keeps the core's message, which says which,
    // and so does one that wrote to stdout too (fpc: the message joins both)
    const c = rawResultOf(row)?.compile
    const asWritten = c && (c.status === 'ok' || c.status === 'exit') && c.stderr && !c.stdout ? cleanText(Buffer.from(c.stderr, 'utf8')) : undefined
    return result(OUTCOME.compileError, { cmpinfo: asWritten ?? row.compileStatus ?? 'Compilation failed' })
  }
  const run = rawResultOf(row)?.run
  const stdout = cleanText(bytesOf(row.stdout))
  let stderr = cleanText(bytesOf(row.stderr))
  if (!run) return result(OUTCOME.internalError, { stderr: 'the run step did not run' })
  switch (run.status) {
    case 'time':
    case 'wall':
    case 'output': // Jobe: output past streamsize is cut and the run ends on its time limit
      return result(OUTCOME.timeLimit, { stdout, stderr })
    case 'memory':
      return result(OUTCOME.memoryLimit, { stdout, stderr })
    case 'signal':
      // the shell Jobe runs programs under says how it died, so stderr is never empty (and the outcome is 12)
      stderr = `${stderr}${stderr && !stderr.endsWith('\n') ? '\n' : ''}${signalText(run.signal)}\n`
      return result(OUTCOME.runtimeError, { stdout, stderr })
    // Jobe reads stderr, not the exit status
    case 'ok':
    case 'exit':
      return result(stderr.length ? OUTCOME.runtimeError : OUTCOME.success, { stdout, stderr })
    case 'internal':
      return result(OUTCOME.internalError, { stderr: 'the sandbox could not run the program' })
  }
}
