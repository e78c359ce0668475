// Benchmark: what Jobe's python3 syntax check costs in the jail when it runs in the program's own
// process (src/jobe/languages.ts, PY_CHECK_AND_RUN_PYC). The same python3 hello (a fresh source each,
// so no cache helps) run alternately as the Jobe face runs it (one step: the check-and-run driver, then
// the program) and as a plain `python3 -BE prog.py` (the run without any check, what v3 and the other
// faces run), by one job runner on this thread (no HTTP, no pool, no queue). Each run's CPU time as the
// supervisor measures it (its cgroup's) and its wall time; p50 and mean of each side and their
// differences. What the check costs the machine a Jobe request, beyond the run every face pays.
// --also NAME=ARGV_JSON: a third side, an argv of your own (its source file is prog.py), e.g. an older
// form of the driver to set against this one.
// Usage: npx tsx scripts/bench-jobe-python.ts [--runs 200] [--also 'name=["python3","-BE","prog.py"]'] [--json]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { JOBE_OWN } from '../src/jobe/languages.ts'
import { workerSettings } from '../src/jobs/pool.ts'
import type { Job } from '../src/jobs/types.ts'
import { createJobRunner } from '../src/jobs/worker.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '200' }, also: { type: 'string', multiple: true }, json: { type: 'boolean', default: false } } })
const N = Number(values.runs)
if (!(N > 0)) throw new Error('usage: --runs N (> 0)')
const python3 = JOBE_OWN.find((l) => l.name === 'python3')!
const args = { compileargs: [], linkargs: [], interpreterargs: python3.defaults.interpreterargs, runargs: [] }
const marker = 'bench0123456789abcdefbench'
const sides: { name: string; argv: string[] }[] = [
  { name: 'jobe', argv: python3.checkAndRun!('prog.py', args, marker)! },
  { name: 'plain', argv: python3.run('prog.py', args) },
  ...(values.also ?? []).map((a) => {
    const at = a.indexOf('=')
    const argv = JSON.parse(a.slice(at + 1)) as unknown
    if (at < 1 || !Array.isArray(argv) || !argv.every((x) => typeof x === 'string')) throw new Error(`--also NAME=["argv", ...]: ${a}`)
    return { name: a.slice(0, at), argv: argv as string[] }
  }),
]
// a data folder of its own: its own slots and supervisors, never another instance's
const data = mkdtempSync(join(tmpdir(), 'bench-jobe-python-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: data })
const settings = workerSettings(config)
settings.compileCache = undefined
const runner = createJobRunner(settings, `bench-jobe-python-${process.pid}`)
const job = (argv: string[], i: number): Job => ({
  language: 'PYTHON3',
  source: `print("hello") # ${i}-${process.pid}\n`,
  input: '',
  timeLimitSec: 2,
  memoryLimitKb: 262144,
  sourceFileName: 'prog.py',
  compileArgv: [],
  runArgv: argv,
  ...(argv.includes(marker) ? { compileCheckMarker: marker } : {}),
})
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const ms = (x: number) => +x.toFixed(3)
try {
  const cpu = new Map(sides.map((s) => [s.name, [] as number[]]))
  const wall = new Map(sides.map((s) => [s.name, [] as number[]]))
  for (let i = -10; i < N; i++) {
    // the order turns each round, so a slow moment of the machine falls on every side alike
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(k + Math.max(0, i)) % sides.length]!
      const r = await runner.run(job(side.argv, i * sides.length + k))
      if (r.run?.stdout !== 'hello\n' || r.run.stderr !== '') throw new Error(`${side.name}: unexpected result: ${JSON.stringify(r).slice(0, 400)}`)
      if (i < 0) continue
      cpu.get(side.name)!.push(r.run.cpuSec * 1000)
      wall.get(side.name)!.push(r.run.wallSec * 1000)
    }
  }
  const plainCpu = cpu.get('plain')!
  const plainWall = wall.get('plain')!
  const rows = sides.map(({ name }) => {
    const c = cpu.get(name)!
    const w = wall.get(name)!
    return {
      side: name,
      runs: c.length,
      cpu_p50_ms: ms(p50(c)),
      cpu_mean_ms: ms(mean(c)),
      wall_p50_ms: ms(p50(w)),
      cpu_mean_over_plain_ms: ms(mean(c) - mean(plainCpu)),
      wall_p50_over_plain_ms: ms(p50(w) - p50(plainWall)),
    }
  })
  if (values.json) console.log(JSON.stringify({ runs: N, rows }))
  else console.table(rows)
} finally {
  await runner.close()
  rmSync(data, { recursive: true, force: true })
}
