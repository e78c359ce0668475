// Start time (spawn → /health answers) and resident memory of the server run from the sources through
// tsx (`npm start`) and from the build (`node dist/main.js`, after `npm run build`), alternating.
// Usage: npx tsx scripts/bench-start.ts [--rounds N]   (builds dist/ first)
import { execa } from 'execa'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startServer } from '../src/testing/harness.ts'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } })
const rounds = Number(values.rounds)
await execa('npm', ['run', '-s', 'build'], { cwd: join(import.meta.dirname, '..') })

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
/** RSS of the process and its children (tsx's esbuild service runs beside node). */
const treeRssKb = (pid: number): number => {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  return rssKb(pid) + children.reduce((sum, c) => sum + treeRssKb(c), 0)
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const results: Record<string, { startMs: number[]; rssMb: number[] }> = { tsx: { startMs: [], rssMb: [] }, dist: { startMs: [], rssMb: [] } }
for (let i = 0; i < rounds; i++) {
  for (const way of i % 2 ? (['dist', 'tsx'] as const) : (['tsx', 'dist'] as const)) {
    const t0 = performance.now()
    const server = await startServer({ fromBuild: way === 'dist' })
    results[way].startMs.push(performance.now() - t0)
    await new Promise((r) => setTimeout(r, 1000)) // the pool's worker threads settle
    results[way].rssMb.push(treeRssKb(server.pid) / 1024)
    await server.stop()
    server.cleanup()
  }
}
console.log(`| run from | start to /health (median of ${rounds}) | RSS after start (median) |`)
console.log('|---|---|---|')
for (const [way, r] of Object.entries(results)) {
  console.log(`| ${way === 'tsx' ? 'sources through tsx (`npm start`)' : 'build (`node dist/main.js`)'} | ${median(r.startMs).toFixed(0)} ms | ${median(r.rssMb).toFixed(0)} MB |`)
}
