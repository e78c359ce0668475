// Pure: how a step ended, from the supervisor's measurements, the jail init's report and nsjail's
// log, decided in one fixed order of precedence (memory first: a program killed by the OOM killer
// is MLE even if its time also ran out; a full output file before time, since a program that
// ignores EFBIG may loop until its time is up).
import { constants } from 'node:os'
import type { SupervisorReply } from './supervisor.ts'
import type { Limits, RunResult, RunStatus } from './types.ts'

// first name wins: 6 is SIGABRT before it is SIGIOT, 29 SIGIO before SIGPOLL
const signalNames = new Map<number, string>()
for (const [name, num] of Object.entries(constants.signals)) if (!signalNames.has(num)) signalNames.set(num, name)
export const signalName = (n: number) => signalNames.get(n) ?? `SIG${n}`

export interface ProgramEnd {
  exitCode: number | null
  signal: number | null
}

export interface Evidence {
  /** nsjail's log of the step. */
  log: string
  /** The jail init's one-line report ("exit N" / "signal N"), empty if it had none to give. */
  status: string
  /** stdout or stderr reached the file size cap. */
  outputCapped: boolean
}

/**
 * nsjail runs --quiet: its log holds only warnings and errors. A jail that never got to run the
 * program (no report from its init) and logged an error failed on our side.
 */
export function jailFailure(log: string, initReported: boolean): string | null {
  if (initReported) return null
  const problem = log.split('\n').find((l) => /^\[[EF]\]/.test(l))
  return problem ? problem.replace(/^\[[EF]\]\[[^\]]*\](\[\d+\])?\s*/, '') : null
}

/** The init's report; without one the program was killed along with its init (our limit, OOM). */
export function parseInitReport(status: string): ProgramEnd | null {
  const m = /^(exit|signal) (\d+)$/m.exec(status)
  if (!m) return null
  return m[1] === 'exit' ? { exitCode: Number(m[2]), signal: null } : { exitCode: null, signal: Number(m[2]) }
}

/**
 * The init's report, if what the supervisor saw itself agrees with it: nsjail exits with the init's
 * status, which is the program's exit code or 128 + its signal (sandbox/jail-init.c). A report that
 * disagrees was not written by the init (a program that reached the report descriptor wrote it):
 * it is ignored and the end is read from the exit status alone (when a limit stopped the jail,
 * that status is ours, so the program counts as killed).
 */
export function checkedEnd(reply: SupervisorReply, report: ProgramEnd | null): ProgramEnd | null {
  if (!report) return null
  const expected = report.signal === null ? report.exitCode : 128 + report.signal
  if (reply.signal === 0 && reply.exit === expected) return report
  // not the init's: with a limit (or a signal) ending nsjail, its status is ours, not the program's
  if (reply.limit !== 'none' || reply.signal !== 0) return null
  const signal = reply.exit - 128
  return signal > 0 && signal <= 64 ? { exitCode: null, signal } : { exitCode: reply.exit, signal: null }
}

export function classify(reply: SupervisorReply, end: ProgramEnd, outputCapped: boolean, limits: Limits, memoryHeadroomKb = 0): RunStatus {
  const memoryCapKb = limits.memoryKb + memoryHeadroomKb
  const killed = end.signal === constants.signals.SIGKILL
  const order: [RunStatus, boolean][] = [
    // the recorded peak of a program the OOM killer took can fall short of the cap (the kernel charges
    // in per-CPU batches): ~0.5 MB was seen at the 16 MB floor, over 3% of it
    ['memory', reply.oom || (killed && reply.memKb >= memoryCapKb - Math.max(memoryCapKb * 0.03, 1024))],
    // reaching the cap means output was lost, whether the program died of it or carried on
    ['output', end.signal === constants.signals.SIGXFSZ || outputCapped],
    // past the CPU limit is TLE even when the program ended before the supervisor's next look at it;
    // with a grace, past the judged limit is TLE though the program was let run on (and may have ended)
    ['time', reply.limit === 'cpu' || end.signal === constants.signals.SIGXCPU || reply.cpuUs > (limits.judgedCpuSec ?? limits.cpuTimeSec) * 1e6],
    ['wall', reply.limit === 'wall'],
    ['signal', end.signal !== null],
    ['exit', end.exitCode !== 0],
  ]
  return order.find(([, hit]) => hit)?.[0] ?? 'ok'
}

/**
 * The supervisor's child exits 120-126 when it could not start nsjail at all (network namespace,
 * cgroup, stdio files, the exec itself, chroot; see child_exec in sandbox/supervisor.c). With no
 * report from the jail's init and no log from nsjail, that exit is ours, not the program's.
 */
const SUPERVISOR_SETUP_FAILURES: Record<number, string> = {
  120: 'could not enter the slot network namespace',
  121: 'could not join the slot cgroup',
  122: 'could not open the step files',
  123: 'could not set up the step stdio',
  124: 'could not execute nsjail',
  125: 'could not enter the chroot',
  126: 'could not bound the jail\'s share of host quotas',
}

export function supervisorSetupFailure(reply: SupervisorReply, initReported: boolean, log: string): string | null {
  if (initReported || log.trim() || reply.signal !== 0 || reply.limit !== 'none') return null
  const why = SUPERVISOR_SETUP_FAILURES[reply.exit]
  return why ? `the jail did not start: ${why} (supervisor exit ${reply.exit})` : null
}

export function toRunResult(
  reply: SupervisorReply,
  evidence: Evidence,
  limits: Limits,
  out: { stdout: string; stderr: string; textCut?: boolean },
  memoryHeadroomKb = 0
): RunResult {
  const report = checkedEnd(reply, parseInitReport(evidence.status))
  // when the program ended: its init's word (it reaped it), unless our limit stopped it (the supervisor's
  // time of the kill), else when the supervisor saw the end (after the jail's teardown)
  const written = parseInitReport(evidence.status)
  const believed = report && written && report.exitCode === written.exitCode && report.signal === written.signal
  const ended = believed && reply.limit === 'none' ? /^ended (\d+)$/m.exec(evidence.status)?.[1] : undefined
  const endUs = ended !== undefined ? Number(ended) : reply.endUs
  const figures = { cpuSec: reply.cpuUs / 1e6, wallSec: reply.wallUs / 1e6, memoryKb: reply.memKb, ...out, ...(endUs !== undefined && { endUs }) }
  const failure = jailFailure(evidence.log, report !== null) ?? supervisorSetupFailure(reply, report !== null, evidence.log)
  // our own limit kill may interrupt nsjail before the init reports: that is still the verdict
  if (failure && reply.limit === 'none') {
    return { status: 'internal', exitCode: null, signal: null, message: failure, ...figures }
  }
  // no report: the init was killed with the program (our limit, or the OOM killer)
  const end = report ?? { exitCode: null, signal: constants.signals.SIGKILL }
  return {
    status: classify(reply, end, evidence.outputCapped, limits, memoryHeadroomKb),
    exitCode: end.exitCode,
    signal: end.signal === null ? null : signalName(end.signal),
    ...figures,
  }
}
