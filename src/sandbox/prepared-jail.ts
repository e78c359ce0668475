// Pure: what the supervisor needs to build a prepared jail (sandbox/prepared-jails.c) and to run a
// step in one. The base policy stays sandbox/jail.cfg: the prepared jail's nsjail config is derived
// from it (the seccomp policy is taken out, to be applied to each run's program by the jail's init,
// which needs mount and namespace calls the policy refuses), and the policy's text is handed to the
// supervisor, which compiles it once.
import { readFileSync } from 'node:fs'
import { assertLimits } from './limits.ts'
import { assertJailUid, JAIL_CONFIG, JAIL_INIT_PATH, JAIL_UID } from './nsjail-args.ts'
import type { Step } from './types.ts'

/** jail.cfg's rlimit_stack (MiB): a run's stack unless its limits say otherwise. */
export const DEFAULT_STACK_KB = 64 * 1024

/** The seccomp policy's lines (kafel), from the config's `seccomp_string: "…"` fields. */
export function seccompPolicy(configText: string): string[] {
  const lines: string[] = []
  for (const m of configText.matchAll(/^\s*seccomp_string:\s*"((?:[^"\\]|\\.)*)"\s*$/gm)) lines.push(m[1].replace(/\\(.)/g, '$1'))
  if (lines.length === 0) throw new Error('the jail config has no seccomp policy')
  return lines
}

/**
 * The prepared jail's nsjail config: the base policy without its seccomp filter (the runs get it),
 * with its capabilities kept inside the jail's user namespace (its init mounts each run's /proc, /tmp,
 * /dev/shm and box, then drops them all before the program exists), and without /tmp (each run
 * mounts its own on the root's empty folder). Everything else — namespaces, rlimit types, /proc and
 * its masks, /dev — is the base policy's own.
 */
export function preparedJailConfig(configText: string): string {
  const out = configText
    .split('\n')
    .filter((line) => !/^\s*seccomp_string:/.test(line) && !/^\s*mount\s*\{\s*dst:\s*"\/tmp"/.test(line))
    .map((line) => line.replace(/^keep_caps:\s*false\s*$/, 'keep_caps: true'))
    .join('\n')
  if (!/^keep_caps: true$/m.test(out)) throw new Error('the jail config does not say keep_caps: false')
  return out
}

export interface PreparedLayout {
  /** Host uid the jail's 65534 is mapped to (the slot's own). */
  uid: number
  /** The derived config file (preparedJailConfig) written for this slot. */
  configFile: string
  logFile: string
  /** Host path of the init bound at /.arbiter/init. */
  jailInit: string
}

/** nsjail's argv for a prepared jail of `root`: built once, then serves runs until it is doubted. */
export function preparedJailArgs(root: string, layout: PreparedLayout): string[] {
  assertJailUid(layout.uid)
  return [
    'nsjail',
    '--config', layout.configFile,
    '--log', layout.logFile,
    '--quiet',
    '--chroot', root,
    '--bindmount_ro', `${layout.jailInit}:${JAIL_INIT_PATH}`,
    '-u', `${JAIL_UID}:${layout.uid}:1`,
    '-g', `${JAIL_UID}:${layout.uid}:1`,
    // the supervisor's end of the request socket
    '--pass_fd', '3',
    // the init lives as long as the slot; each run gets its own limits (hard limits here are the
    // ceilings a run's may not pass, whatever its request: limits.ts's)
    '--time_limit', '0',
    '--rlimit_cpu', 'inf',
    '--rlimit_fsize', 'inf',
    '--rlimit_stack', 'inf',
    '--rlimit_nofile', 'hard',
    '--', JAIL_INIT_PATH, '--serve',
  ]
}

/** The fields of a run request to a prepared jail (after assertLimits, as nsjail's argv is). */
export function preparedRunFields(step: Step, memoryHeadroomKb = 0): string[] {
  const { limits } = step
  assertLimits(limits)
  const fields = [
    `jail ${step.root}`,
    ...step.argv.map((a) => `arg ${a}`),
    ...Object.entries(step.env).map(([k, v]) => `env ${k}=${v}`),
    `box ${step.workDir}`,
    `nofile ${limits.openFiles}`,
    `pids ${limits.processes}`,
    // whole MB, rounded up, as nsjail's --rlimit_stack
    `stack_kb ${limits.stackKb === undefined ? DEFAULT_STACK_KB : Math.ceil(limits.stackKb / 1024) * 1024}`,
    // backstops, as nsjail's: the supervisor stops the run at the exact CPU and wall limits first
    `cpu_backstop_sec ${Math.ceil(limits.cpuTimeSec) + 1}`,
    `mem_bytes ${(limits.memoryKb + memoryHeadroomKb) * 1024}`,
  ]
  // whole MB, rounded up, as nsjail's --rlimit_as
  if (limits.addressSpaceKb !== undefined) fields.push(`as_kb ${Math.ceil(limits.addressSpaceKb / 1024) * 1024}`)
  return fields
}

/** The base policy's text (read once per process). */
let baseText: string | undefined
export function baseJailConfig(path = JAIL_CONFIG): string {
  return path === JAIL_CONFIG ? (baseText ??= readFileSync(path, 'utf8')) : readFileSync(path, 'utf8')
}
