// Pure: a completed submission → Jobe's result object. Jobe's rules, which graders rely on: the outcome
// follows stderr, not the exit status (any stderr is a runtime error, an empty one success even after
// `return 3`); a compiler's message is a compile error; text that is not valid UTF-8 comes back with
// its bytes as \xNN; a signal's death is told in stderr as Jobe's shell tells it; Java's stack traces
// lose their tabs. The jail's work folder is left out of every text, as CodeRunner leaves Jobe's out.
// Arbiter reports a real memory limit (17) where Jobe cannot tell one.
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

/**
 * What Jobe's shell (sh -c, Debian's dash) writes to stderr when the program dies of a signal: glibc's
 * strsignal text and a newline; nothing for SIGINT and SIGPIPE (dash's sprint_status leaves those out).
 */
const SIGNAL_TEXT: Record<string, string> = {
  SIGHUP: 'Hangup',
  SIGQUIT: 'Quit',
  SIGILL: 'Illegal instruction',
  SIGTRAP: 'Trace/breakpoint trap',
  SIGABRT: 'Aborted',
  SIGBUS: 'Bus error',
  SIGFPE: 'Floating point exception',
  SIGKILL: 'Killed',
  SIGUSR1: 'User defined signal 1',
  SIGSEGV: 'Segmentation fault',
  SIGUSR2: 'User defined signal 2',
  SIGALRM: 'Alarm clock',
  SIGTERM: 'Terminated',
  SIGSTKFLT: 'Stack fault',
  SIGCHLD: 'Child exited',
  SIGCONT: 'Continued',
  SIGSTOP: 'Stopped (signal)',
  SIGTSTP: 'Stopped',
  SIGTTIN: 'Stopped (tty input)',
  SIGTTOU: 'Stopped (tty output)',
  SIGURG: 'Urgent I/O condition',
  SIGXCPU: 'CPU time limit exceeded',
  SIGXFSZ: 'File size limit exceeded',
  SIGVTALRM: 'Virtual timer expired',
  SIGPROF: 'Profiling timer expired',
  SIGWINCH: 'Window changed',
  SIGIO: 'I/O possible',
  SIGPWR: 'Power failure',
  SIGSYS: 'Bad system call',
}
const SILENT_SIGNALS = new Set(['SIGINT', 'SIGPIPE'])
/** glibc's first real-time signal as a program sees it (32 and 33 are the C library's own). */
const SIGRTMIN = 34

/** The line the shell adds to stderr for a program killed by this signal ('' for none). */
export function signalText(signal: string | null): string {
  if (!signal) return 'Killed\n'
  if (SILENT_SIGNALS.has(signal)) return ''
  const known = SIGNAL_TEXT[signal]
  if (known) return `${known}\n`
  const n = (constants.signals as Record<string, number>)[signal] ?? Number(/^SIG(\d+)$/.exec(signal)?.[1])
  if (n >= SIGRTMIN && n <= 64) return `Real-time signal ${n - SIGRTMIN}\n`
  return `Unknown signal ${Number.isFinite(n) ? n : signal}\n`
}

/**
 * The jail's work folder as the program sees it. Jobe runs programs in /home/jobe/runs/jobe_X/, which
 * CodeRunner removes from stdout and stderr before a student sees them (filter_file_path: the folder
 * when a name of letters, digits or _ follows); Arbiter's is /work/, removed here the same way, so
 * `File "/work/__tester__.python3"` reads `File "__tester__.python3"` as it does on Jobe. A path that
 * merely ends in /work/ (`/home/u/work/x`) is left alone.
 */
const WORK_FOLDER = /(?<![\w.-])\/work\/(?=[A-Za-z0-9_])/g
export const withoutWorkFolder = (text: string) => (text.includes('/work/') ? text.replace(WORK_FOLDER, '') : text)

/** How a Jobe language shapes its texts (JobeLanguage's flags). */
export interface JobeTexts {
  /** JavaTask's filteredStderr: each newline-tab of a stack trace as a newline and eight spaces. */
  stderrTabsAsSpaces?: boolean
  /** PhpTask: a compile error's cmpinfo is stdout, a newline, then stderr (as written), when stdout has anything. */
  cmpinfoStdoutFirst?: boolean
}

export const overloadResult = (): JobeResult => ({ run_id: null, outcome: OUTCOME.overload, cmpinfo: '', stdout: '', stderr: '' })

export function jobeResult(row: Submission, texts: JobeTexts = {}): JobeResult {
  const result = (outcome: number, parts: Partial<JobeResult> = {}): JobeResult => {
    const r: JobeResult = { run_id: null, outcome, cmpinfo: '', stdout: '', stderr: '', ...parts }
    const stderr = texts.stderrTabsAsSpaces ? r.stderr.replaceAll('\n\t', '\n        ') : r.stderr
    return { ...r, cmpinfo: withoutWorkFolder(r.cmpinfo), stdout: withoutWorkFolder(r.stdout), stderr: withoutWorkFolder(stderr) }
  }
  if (row.failure) return result(OUTCOME.internalError, { stderr: row.failure })
  if (row.verdict === 'CE') {
    // Jobe's cmpinfo is the compiler's stderr as written, not trimmed (py_compile's leading spaces and
    // final newline included); PHP's is stdout, a newline, then stderr when both have text (PhpTask);
    // a compile a limit stopped keeps the core's message, which says which, and so does any other
    // that wrote to stdout too (fpc: the message joins both)
    const c = rawResultOf(row)?.compile
    const written = c && (c.status === 'ok' || c.status === 'exit') && c.stderr ? c : undefined
    const asWritten = written && (!written.stdout || texts.cmpinfoStdoutFirst) ? (written.stdout ? `${written.stdout}\n${written.stderr}` : written.stderr) : undefined
    return result(OUTCOME.compileError, { cmpinfo: asWritten !== undefined ? cleanText(Buffer.from(asWritten, 'utf8')) : (row.compileStatus ?? 'Compilation failed') })
  }
  const run = rawResultOf(row)?.run
  const stdout = cleanText(bytesOf(row.stdout))
  let stderr = cleanText(bytesOf(row.stderr))
  if (!run) return result(OUTCOME.internalError, { stderr: 'the run step did not run' })
  switch (run.status) {
    case 'time':
    case 'wall':
    case 'output': // output past what the run may write at all (not streamsize, which only cuts the reply): stopped there
      return result(OUTCOME.timeLimit, { stdout, stderr })
    case 'memory':
      return result(OUTCOME.memoryLimit, { stdout, stderr })
    case 'signal':
      // the shell Jobe runs programs under writes how it died after whatever the program wrote, and
      // Jobe's outcome follows stderr (12 when it has anything)
      stderr += signalText(run.signal)
      return result(stderr.length ? OUTCOME.runtimeError : OUTCOME.success, { stdout, stderr })
    // Jobe reads stderr, not the exit status
    case 'ok':
    case 'exit':
      return result(stderr.length ? OUTCOME.runtimeError : OUTCOME.success, { stdout, stderr })
    case 'internal':
      return result(OUTCOME.internalError, { stderr: 'the sandbox could not run the program' })
  }
}
