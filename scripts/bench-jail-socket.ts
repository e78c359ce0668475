// Benchmark: what the privilege split costs per job. The same jobs (Python `print(input())`, and a C
// program compiled and run) go through the in-process pool (pool.ts) and through the root jail daemon
// over its unix socket (jail-pool.ts → jail-daemon.ts → the same pool), one at a time, in alternating
// rounds so both sides see the same machine load. Run as root on a provisioned machine.
// Usage: npx tsx scripts/bench-jail-socket.ts [--rounds 20] [--json]
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { createJailPool } from '../src/jobs/jail-pool.ts'
import { createPool } from '../src/jobs/pool.ts'
import type { Pool } from '../src/jobs/pool-types.ts'
import type { Job } from '../src/jobs/types.ts'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' }, json: { type: 'boolean', default: false } } })
const ROUNDS = Number(values.rounds)
const ROOT = join(import.meta.dirname, '..')

const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-bench-jail-'))
const socket = join(dataDir, 'run', 'jail.sock')
writeFileSync(join(dataDir, 'config.toml'), `[pool]\nsize = 1\njail_socket = "${socket}"\njail_group = "0"\n`, { mode: 0o644 })
const config = loadConfig({ ...process.env, ARBITER_DATA: dataDir })

const daemon = spawn(process.execPath, ['--import', 'tsx', 'src/jail-daemon.ts'], { cwd: ROOT, env: { ...process.env, ARBITER_DATA: dataDir }, stdio: 'inherit' })
for (let i = 0; i < 600 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50))
if (!existsSync(socket)) throw new Error('the jail daemon did not start')

const jobs: Record<string, Job> = {
  python: { language: 'PYTHON3', source: 'print(input())', input: 'hi', timeLimitSec: 2, memoryLimitKb: 262144 },
  c: { language: 'C', source: '#include <stdio.h>\nint main(){puts("hi");return 0;}', input: '', timeLimitSec: 2, memoryLimitKb: 262144 },
}
const local = createPool(config)
const jailed = createJailPool(config)

async function timed(pool: Pool, job: Job): Promise<number> {
  const t = performance.now()
  const r = await pool.run(job)
  if (r.run?.status !== 'ok') throw new Error(`job failed: ${JSON.stringify(r).slice(0, 300)}`)
  return performance.now() - t
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const results: Record<string, { in_process_ms: number; via_daemon_ms: number; overhead_ms: number }> = {}
for (const [name, job] of Object.entries(jobs)) {
  // warm both sides (worker start, supervisor, page cache)
  await timed(local, job)
  await timed(jailed, job)
  const a: number[] = []
  const b: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await timed(local, job))
    b.push(await timed(jailed, job))
  }
  const [ma, mb] = [median(a), median(b)]
  results[name] = { in_process_ms: +ma.toFixed(1), via_daemon_ms: +mb.toFixed(1), overhead_ms: +(mb - ma).toFixed(1) }
}

await local.close()
daemon.kill('SIGTERM')
await new Promise((r) => daemon.once('exit', r))
rmSync(dataDir, { recursive: true, force: true })
if (values.json) console.log(JSON.stringify({ rounds: ROUNDS, results }, null, 2))
else for (const [name, r] of Object.entries(results)) console.log(`${name.padEnd(7)} in-process ${r.in_process_ms} ms  via daemon ${r.via_daemon_ms} ms  (+${r.overhead_ms} ms, medians of ${ROUNDS})`)
