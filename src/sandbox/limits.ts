// The last check of a step's limits before they become nsjail and supervisor arguments. Whatever the
// HTTP edge or a caller let through, a limit that is 0, negative, fractional where the kernel wants a
// whole number, or not a number never reaches the jail: nsjail and the cgroup read 0 as "no limit".
import type { Limits } from './types.ts'

/** Bounds no step may pass, whatever its caller (the API caps are far lower; compile steps higher). */
const CEILING: Record<keyof Limits, number> = {
  cpuTimeSec: 3600,
  wallTimeSec: 7200,
  memoryKb: 64 * 1024 * 1024,
  processes: 4096,
  openFiles: 65536,
  fileSizeBytes: 64 * 1024 * 1024 * 1024,
  addressSpaceKb: 64 * 1024 * 1024,
  judgedCpuSec: 3600,
  stackKb: 64 * 1024 * 1024,
}
/** Floors: below them no program (nor the jail's init) can start, so the value is a bug upstream. */
const FLOOR: Record<keyof Limits, number> = {
  cpuTimeSec: 0.001,
  wallTimeSec: 0.001,
  memoryKb: 1024,
  processes: 1,
  openFiles: 4,
  fileSizeBytes: 1,
  addressSpaceKb: 1024,
  judgedCpuSec: 0.001,
  stackKb: 1,
}
const WHOLE: (keyof Limits)[] = ['memoryKb', 'processes', 'openFiles', 'fileSizeBytes', 'addressSpaceKb', 'stackKb']
/** Limits a step may leave out (no such limit). */
const OPTIONAL: (keyof Limits)[] = ['addressSpaceKb', 'judgedCpuSec', 'stackKb']

/** Throws (our own fault, never the program's) unless every limit is a finite number within its bounds. */
export function assertLimits(limits: Limits): void {
  for (const key of Object.keys(CEILING) as (keyof Limits)[]) {
    const v = limits[key]
    if (v === undefined && OPTIONAL.includes(key)) continue
    const ok = typeof v === 'number' && Number.isFinite(v) && v >= FLOOR[key] && v <= CEILING[key] && (!WHOLE.includes(key) || Number.isInteger(v))
    if (!ok) throw new Error(`refusing to start a jail with limit ${key} = ${String(v)}`)
  }
  // judged over a limit it could never reach: the grace would be a bug upstream, not a verdict
  if (limits.judgedCpuSec !== undefined && limits.judgedCpuSec > limits.cpuTimeSec)
    throw new Error(`refusing to start a jail with limit judgedCpuSec = ${limits.judgedCpuSec} past cpuTimeSec = ${limits.cpuTimeSec}`)
}
