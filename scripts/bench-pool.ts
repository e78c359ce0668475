// Benchmark: what the pool's thread hand-off adds to a job. The same jobs (hello world, a fresh source
// each, so no compile is cached) alternately run by a job runner on this thread (what a pool thread
// runs, without the hand-off) and through the pool (createPool: the job posted to a worker thread,
// its result posted back), one at a time; p50 of each and their difference. No HTTP, no queue: the
// API path's other costs are bench-apis's breakdown (docs/sandbox/performance.md).
// Usage: npx tsx scripts/bench-pool.ts [--jobs 60] [--lang PYTHON3] [--size 1]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { createPool, workerSettings } from '../src/jobs/pool.ts'
import type { Job } from '../src/jobs/types.ts'
import { createJobRunner } from '../src/jobs/worker.ts'

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '60' }, lang: { type: 'string', default: 'PYTHON3' }, size: { type: 'string', default: '1' } } })
const N = Number(values.jobs)
const lang = values.lang!
const SOURCES: Record<string, (i: number) => string> = {
  PYTHON3: (i) => `print("hello") # ${i}-${process.pid}\n`,
  C: (i) => `#include <stdio.h>\nint main(void){puts("hello");return 0;} // ${i}-${process.pid}\n`,
}
if (!SOURCES[lang] || !(N > 0)) throw new Error(`usage: --jobs N (> 0) --lang ${Object.keys(SOURCES).join('|')}`)
// a data folder of its own: its own slots and supervisors, never another instance's
const data = mkdtempSync(join(tmpdir(), 'bench-pool-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: data })
config.pool.size = Number(values.size)
const runner = createJobRunner(workerSettings(config), `bench-pool-${process.pid}`)
const pool = createPool(config)
const job = (i: number): Job => ({ language: lang, source: SOURCES[lang](i), input: '', timeLimitSec: 2, memoryLimitKb: 262144 })
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
try {
  // warm-up: each side's prepared jail and the language's first start
  for (let i = 0; i < 5; i++) {
    await runner.run(job(-2 * i - 1))
    await pool.run(job(-2 * i - 2))
  }
  const direct: number[] = []
  const pooled: number[] = []
  for (let i = 0; i < N; i++) {
    // alternate which side goes first, so a slow moment of the machine falls on both alike
    const sides = i % 2 ? ([[pooled, pool], [direct, runner]] as const) : ([[direct, runner], [pooled, pool]] as const)
    for (const [times, side] of sides) {
      const started = performance.now()
      const r = await side.run(job(2 * N + 2 * i + (times === pooled ? 1 : 0)))
      times.push(performance.now() - started)
      if (r.run?.stdout !== 'hello\n') throw new Error(`unexpected result: ${JSON.stringify(r).slice(0, 300)}`)
    }
  }
  const [d, p] = [p50(direct), p50(pooled)]
  console.log(JSON.stringify({ lang, jobs: N, poolSize: config.pool.size, directP50Ms: +d.toFixed(2), pooledP50Ms: +p.toFixed(2), handOffMs: +(p - d).toFixed(2), ratio: +(p / d).toFixed(3) }))
} finally {
  await runner.close()
  await pool.close()
  rmSync(data, { recursive: true, force: true })
}
