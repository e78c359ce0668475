// The sandbox driver's neutral vocabulary: what one jailed step is given and what it reports.
// Knows nothing of submissions, HTTP or the database (go-judge's envexec split).

export interface Limits {
  /** CPU seconds (user+sys of every process of the step); fractional limits are enforced. */
  cpuTimeSec: number
  /** Wall-clock seconds; catches programs that sleep or block. */
  wallTimeSec: number
  /** Memory in KB, enforced by the cgroup memory controller (v1 or v2). */
  memoryKb: number
  /** Processes + threads alive at once (pids controller). */
  processes: number
  /** RLIMIT_NOFILE. */
  openFiles: number
  /** RLIMIT_FSIZE: largest file the program may write, stdout and stderr included. */
  fileSizeBytes: number
  /** RLIMIT_AS in KB (whole MB in the jail), when a caller wants allocations to fail rather than the cgroup to kill; absent: none. */
  addressSpaceKb?: number
  /**
   * CPU seconds past which the step is judged 'time', when it is let run on to cpuTimeSec (a grace, as
   * isolate's extra time: stopped later, so its real CPU time is measured); absent: cpuTimeSec.
   */
  judgedCpuSec?: number
  /** RLIMIT_STACK in KB (whole MB in the jail, rounded up); absent: jail.cfg's 64 MB. */
  stackKb?: number
}

export interface Step {
  /** Host path of the toolchain root filesystem, mounted read-only as the jail's /. */
  root: string
  /** argv inside the jail; argv[0] is resolved against PATH inside the root. */
  argv: string[]
  env: Record<string, string>
  /** Host path of the job's work directory, mounted read-write at /work (the jail's cwd). */
  workDir: string
  /** Most bytes of stdout and of stderr read back (default: limits.fileSizeBytes). */
  readBackBytes?: number
  /** How stdout and stderr are decoded: UTF-8 (the default), or latin1 — one character per byte, so a caller can recover the exact bytes. */
  outputEncoding?: 'utf8' | 'latin1'
  /** Bytes fed to stdin. */
  stdin?: string | Buffer
  limits: Limits
}

export type RunStatus =
  /** exited 0 */
  | 'ok'
  /** exited non-zero */
  | 'exit'
  /** killed by a signal (not one of ours) */
  | 'signal'
  /** CPU time limit */
  | 'time'
  /** wall-clock limit */
  | 'wall'
  /** memory limit (OOM kill, or peak at the limit) */
  | 'memory'
  /** output cap (SIGXFSZ) */
  | 'output'
  /** our own fault: the jail could not be set up */
  | 'internal'

export interface RunResult {
  status: RunStatus
  exitCode: number | null
  /** Signal name, e.g. 'SIGSEGV', when the program was killed by one. */
  signal: string | null
  /** CPU seconds, user+sys, of all the step's processes. */
  cpuSec: number
  wallSec: number
  /** Peak memory in KB. */
  memoryKb: number
  stdout: string
  stderr: string
  /** stdout or stderr was longer than the step's readBackBytes: the text above is its head. */
  textCut?: boolean
  /** For 'internal': what went wrong on our side. */
  message?: string
  /** When the step was seen to end (a monotonic clock in µs shared by the host's jails): which of two wired steps ended first. */
  endUs?: number
}
