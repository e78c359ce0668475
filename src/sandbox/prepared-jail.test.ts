import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { JAIL_CONFIG } from './nsjail-args.ts'
import { DEFAULT_STACK_KB, preparedJailArgs, preparedJailConfig, preparedRunFields, seccompPolicy } from './prepared-jail.ts'
import type { Step } from './types.ts'

const base = readFileSync(JAIL_CONFIG, 'utf8')
const step: Step = {
  root: '/run/arbiter/roots/trixie',
  argv: ['/work/prog', 'a b'],
  env: { PATH: '/usr/bin:/bin', HOME: '/tmp' },
  workDir: '/var/lib/arbiter/runs/w1/box',
  limits: { cpuTimeSec: 1.5, wallTimeSec: 4, memoryKb: 65536, processes: 16, openFiles: 64, fileSizeBytes: 1 << 20 },
}
const field = (fields: string[], key: string) => fields.filter((f) => f.startsWith(`${key} `)).map((f) => f.slice(key.length + 1))

describe("a prepared jail's description comes from the base policy", () => {
  it('its seccomp policy is every seccomp_string line of jail.cfg, unquoted, in order', () => {
    const lines = seccompPolicy(base)
    expect(lines.length).toBe(base.split('\n').filter((l) => l.startsWith('seccomp_string:')).length)
    expect(lines[0]).toBe('POLICY arbiter {')
    expect(lines.at(-1)).toBe('USE arbiter DEFAULT ERRNO(1)')
    expect(lines.join('\n')).toContain('clone { (clone_flags & 0x7e020000) == 0 },')
    expect(() => seccompPolicy('mode: ONCE\n')).toThrow(/no seccomp policy/)
  })

  it('its nsjail config: no filter (the runs get it), capabilities kept in the jail, no /tmp; the rest unchanged', () => {
    const cfg = preparedJailConfig(base)
    expect(cfg).not.toMatch(/seccomp_string/)
    expect(cfg).toMatch(/^keep_caps: true$/m)
    expect(cfg).not.toMatch(/dst: "\/tmp"/)
    const kept = (text: string) => text.split('\n').filter((l) => !/seccomp_string|keep_caps|dst: "\/tmp"/.test(l))
    expect(kept(cfg)).toEqual(kept(base))
    expect(() => preparedJailConfig(base.replace('keep_caps: false', ''))).toThrow(/keep_caps/)
  })

  it("nsjail's argv maps the jail to the slot's uid and runs the init in --serve mode, with no time limit", () => {
    const argv = preparedJailArgs(step.root, { uid: 2_000_000_001, configFile: '/x/prepared-jail.cfg', logFile: '/x/log', jailInit: '/run/arbiter/jailfs-4/init' })
    expect(argv.slice(-3)).toEqual(['--', '/.arbiter/init', '--serve'])
    expect(argv).toContain('65534:2000000001:1')
    expect(argv[argv.indexOf('--time_limit') + 1]).toBe('0')
    expect(argv[argv.indexOf('--pass_fd') + 1]).toBe('3')
    expect(() => preparedJailArgs(step.root, { uid: 0, configFile: '/x', logFile: '/x', jailInit: '/x' })).toThrow(/host uid 0/)
  })
})

describe("a run's request to a prepared jail", () => {
  it('carries the program, its environment, the box and the limits (stack and address space in whole MB)', () => {
    const f = preparedRunFields({ ...step, limits: { ...step.limits, addressSpaceKb: 1500, stackKb: 8000 } }, 1024)
    expect(field(f, 'jail')).toEqual([step.root])
    expect(field(f, 'arg')).toEqual(['/work/prog', 'a b'])
    expect(field(f, 'env')).toEqual(['PATH=/usr/bin:/bin', 'HOME=/tmp'])
    expect(field(f, 'box')).toEqual([step.workDir])
    expect(field(f, 'cpu_backstop_sec')).toEqual(['3'])
    expect(field(f, 'mem_bytes')).toEqual([String((65536 + 1024) * 1024)])
    expect(field(f, 'as_kb')).toEqual(['2048'])
    expect(field(f, 'stack_kb')).toEqual(['8192'])
    expect(field(preparedRunFields(step), 'stack_kb')).toEqual([String(DEFAULT_STACK_KB)])
    expect(field(preparedRunFields(step), 'as_kb')).toEqual([])
  })

  it('is never built for a limit the jail would read as "none"', () => {
    for (const limits of [{ memoryKb: 0 }, { processes: 0 }, { openFiles: Number.NaN }, { cpuTimeSec: -1 }, { stackKb: 0 }])
      expect(() => preparedRunFields({ ...step, limits: { ...step.limits, ...limits } }), JSON.stringify(limits)).toThrow(/refusing/)
  })
})
