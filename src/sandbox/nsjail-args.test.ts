import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { JAIL_CONFIG, JAIL_INIT_PATH, nsjailArgs, WIRE_HAND_FD, type SlotLayout } from './nsjail-args.ts'
import type { Step } from './types.ts'

const step: Step = {
  root: '/tc/trixie',
  argv: ['/usr/bin/python3', 'main.py'],
  env: { PATH: '/usr/bin', HOME: '/tmp' },
  workDir: '/runs/s1/box',
  limits: { cpuTimeSec: 1.5, wallTimeSec: 5, memoryKb: 65536, processes: 32, openFiles: 64, fileSizeBytes: 1024 },
}
// a supervisor from before run groups and per-slot uids (the benchmark's baseline)
const v1: SlotLayout = { slot: 's1', cgroup: 'v1', swapAccounting: true, logFile: '/runs/s1/io/log', jailInit: '/bin/init', uid: 65534, runGroup: false }
// today's: the slot's own host uid, and a memory group of the run's own made by the supervisor
const own: SlotLayout = { ...v1, uid: 2_000_000_003, runGroup: true }

const after = (args: string[], flag: string) => args[args.indexOf(flag) + 1]

describe('nsjailArgs', () => {
  it('mounts the root read-only, the box at /work, and runs the program under the jail init', () => {
    const a = nsjailArgs(step, v1)
    expect(after(a, '--config')).toBe(JAIL_CONFIG)
    expect(after(a, '--chroot')).toBe('/tc/trixie')
    expect(after(a, '--bindmount')).toBe('/runs/s1/box:/work')
    expect(after(a, '--bindmount_ro')).toBe(`/bin/init:${JAIL_INIT_PATH}`)
    expect(a.slice(a.indexOf('--') + 1)).toEqual([JAIL_INIT_PATH, '/usr/bin/python3', 'main.py'])
  })

  it('passes fd 3 (the init\'s report) to every jail, and fd 4 (the socket a wired step\'s pipes arrive on) only to a wired one', () => {
    const passed = (a: string[]) => a.flatMap((x, i) => (x === '--pass_fd' ? [a[i + 1]] : []))
    expect(passed(nsjailArgs(step, own))).toEqual(['3'])
    expect(passed(nsjailArgs(step, own, 0, { wired: true }))).toEqual(['3', String(WIRE_HAND_FD)])
    // the fd jail-init.c reads
    expect(readFileSync(join(import.meta.dirname, '..', '..', 'sandbox', 'jail-init.h'), 'utf8')).toMatch(new RegExp(`#define WIRE_HAND_FD ${WIRE_HAND_FD}\\b`))
  })

  it('passes each env variable as one argument, never through a shell', () => {
    const a = nsjailArgs({ ...step, env: { X: 'a b; rm -rf /' } }, v1)
    expect(after(a, '--env')).toBe('X=a b; rm -rf /')
  })

  it('rounds whole-second backstops up, above the exact limits the supervisor enforces', () => {
    const a = nsjailArgs(step, v1)
    expect(after(a, '--rlimit_cpu')).toBe('3')
    expect(after(a, '--time_limit')).toBe('7')
  })

  it('limits memory (plus headroom) and swap with the slot cgroups on v1', () => {
    const a = nsjailArgs(step, v1, 1024)
    expect(after(a, '--cgroup_mem_max')).toBe(String((65536 + 1024) * 1024))
    expect(after(a, '--cgroup_mem_memsw_max')).toBe(String((65536 + 1024) * 1024))
    expect(after(a, '--cgroup_mem_parent')).toBe('arbiter/s1')
    expect(after(a, '--cgroup_pids_max')).toBe('32')
    expect(nsjailArgs(step, { ...v1, swapAccounting: false })).not.toContain('--cgroup_mem_memsw_max')
  })

  it("maps the jail's 65534 to the slot's own host uid and gid, and never to root or a login user", () => {
    const a = nsjailArgs(step, own)
    expect(after(a, '-u')).toBe('65534:2000000003:1')
    expect(after(a, '-g')).toBe('65534:2000000003:1')
    expect(after(nsjailArgs(step, v1), '-u')).toBe('65534:65534:1')
    for (const uid of [0, 1000, 99999, -1, 2.5, Number.NaN, 4294967295]) expect(() => nsjailArgs(step, { ...own, uid }), String(uid)).toThrow(/refusing to map/)
  })

  it("with a run group: nsjail's group sits under <slot>/run with a looser backstop (the supervisor holds the limit)", () => {
    const a = nsjailArgs(step, own, 1024)
    expect(after(a, '--cgroup_mem_parent')).toBe('arbiter/s1/run')
    expect(after(a, '--cgroup_mem_max')).toBe(String((65536 + 1024) * 1024 * 2))
    expect(after(a, '--cgroup_mem_memsw_max')).toBe(String((65536 + 1024) * 1024 * 2))
    expect(after(a, '--cgroup_pids_parent')).toBe('arbiter/s1')
  })

  it('uses the per-run group under the slot on v2, with no swap', () => {
    const a = nsjailArgs(step, { ...v1, cgroup: 'v2' })
    expect(a).toContain('--use_cgroupv2')
    expect(after(a, '--cgroupv2_mount')).toBe('/sys/fs/cgroup/arbiter/s1/run')
    expect(after(a, '--cgroup_mem_swap_max')).toBe('0')
    expect(a).not.toContain('--cgroup_mem_parent')
  })
})

describe('the base policy (sandbox/jail.cfg)', () => {
  const cfg = readFileSync(JAIL_CONFIG, 'utf8')
  const policy = [...cfg.matchAll(/^seccomp_string: "(.*)"$/gm)].map((m) => m[1]).join('\n')
  const allowBlock = /ALLOW \{([\s\S]*?)\n {2}\}/.exec(policy)?.[1] ?? ''
  const allowed = new Set(allowBlock.replace(/\{[^}]*\}/g, '').split(/[\s,]+/).filter(Boolean))

  it('is an allow-list: EPERM by default, clone3 ENOSYS', () => {
    expect(policy).toMatch(/USE arbiter DEFAULT ERRNO\(1\)\s*$/)
    expect(policy).toMatch(/ERRNO\(38\) \{ clone3 \}/)
    expect(allowed.size).toBeGreaterThan(150)
  })

  it('never allows the calls that reach past the jail: tracing, namespaces, mounts, kernel keys, bpf, io_uring, inotify, message queues, clone3', () => {
    const refused = ['ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'pidfd_open', 'pidfd_getfd', 'unshare', 'setns', 'mount', 'umount',
      'pivot_root', 'chroot', 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'move_mount', 'open_tree', 'mount_setattr', 'memfd_secret', 'modify_ldt',
      'seccomp', 'landlock_create_ruleset', 'landlock_add_rule', 'landlock_restrict_self', 'bpf', 'keyctl', 'add_key', 'request_key', 'io_uring_setup',
      'io_uring_enter', 'io_uring_register', 'io_setup', 'userfaultfd', 'perf_event_open', 'inotify_init', 'inotify_init1', 'mq_open', 'clone3']
    for (const name of refused) expect(allowed.has(name), name).toBe(false)
  })

  it('refuses sync() and fadvise(POSIX_FADV_DONTNEED), the two calls that reach the whole host\'s page cache; keeps syncfs, fsync and other advice', () => {
    expect(allowed.has('sync')).toBe(false)
    for (const name of ['syncfs', 'fsync', 'fdatasync', 'sync_file_range']) expect(allowed.has(name), name).toBe(true)
    expect(allowBlock).toContain('fadvise64 { advice != 4 }')
    expect(allowBlock).toContain('fallocate { mode == 0 || mode == 3 }')
    expect(cfg).not.toMatch(/^\s*(uidmap|gidmap)\b/m) // the mapping is per slot, on the command line
  })

  it('checks the arguments of clone, socket, socketpair, personality and prctl', () => {
    expect(allowBlock).toContain('clone { (clone_flags & 0x7e020000) == 0 }')
    expect(allowBlock).toMatch(/socket \{ family == 1 \|\| /)
    expect(allowBlock).toContain('socketpair { family == 1 }')
    expect(allowBlock).toContain('prctl { option != 22 }')
    expect(allowBlock).toMatch(/personality \{ personality == 0 \|\|/)
  })
})

describe('limits are checked again where the jail arguments are built', () => {
  it.each([
    ['memoryKb', 0], ['memoryKb', -1], ['memoryKb', 0.4], ['memoryKb', Number.NaN], ['memoryKb', Infinity],
    ['cpuTimeSec', 0], ['cpuTimeSec', -5], ['cpuTimeSec', Number.NaN],
    ['wallTimeSec', 0], ['processes', 0], ['processes', 1.5], ['openFiles', 0], ['fileSizeBytes', 0],
    ['fileSizeBytes', -1], ['memoryKb', '65536'],
  ] as const)('%s = %s never reaches nsjail', (key, value) => {
    expect(() => nsjailArgs({ ...step, limits: { ...step.limits, [key]: value } }, v1)).toThrow(/refusing to start a jail/)
  })

  it('the memory limit reaches nsjail as the given bytes, never 0', () => {
    expect(after(nsjailArgs(step, v1), '--cgroup_mem_max')).toBe(String(65536 * 1024))
  })
})

describe('nsjailArgs: an address-space limit', () => {
  it('is passed in whole MB, rounded up, only when a step has one', () => {
    expect(nsjailArgs(step, v1)).not.toContain('--rlimit_as')
    const a = nsjailArgs({ ...step, limits: { ...step.limits, addressSpaceKb: 1025 } }, v1)
    expect(after(a, '--rlimit_as')).toBe('2')
  })
  it('is refused when it is not a whole number within bounds', () => {
    expect(() => nsjailArgs({ ...step, limits: { ...step.limits, addressSpaceKb: 0 } }, v1)).toThrow(/addressSpaceKb/)
    expect(() => nsjailArgs({ ...step, limits: { ...step.limits, addressSpaceKb: 1.5e3 + 0.5 } }, v1)).toThrow(/addressSpaceKb/)
  })
})

describe('nsjailArgs: a stack limit', () => {
  it("is passed as --rlimit_stack in whole MB, rounded up and never 0, only when a step has one (else jail.cfg's 64 MB)", () => {
    expect(nsjailArgs(step, v1)).not.toContain('--rlimit_stack')
    expect(readFileSync(JAIL_CONFIG, 'utf8')).toMatch(/^rlimit_stack: 64$/m)
    const mb = (stackKb: number) => after(nsjailArgs({ ...step, limits: { ...step.limits, stackKb } }, v1), '--rlimit_stack')
    expect(mb(8000)).toBe('8')
    expect(mb(128000)).toBe('125')
    expect(mb(1025)).toBe('2')
    expect(mb(1)).toBe('1')
    // after --config: nsjail applies options in order, so the step's value replaces the policy's
    const a = nsjailArgs({ ...step, limits: { ...step.limits, stackKb: 8000 } }, v1)
    expect(a.indexOf('--rlimit_stack')).toBeGreaterThan(a.indexOf('--config'))
  })
  it('is refused when it is not a whole positive number within bounds', () => {
    for (const stackKb of [0, -1, 1.5, Number.NaN, 64 * 1024 * 1024 + 1])
      expect(() => nsjailArgs({ ...step, limits: { ...step.limits, stackKb } }, v1), String(stackKb)).toThrow(/stackKb/)
  })
})

describe('nsjailArgs: a judged CPU limit under the enforced one (a grace)', () => {
  it('leaves the enforced limits alone and is refused past cpuTimeSec or when not a positive number', () => {
    const a = nsjailArgs({ ...step, limits: { ...step.limits, cpuTimeSec: 2.5, judgedCpuSec: 2 } }, v1)
    expect(after(a, '--rlimit_cpu')).toBe('4')
    for (const judgedCpuSec of [0, -1, Number.NaN, 2.6])
      expect(() => nsjailArgs({ ...step, limits: { ...step.limits, cpuTimeSec: 2.5, judgedCpuSec } }, v1), String(judgedCpuSec)).toThrow(/judgedCpuSec/)
  })
})
