// Pure: how a step ended, from the supervisor's measurements and nsjail's log, in one fixed order
// of precedence (memory first: a program killed by the OOM killer is MLE even if time also ran out).
import { constants } from 'node:os'
import type { SupervisorReply } from './supervisor.ts'
import type { Limits, RunResult, RunStatus } from './types.ts'

const signalNames = new Map(Object.entries(constants.signals).map(([name, num]) => [num as number, name]))
export const signalName = (n: number) => signalNames.get(n) ?? `SIG${n}`

export interface ProgramEnd {
  /** From nsjail's log: the program's own exit code or terminating signal. */
  exitCode: number | null
  signal: number | null
}

/** nsjail logs how its child ended; without such a line the jail itself failed. */
export function parseNsjailLog(log: string): ProgramEnd | { error: string } {
  const problems = log.split('\n').filter((l) => /^\[[EF]\]/.test(l))
  const firstProblem = () =>
    problems[0]?.replace(/^\[[EF]\]\[[^\]]*\](\[\d+\])?\s*/, '') ?? 'nsjail ended without running the program'
  // nsjail logs "Executing '<prog>'" right before execve; a jail that failed earlier is our fault,
  // even though nsjail then reports its half-built child as killed
  if (!log.includes("Executing '") || /execve\(.*\) failed/.test(log)) return { error: firstProblem() }
  const signaled = [...log.matchAll(/terminated with signal: \S+ \((\d+)\)/g)].at(-1)
  if (signaled) return { exitCode: null, signal: Number(signaled[1]) }
  const exited = [...log.matchAll(/exited with status: (\d+)/g)].at(-1)
  if (exited) return { exitCode: Number(exited[1]), signal: null }
  return { error: firstProblem() }
}

export function classify(reply: SupervisorReply, end: ProgramEnd, limits: Limits, memoryHeadroomKb = 0): RunStatus {
  const memoryCapKb = limits.memoryKb + memoryHeadroomKb
  const killed = end.signal === constants.signals.SIGKILL
  const order: [RunStatus, boolean][] = [
    ['memory', reply.oom || (killed && reply.memKb >= memoryCapKb * 0.97)],
    ['time', reply.limit === 'cpu' || end.signal === constants.signals.SIGXCPU],
    ['wall', reply.limit === 'wall'],
    ['output', end.signal === constants.signals.SIGXFSZ],
    ['signal', end.signal !== null],
    ['exit', end.exitCode !== 0],
  ]
  return order.find(([, hit]) => hit)?.[0] ?? 'ok'
}

export function toRunResult(
  reply: SupervisorReply,
  log: string,
  limits: Limits,
  out: { stdout: string; stderr: string },
  memoryHeadroomKb = 0
): RunResult {
  const end = parseNsjailLog(log)
  const figures = { cpuSec: reply.cpuUs / 1e6, wallSec: reply.wallUs / 1e6, memoryKb: reply.memKb, ...out }
  // our own limit kill may land before nsjail logs the child's end: that is still the verdict
  if ('error' in end && reply.limit === 'none') {
    return { status: 'internal', exitCode: null, signal: null, message: end.error, ...figures }
  }
  const known: ProgramEnd = 'error' in end ? { exitCode: null, signal: constants.signals.SIGKILL } : end
  const status = classify(reply, known, limits, memoryHeadroomKb)
  return {
    status,
    exitCode: known.exitCode,
    signal: known.signal === null ? null : signalName(known.signal),
    ...figures,
  }
}
