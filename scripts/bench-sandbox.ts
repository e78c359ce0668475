// Benchmark: the cost of one jailed run (C hello reading stdin; `python3 -c pass`) against the same
// programs run bare by the same supervisor (fork + exec, no nsjail), 2 slots in parallel.
// Usage: npx tsx scripts/bench-sandbox.ts [--runs 1000] [--json]
import { execFileSync } from 'node:child_process'
import { chownSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { detectCgroups } from '../src/sandbox/cgroups.ts'
import { openSandbox, type Sandbox } from '../src/sandbox/run.ts'
import { Supervisor } from '../src/sandbox/supervisor.ts'
import type { Limits } from '../src/sandbox/types.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1000' }, json: { type: 'boolean', default: false } } })
const RUNS = Number(values.runs)
const PARALLEL = 2
const config = loadConfig()
const root = join(config.paths.toolchains, 'trixie')
const limits: Limits = { cpuTimeSec: 5, wallTimeSec: 10, memoryKb: 262144, processes: 64, openFiles: 64, fileSizeBytes: 1 << 20 }

const HELLO = '#include <stdio.h>\nint main(void){char b[256];if(fgets(b,sizeof b,stdin))fputs(b,stdout);return 0;}\n'
const scratch = join(config.paths.runs, 'bench')
rmSync(scratch, { recursive: true, force: true })
mkdirSync(scratch, { recursive: true, mode: 0o711 })
writeFileSync(join(scratch, 'hello.c'), HELLO)
// one binary for both sides: built on the host, it runs on trixie's newer glibc as well
execFileSync('gcc', ['-O2', '-o', join(scratch, 'hello'), join(scratch, 'hello.c')])

interface Stats {
  median: number
  p99: number
  max: number
  perSec: number
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

async function measure(lanes: (() => Promise<unknown>)[]): Promise<Stats> {
  const times: number[] = []
  const perLane = Math.ceil(RUNS / lanes.length)
  const started = performance.now()
  await Promise.all(
    lanes.map(async (once) => {
      for (let i = 0; i < perLane; i++) {
        const t = performance.now()
        await once()
        times.push(performance.now() - t)
      }
    })
  )
  const total = (performance.now() - started) / 1000
  times.sort((a, b) => a - b)
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99), max: times.at(-1)!, perSec: times.length / total }
}

async function jailed(sandboxes: Sandbox[], argv: string[], stdin: string) {
  const boxes = sandboxes.map((sb) => {
    const box = join(sb.slotDir, 'box')
    rmSync(box, { recursive: true, force: true })
    mkdirSync(box, { mode: 0o755 })
    copyFileSync(join(scratch, 'hello'), join(box, 'hello'))
    chownSync(box, 65534, 65534)
    return box
  })
  const env = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: '/tmp' }
  // one warm-up run per slot, checked: a benchmark of failing runs would measure nothing
  for (const [i, sb] of sandboxes.entries()) {
    const r = await sb.runStep({ root, argv, env, workDir: boxes[i], stdin, limits })
    if (r.status !== 'ok') throw new Error(`jailed ${argv.join(' ')}: ${r.status} ${r.message ?? r.stderr}`)
  }
  return measure(sandboxes.map((sb, i) => () => sb.runStep({ root, argv, env, workDir: boxes[i], stdin, limits })))
}

async function bare(sups: Supervisor[], exec: string, argv: string[], chroot?: string) {
  const io = (i: number, name: string) => join(scratch, `bare-${i}-${name}`)
  sups.forEach((_, i) => writeFileSync(io(i, 'stdin'), 'hello\n'))
  const once = (sup: Supervisor, i: number) => async () => {
    const r = await sup.run({
      exec, argv, stdin: io(i, 'stdin'), stdout: io(i, 'stdout'), stderr: io(i, 'stderr'), status: '',
      cpuMs: 5000, wallMs: 10000, fsizeBytes: 1 << 20, chroot,
    })
    if (r.exit !== 0) throw new Error(`bare ${argv.join(' ')} exited ${r.exit}`)
  }
  await Promise.all(sups.map((s, i) => once(s, i)()))
  return measure(sups.map((s, i) => once(s, i)))
}

const paths = { nsjail: config.paths.nsjail, supervisor: config.paths.supervisor, jailInit: config.paths.jail_init, runs: config.paths.runs }
const sandboxes = Array.from({ length: PARALLEL }, (_, i) => openSandbox(paths, `bench-jail-${i}`))
const sups = Array.from({ length: PARALLEL }, (_, i) => Supervisor.start(config.paths.supervisor, `bench-bare-${i}`))

const rows = [
  { program: 'C hello (reads stdin)', bare: await bare(sups, join(scratch, 'hello'), ['hello']), jailed: await jailed(sandboxes, ['/work/hello'], 'hello\n') },
  {
    program: 'python3 -c pass',
    bare: await bare(sups, '/usr/bin/python3', ['python3', '-c', 'pass'], root),
    jailed: await jailed(sandboxes, ['/usr/bin/python3', '-c', 'pass'], ''),
  },
]
await Promise.all([...sandboxes.map((s) => s.close()), ...sups.map((s) => s.stop())])
rmSync(scratch, { recursive: true, force: true })

const cg = detectCgroups()
const ms = (n: number) => n.toFixed(2)
if (values.json) {
  console.log(JSON.stringify({ runs: RUNS, parallel: PARALLEL, cgroup: cg.version, rows }, null, 2))
} else {
  console.log(`bench-sandbox: ${RUNS} runs per program and mode, ${PARALLEL} in parallel, cgroup ${cg.version} (${cg.detail})`)
  console.log('program                 | bare median / p99 ms | jailed median / p99 / max ms | jailed/bare median | p99/median | runs/s bare -> jailed')
  console.log('------------------------|----------------------|------------------------------|--------------------|------------|----------------------')
  for (const r of rows) {
    console.log(
      `${r.program.padEnd(23)} | ${`${ms(r.bare.median)} / ${ms(r.bare.p99)}`.padEnd(20)} | ${`${ms(r.jailed.median)} / ${ms(r.jailed.p99)} / ${ms(r.jailed.max)}`.padEnd(28)} | ${`${(r.jailed.median / r.bare.median).toFixed(2)}x`.padEnd(18)} | ${`${(r.jailed.p99 / r.jailed.median).toFixed(2)}x`.padEnd(10)} | ${r.bare.perSec.toFixed(0)} -> ${r.jailed.perSec.toFixed(0)}`
    )
  }
}
