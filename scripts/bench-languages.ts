// Benchmark: per language, the median compile and run time of its hello world (the manifest's
// self-test, echoing a line) in the jail, next to the same toolchain run bare in the same root
// (chroot, as root, no namespaces or limits: the supervisor's bare mode).
// Usage: npx tsx scripts/bench-languages.ts [--runs 5] [--lang GO,C] [--json]
import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { workerSettings } from '../src/jobs/pool.ts'
import { rootImagePath } from '../src/sandbox/root-image.ts'
import { BASE_ENV, expandArgv, isProvisioned, loadLanguages, rootPath, type Language } from '../src/languages.ts'
import { detectCgroups } from '../src/sandbox/cgroups.ts'
import { openSandbox, resolveInRoot } from '../src/sandbox/run.ts'
import { Supervisor } from '../src/sandbox/supervisor.ts'
import type { Limits } from '../src/sandbox/types.ts'

// The bare runs bind-mount into the toolchain roots: do it in a private mount namespace, so that
// jails running elsewhere on this machine never see (or lose) those mounts.
if (!process.env.ARBITER_BENCH_PRIVATE_NS) {
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ARBITER_BENCH_PRIVATE_NS: '1' },
  })
  process.exit(r.status ?? 1)
}

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, lang: { type: 'string' }, json: { type: 'boolean', default: false } },
})
const RUNS = Number(values.runs)
const config = loadConfig()
const settings = workerSettings(config)
const langs = [...loadLanguages().values()].filter(
  (l) => isProvisioned(config.paths.toolchains, l) && (!values.lang || values.lang.split(',').includes(l.code))
)
const INPUT = 'hello from the benchmark\n'
const memory = { memory_kb: 262144, memory_mb: 256 }

const sandbox = openSandbox(settings.sandbox, `bench-lang-${process.pid}`)
const bare = Supervisor.start(config.paths.supervisor, `bench-lang-bare-${process.pid}`)
const box = join(sandbox.slotDir, 'box')
const io = join(sandbox.slotDir, 'bare-io')
mkdirSync(io, { recursive: true, mode: 0o700 })
writeFileSync(join(io, 'stdin'), INPUT)

async function freshBox(lang: Language) {
  rmSync(box, { recursive: true, force: true })
  mkdirSync(box, { mode: 0o755 })
  // the slot's own host uid: the jail's user owns its work directory
  const uid = await sandbox.jailUid()
  chownSync(box, uid, uid)
  writeFileSync(join(box, lang.sourceFile), lang.selftest, { mode: 0o644 })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** One jailed compile + run of the self-test: wall ms of each (compile null when none). */
async function jailedOnce(lang: Language) {
  const root = await sandbox.root(lang.root, rootImagePath(config.paths.toolchains, lang.root))
  const env = { ...BASE_ENV, ...lang.env }
  const compileLimits: Limits = {
    cpuTimeSec: lang.compileLimits.timeSec ?? settings.limits.compileTimeSec, wallTimeSec: (lang.compileLimits.timeSec ?? settings.limits.compileTimeSec) * 2 + 2,
    memoryKb: lang.compileLimits.memoryKb ?? settings.limits.compileMemoryKb,
    processes: lang.compileLimits.processes ?? settings.limits.compileProcesses, openFiles: 256, fileSizeBytes: settings.limits.compileFileSizeBytes,
  }
  const runLimits: Limits = {
    cpuTimeSec: 5, wallTimeSec: 12, memoryKb: 262144, processes: lang.runProcesses ?? 64,
    openFiles: lang.runOpenFiles ?? 64, fileSizeBytes: 1 << 20,
  }
  await freshBox(lang)
  let compile: number | null = null
  if (lang.compile) {
    const c = await sandbox.runStep({ root, argv: expandArgv(lang.compile, memory), env, workDir: box, limits: compileLimits })
    if (c.status !== 'ok') throw new Error(`${lang.code}: jailed compile ${c.status}: ${c.stderr || c.message}`)
    compile = c.wallSec * 1000
  }
  const r = await sandbox.runStep(
    { root, argv: expandArgv(lang.run, memory), env, workDir: box, stdin: INPUT, limits: runLimits },
    { memoryHeadroomKb: lang.runMemoryHeadroomKb }
  )
  // Plain Text prints its source, not its input
  if (r.status !== 'ok' || r.stdout !== (lang.sourceIsOutput ? lang.selftest : INPUT)) throw new Error(`${lang.code}: jailed run ${r.status}: ${r.stderr}`)
  return { compile, run: r.wallSec * 1000 }
}

async function bareStep(root: string, lang: Language, argv: string[], stdin: string) {
  // env -i: the same clean environment the jail gets (one extra exec of a tiny program)
  const env = Object.entries({ ...BASE_ENV, ...lang.env }).map(([k, v]) => `${k}=${v}`)
  const program = resolveInRoot(root, argv[0], BASE_ENV.PATH)
  const r = await bare.run({
    exec: '/usr/bin/env', argv: ['env', '-i', ...env, program, ...argv.slice(1)],
    stdin, stdout: join(io, 'stdout'), stderr: join(io, 'stderr'), status: '',
    cpuMs: 120_000, wallMs: 240_000, fsizeBytes: 1 << 30, chroot: root,
  })
  if (r.exit !== 0) throw new Error(`${lang.code}: bare ${argv[0]} exited ${r.exit}: ${readFileSync(join(io, 'stderr'), 'utf8').slice(0, 500)}`)
  return r.wallUs / 1000
}

/** The same compile + run bare (chroot into the same root, no jail). */
async function bareOnce(lang: Language) {
  const root = rootPath(config.paths.toolchains, lang.root)
  const target = join(root, 'work')
  await freshBox(lang)
  // what the jail would provide, so the bare toolchain finds the same world: /work, /proc, /tmp
  execFileSync('mount', ['--bind', box, target])
  execFileSync('mount', ['-t', 'proc', 'proc', join(root, 'proc')])
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', join(root, 'tmp')])
  try {
    const compile = lang.compile ? await bareStep(root, lang, expandArgv(lang.compile, memory), '/dev/null') : null
    return { compile, run: await bareStep(root, lang, expandArgv(lang.run, memory), join(io, 'stdin')) }
  } finally {
    for (const m of [target, join(root, 'proc'), join(root, 'tmp')]) execFileSync('umount', [m])
  }
}

type Times = { compile: number | null; run: number }

/**
 * Bare and jailed runs interleaved, in alternating order: this VM's speed drifts by tens of percent
 * over minutes, and measuring all of one kind first would charge that drift to the jail (or to bare).
 */
async function measure(lang: Language) {
  const b: Times[] = []
  const j: Times[] = []
  for (let i = 0; i < RUNS; i++) {
    if (i % 2) {
      j.push(await jailedOnce(lang))
      b.push(await bareOnce(lang))
    } else {
      b.push(await bareOnce(lang))
      j.push(await jailedOnce(lang))
    }
  }
  const med = (xs: Times[]) => ({ compile: lang.compile ? median(xs.map((x) => x.compile!)) : null, run: median(xs.map((x) => x.run)) })
  return { bare: med(b), jailed: med(j) }
}

const rows = []
for (const lang of langs) {
  const { bare: b, jailed: j } = await measure(lang)
  rows.push({ code: lang.code, compileBareMs: b.compile, compileJailedMs: j.compile, runBareMs: b.run, runJailedMs: j.run })
  if (!values.json) process.stderr.write(`${lang.code} done\n`)
}
await sandbox.close()
await bare.stop()
rmSync(box, { recursive: true, force: true })

const f = (n: number | null) => (n === null ? '-' : n.toFixed(0))
const ratio = (a: number | null, b: number | null) => (a === null || b === null ? '-' : `${(a / b).toFixed(2)}x`)
if (values.json) {
  console.log(JSON.stringify({ runs: RUNS, cgroup: detectCgroups().version, rows }, null, 2))
} else {
  console.log(`bench-languages: median of ${RUNS} runs, wall ms; cgroup ${detectCgroups().version}`)
  console.log('| code | compile bare | compile jailed | jailed/bare | run bare | run jailed | jailed/bare |')
  console.log('|---|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.code} | ${f(r.compileBareMs)} | ${f(r.compileJailedMs)} | ${ratio(r.compileJailedMs, r.compileBareMs)} | ${f(r.runBareMs)} | ${f(r.runJailedMs)} | ${ratio(r.runJailedMs, r.runBareMs)} |`
    )
  }
}
