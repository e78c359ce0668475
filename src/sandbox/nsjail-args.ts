// Pure: the nsjail argv for one step, from the base policy (sandbox/jail.cfg), the step and the
// slot's cgroup layout. Everything a request influences arrives here as data, never as shell text.
import { join } from 'node:path'
import type { CgroupVersion } from './cgroups.ts'
import { assertLimits } from './limits.ts'
import type { Step } from './types.ts'

export const JAIL_CONFIG = join(import.meta.dirname, '..', '..', 'sandbox', 'jail.cfg')
/** Where the jail's init is bind-mounted (read-only) inside every root. */
export const JAIL_INIT_PATH = '/.arbiter/init'

export interface SlotLayout {
  slot: string
  cgroup: CgroupVersion
  /** v1 only: whether memory.memsw.* exists (swap accounting), so swap can be forbidden too. */
  swapAccounting: boolean
  /** Path of nsjail's log for this step: it tells whether the jail was set up. */
  logFile: string
  /** Host path of the static init (sandbox/jail-init.c) run as PID 1 of the jail. */
  jailInit: string
  /** The base policy; JAIL_CONFIG unless a benchmark compares another (scripts/bench-sandbox.ts). */
  jailConfig?: string
  /** The host uid and gid the jail's 65534 is mapped to: the slot's own (its supervisor claimed it). */
  uid: number
  /**
   * The supervisor makes the run's memory group (<slot>/run on v1) and sets the limit there; nsjail's
   * group goes under it with a looser backstop. false: a supervisor from before run groups.
   */
  runGroup: boolean
}

/** The jail's user inside its namespace. */
export const JAIL_UID = 65534

/** The host ids a jail may be mapped to: the old shared 65534, or a claimed one (never root or a login user). */
export function assertJailUid(uid: number): void {
  if (!Number.isInteger(uid) || !(uid === JAIL_UID || (uid >= 100000 && uid <= 4294967294))) throw new Error(`refusing to map the jail to host uid ${String(uid)}`)
}

/** The fd on which a wired step's jail init takes its two pipe ends (sandbox/jail-init.h WIRE_HAND_FD). */
export const WIRE_HAND_FD = 4

/** wired: the step's stdin and stdout are pipes to a peer's step (sandbox/wire.c), handed to its init on WIRE_HAND_FD. */
export function nsjailArgs(step: Step, layout: SlotLayout, memoryHeadroomKb = 0, opts: { wired?: boolean } = {}): string[] {
  const { limits } = step
  assertLimits(limits)
  assertJailUid(layout.uid)
  const memBytes = (limits.memoryKb + memoryHeadroomKb) * 1024
  // with a run group the limit is the supervisor's (its group is the one that hits it, so the OOM is
  // seen there, see make_run_group in sandbox/supervisor.c): nsjail's own group only backs it up
  const nsjailMemBytes = layout.runGroup ? memBytes * 2 : memBytes
  const args = [
    'nsjail',
    '--config', layout.jailConfig ?? JAIL_CONFIG,
    '--log', layout.logFile,
    '--quiet', // warnings and errors only: the init reports how the program ended
    '--chroot', step.root,
    '--bindmount', `${step.workDir}:/work`,
    '--bindmount_ro', `${layout.jailInit}:${JAIL_INIT_PATH}`,
    '-u', `${JAIL_UID}:${layout.uid}:1`,
    '-g', `${JAIL_UID}:${layout.uid}:1`,
    // fd 3 carries the init's report of how the program ended
    '--pass_fd', '3',
    // a wired step's pipes reach its init over this socket, not as nsjail's own stdin and stdout (which
    // nsjail would hold until the jail is gone, so the peer would see no end of file before)
    ...(opts.wired ? ['--pass_fd', String(WIRE_HAND_FD)] : []),
    // backstops only: the supervisor enforces the exact (fractional) CPU and wall limits first
    '--time_limit', String(Math.ceil(limits.wallTimeSec) + 2),
    '--rlimit_cpu', String(Math.ceil(limits.cpuTimeSec) + 1),
    '--rlimit_nofile', String(limits.openFiles),
    '--cgroup_pids_max', String(limits.processes),
    '--cgroup_mem_max', String(nsjailMemBytes),
  ]
  // whole MB, rounded up: a limit never becomes 0 ("no limit" to nsjail)
  if (limits.addressSpaceKb !== undefined) args.push('--rlimit_as', String(Math.ceil(limits.addressSpaceKb / 1024)))
  // after --config, so it replaces jail.cfg's rlimit_stack
  if (limits.stackKb !== undefined) args.push('--rlimit_stack', String(Math.ceil(limits.stackKb / 1024)))
  if (layout.cgroup === 'v1') {
    const parent = `arbiter/${layout.slot}`
    const memParent = layout.runGroup ? `${parent}/run` : parent
    args.push(
      '--cgroup_mem_mount', '/sys/fs/cgroup/memory', '--cgroup_mem_parent', memParent,
      '--cgroup_pids_mount', '/sys/fs/cgroup/pids', '--cgroup_pids_parent', parent
    )
    if (layout.swapAccounting) args.push('--cgroup_mem_memsw_max', String(nsjailMemBytes))
  } else {
    args.push(
      '--use_cgroupv2',
      '--cgroupv2_mount', `/sys/fs/cgroup/arbiter/${layout.slot}/run`,
      '--cgroup_mem_swap_max', '0'
    )
  }
  for (const [key, value] of Object.entries(step.env)) args.push('--env', `${key}=${value}`)
  args.push('--', JAIL_INIT_PATH, ...step.argv)
  return args
}
