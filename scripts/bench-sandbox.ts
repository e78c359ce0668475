// Benchmark: the cost of one jailed run (C hello reading stdin; `python3 -c pass`) against the same
// programs run bare by the same supervisor (fork + exec, no nsjail), 2 slots in parallel. Three ways,
// alternately run by run (each lane runs one of each in turn, so machine load hits all alike): bare,
// jailed in a prepared jail (the default, docs/sandbox/prepared-jails.md), and jailed by one nsjail
// start per run (pool.prepared_jails = false, as every run was before prepared jails).
// With --baseline REV it also builds REV's supervisor, jail init and jail.cfg (sandbox/ at that git
// revision, e.g. the commit before a hardening step) and measures that policy too, in the same rotation
// (a prepared jail and one nsjail per run, for a revision that has prepared jails).
// Usage: npx tsx scripts/bench-sandbox.ts [--runs 1000] [--baseline REV] [--json]
import { execFileSync } from 'node:child_process'
import { chownSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { detectCgroups } from '../src/sandbox/cgroups.ts'
import { rootImagePath } from '../src/sandbox/root-image.ts'
import { openSandbox, type Sandbox, type SandboxPaths } from '../src/sandbox/run.ts'
import { Supervisor, type SupervisorReply } from '../src/sandbox/supervisor.ts'
import type { Limits } from '../src/sandbox/types.ts'

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '1000' }, json: { type: 'boolean', default: false }, baseline: { type: 'string' } },
})
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

function stats({ times, seconds }: { times: number[]; seconds: number }): Stats {
  times.sort((a, b) => a - b)
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99), max: times.at(-1)!, perSec: times.length / seconds }
}

/**
 * Setups measured run by run: each lane runs one of each setup in turn, so that any change in machine
 * load hits all alike (rounds of hundreds of runs were not enough on a machine shared with other jobs).
 * A setup's runs/s is its lanes' count over the time its own runs took (as if it ran alone).
 */
async function rotate(setups: (() => Promise<unknown>)[][]): Promise<Stats[]> {
  const accs = setups.map(() => ({ times: [] as number[], seconds: 0 }))
  const lanes = setups[0].length
  const perLane = Math.ceil(RUNS / lanes)
  await Promise.all(
    setups[0].map(async (_, lane) => {
      for (let i = 0; i < perLane; i++) {
        for (const [k, setup] of setups.entries()) {
          const t = performance.now()
          await setup[lane]()
          const ms = performance.now() - t
          accs[k].times.push(ms)
          accs[k].seconds += ms / 1000 / lanes
        }
      }
    })
  )
  return accs.map(stats)
}

/** The lanes of jailed runs of one program, after a checked warm-up run per slot. */
async function jailedLanes(sandboxes: Sandbox[], argv: string[], stdin: string, rootOf: (sb: Sandbox) => Promise<string>) {
  const boxes = await Promise.all(
    sandboxes.map(async (sb) => {
      const box = join(sb.slotDir, 'box')
      rmSync(box, { recursive: true, force: true })
      mkdirSync(box, { mode: 0o755 })
      copyFileSync(join(scratch, 'hello'), join(box, 'hello'))
      // the slot's own host uid (65534 for a supervisor from before per-slot uids)
      const uid = await sb.jailUid()
      chownSync(box, uid, uid)
      chownSync(join(box, 'hello'), uid, uid)
      return box
    })
  )
  const env = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: '/tmp' }
  const root = await rootOf(sandboxes[0])
  // one warm-up run per slot, checked: a benchmark of failing runs would measure nothing
  for (const [i, sb] of sandboxes.entries()) {
    const r = await sb.runStep({ root, argv, env, workDir: boxes[i], stdin, limits })
    if (r.status !== 'ok') throw new Error(`jailed ${argv.join(' ')}: ${r.status} ${r.message ?? r.stderr}`)
  }
  return sandboxes.map((sb, i) => () => sb.runStep({ root, argv, env, workDir: boxes[i], stdin, limits }))
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
  return sups.map((s, i) => once(s, i))
}

/**
 * REV's supervisor, jail init and jail.cfg (sandbox/ at REV), built into the scratch directory as
 * scripts/install-nsjail.sh builds them. A revision with prepared jails is measured both ways (a
 * prepared jail, and one nsjail per run); an older one as it ran then (no box requests, nsjail per run).
 */
function buildBaseline(rev: string): SandboxPaths {
  const dir = join(scratch, 'baseline')
  mkdirSync(dir, { recursive: true })
  const repo = join(import.meta.dirname, '..')
  const files = execFileSync('git', ['ls-tree', '--name-only', `${rev}:sandbox`], { cwd: repo, encoding: 'utf8' }).split('\n').filter((f) => /\.(c|h|cfg)$/.test(f))
  for (const f of files) {
    const text = execFileSync('git', ['show', `${rev}:sandbox/${f}`], { cwd: repo, encoding: 'utf8' })
    // the uid mapping is on the command line now (nsjail-args.ts): an older policy's own would be a second one
    writeFileSync(join(dir, f), f === 'jail.cfg' ? text.replace(/^(uidmap|gidmap) \{.*\}$/gm, '') : text)
  }
  const prepared = files.includes('prepared-jails.c')
  const kafel = join(config.paths.nsjail, '..', '..', 'lib', 'kafel')
  const cc = (out: string, srcs: string[], ...flags: string[]) =>
    execFileSync('gcc', ['-O2', '-Wno-format-truncation', '-o', join(dir, out), ...srcs.map((f) => join(dir, f)), ...flags])
  if (prepared) {
    // wire.c (interactive problems' pipes) is part of the supervisor since it came
    cc('arbiter-supervisor', ['supervisor.c', 'prepared-jails.c', ...(files.includes('wire.c') ? ['wire.c'] : [])], `-I${kafel}`, join(kafel, 'libkafel.a'))
    cc('arbiter-jail-init', ['jail-init.c', 'jail-prepared.c'], '-static', '-s')
  } else {
    cc('arbiter-supervisor', ['supervisor.c'])
    cc('arbiter-jail-init', ['jail-init.c'], '-static', '-s')
  }
  const init = join(dir, 'arbiter-jail-init')
  return { nsjail: config.paths.nsjail, supervisor: join(dir, 'arbiter-supervisor'), jailInit: init, initBindSource: init, runs: config.paths.runs, jailConfig: join(dir, 'jail.cfg'), ...(!prepared && { boxRequests: false, prepared: false }) }
}

// with a baseline, each side's jails bind their own init: the supervisors' shared copy (JAIL_FS_INIT)
// is whichever supervisor started last's
const paths: SandboxPaths = { nsjail: config.paths.nsjail, supervisor: config.paths.supervisor, jailInit: config.paths.jail_init, runs: config.paths.runs, ...(values.baseline && { initBindSource: config.paths.jail_init }) }
/** Each prepared run's share of time (ms): before the program (setup), the program, after it, and Node's part. */
const lastReply: (SupervisorReply | undefined)[] = []
let breakdown: { setup: number; program: number; finish: number; node: number }[] = []
const sandboxes = Array.from({ length: PARALLEL }, (_, i) => openSandbox({ ...paths, observe: (r) => (lastReply[i] = r) }, `bench-jail-${process.pid}-${i}`))
/** The prepared lanes, each run's reply split into where its time went. */
const withBreakdown = (lanes: (() => Promise<unknown>)[]) =>
  lanes.map((once, i) => async () => {
    const t = performance.now()
    await once()
    const total = performance.now() - t
    const r = lastReply[i]
    if (r?.setupUs === undefined || r.finishUs === undefined) return
    const [setup, program, finish] = [r.setupUs / 1000, r.wallUs / 1000, r.finishUs / 1000]
    breakdown.push({ setup, program, finish, node: total - setup - program - finish })
  })
const nsjailSandboxes = Array.from({ length: PARALLEL }, (_, i) => openSandbox({ ...paths, prepared: false }, `bench-nsjail-${process.pid}-${i}`))
const basePaths = values.baseline ? buildBaseline(values.baseline) : null
const baseSandboxes = basePaths ? Array.from({ length: PARALLEL }, (_, i) => openSandbox(basePaths, `bench-base-${process.pid}-${i}`)) : []
// a baseline with prepared jails: its one-nsjail-per-run side too
const baseNsjailSandboxes = basePaths && basePaths.prepared !== false ? Array.from({ length: PARALLEL }, (_, i) => openSandbox({ ...basePaths, prepared: false }, `bench-base-nsjail-${process.pid}-${i}`)) : []
const sups = Array.from({ length: PARALLEL }, (_, i) => Supervisor.start(config.paths.supervisor, `bench-bare-${process.pid}-${i}`))

// jailed runs use the root's mounted image, as jobs do; the baseline (a revision before the root
// image) and bare runs use its folder, as jobs did then
const imageRoot = (sb: Sandbox) => sb.root('trixie', rootImagePath(config.paths.toolchains, 'trixie'))
const folderRoot = async () => root

async function row(program: string, bareLanes: (() => Promise<unknown>)[], argv: string[], stdin: string) {
  const setups = [bareLanes, withBreakdown(await jailedLanes(sandboxes, argv, stdin, imageRoot)), await jailedLanes(nsjailSandboxes, argv, stdin, imageRoot)]
  if (basePaths) setups.push(await jailedLanes(baseSandboxes, argv, stdin, basePaths.prepared === false ? folderRoot : imageRoot))
  if (baseNsjailSandboxes.length) setups.push(await jailedLanes(baseNsjailSandboxes, argv, stdin, imageRoot))
  breakdown = []
  const [bareStats, jailed, nsjail, baseline, baselineNsjail] = await rotate(setups)
  // throughput and tails with each setup alone (in the rotation a slow run on one lane inflates the
  // other lane's times: there both cores serve a mix)
  const alone = []
  for (const lanes of setups) alone.push((await rotate([lanes]))[0])
  const q = (k: keyof (typeof breakdown)[number], at: number) => quantile(breakdown.map((b) => b[k]).sort((a, b) => a - b), at)
  const parts = { setup: q('setup', 0.5), program: q('program', 0.5), finish: q('finish', 0.5), node: q('node', 0.5) }
  const tails = { setup: q('setup', 0.99), program: q('program', 0.99), finish: q('finish', 0.99), node: q('node', 0.99) }
  return {
    program, bare: bareStats, jailed, nsjail, parts, tails,
    alone: { bare: alone[0], jailed: alone[1], nsjail: alone[2], ...(baseline && { baseline: alone[3] }), ...(baselineNsjail && { baselineNsjail: alone[4] }) },
    ...(baseline && { baseline }), ...(baselineNsjail && { baselineNsjail }),
  }
}

const rows = [
  await row('C hello (reads stdin)', await bare(sups, join(scratch, 'hello'), ['hello']), ['/work/hello'], 'hello\n'),
  await row('python3 -c pass', await bare(sups, '/usr/bin/python3', ['python3', '-c', 'pass'], root), ['/usr/bin/python3', '-c', 'pass'], ''),
]
await Promise.all([...sandboxes, ...nsjailSandboxes, ...baseSandboxes, ...baseNsjailSandboxes].map((s) => s.close()).concat(sups.map((s) => s.stop())))
rmSync(scratch, { recursive: true, force: true })

/** The baseline's rows (REV's prepared jail, or its only way; then REV's nsjail per run). */
const baselineLines = (r: { baseline?: Stats; baselineNsjail?: Stats }): [string, Stats][] => [
  ...(r.baseline ? [[`${basePaths?.prepared === false ? '' : 'prep. '}${values.baseline}`.slice(0, 18), r.baseline] as [string, Stats]] : []),
  ...(r.baselineNsjail ? [[`nsjail ${values.baseline}`.slice(0, 18), r.baselineNsjail] as [string, Stats]] : []),
]
const cg = detectCgroups()
const ms = (n: number) => n.toFixed(2)
if (values.json) {
  console.log(JSON.stringify({ runs: RUNS, parallel: PARALLEL, cgroup: cg.version, baseline: values.baseline ?? null, rows }, null, 2))
} else {
  console.log(`bench-sandbox: ${RUNS} runs per program and setup, ${PARALLEL} in parallel, alternating run by run, cgroup ${cg.version} (${cg.detail})`)
  console.log('program                 | setup              | median / p99 / max ms     | /bare median | p99/median | runs/s')
  console.log('------------------------|--------------------|---------------------------|--------------|------------|-------')
  for (const r of rows) {
    const lines: [string, Stats][] = [['bare', r.bare], ['prepared jail', r.jailed], ['nsjail per run', r.nsjail], ...baselineLines(r)]
    for (const [name, st] of lines) {
      console.log(
        `${r.program.padEnd(23)} | ${name.padEnd(18)} | ${`${ms(st.median)} / ${ms(st.p99)} / ${ms(st.max)}`.padEnd(25)} | ${`${(st.median / r.bare.median).toFixed(2)}x`.padEnd(12)} | ${`${(st.p99 / st.median).toFixed(2)}x`.padEnd(10)} | ${st.perSec.toFixed(0)}`
      )
    }
  }
  console.log(`\neach setup alone, ${RUNS} runs, ${PARALLEL} in parallel (throughput and tails)`)
  console.log('program                 | setup              | median / p99 ms   | p99/median | runs/s | runs/s / bare')
  console.log('------------------------|--------------------|-------------------|------------|--------|--------------')
  for (const r of rows) {
    for (const [name, st] of [['bare', r.alone.bare], ['prepared jail', r.alone.jailed], ['nsjail per run', r.alone.nsjail], ...baselineLines(r.alone)] as [string, Stats][]) {
      console.log(
        `${r.program.padEnd(23)} | ${name.padEnd(18)} | ${`${ms(st.median)} / ${ms(st.p99)}`.padEnd(17)} | ${`${(st.p99 / st.median).toFixed(2)}x`.padEnd(10)} | ${st.perSec.toFixed(0).padEnd(6)} | ${(st.perSec / r.alone.bare.perSec).toFixed(2)}`
      )
    }
  }
  console.log('\nwhere a prepared jail\'s run goes (medians, ms): setup = the request to the program\'s start (run groups, files,')
  console.log('the clone, the run\'s mounts, the handshake); program = its start to its end (set-up inside the run, fork, exec,')
  console.log('the program, its namespaces\' teardown); finish = figures and groups after it; Node = writing stdin, reading back')
  for (const r of rows) {
    console.log(`${r.program.padEnd(23)} | setup ${ms(r.parts.setup)} | program ${ms(r.parts.program)} | finish ${ms(r.parts.finish)} | Node ${ms(r.parts.node)}`)
    console.log(`${'  (p99 of each)'.padEnd(23)} | setup ${ms(r.tails.setup)} | program ${ms(r.tails.program)} | finish ${ms(r.tails.finish)} | Node ${ms(r.tails.node)}`)
  }
}
