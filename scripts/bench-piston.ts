// Benchmark of the Piston v2 API against HackerEarth v3 in one run: the real server (real pool, real
// jail) driven over loopback, the same programs (python3 hello, C hello, a 0.3 s CPU program) at
// concurrency 1 and 8. Each of the c workers alternates the two APIs request by request (half of them
// starting with each), so both meet the same load at the same moments: on a shared, busy machine that is
// the only fair comparison. The target: Piston's p50 at most 10% over v3's.
// Usage: npx tsx scripts/bench-piston.ts [--requests 60] [--json]
import { parseArgs } from 'node:util'
import { startServer } from '../src/testing/harness.ts'
import { BENCH_PROGRAMS, pistonOnce, v3Once, type BenchProgram, type Outcome } from './bench-piston-part.ts'

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '60' }, json: { type: 'boolean', default: false } },
})
const REQUESTS = Number(values.requests)
const CONCURRENCY = [1, 8]

type Api = 'v3' | 'piston'
const once: Record<Api, (url: string, secret: string, p: BenchProgram) => Promise<Outcome>> = { v3: v3Once, piston: pistonOnce }

/** n requests of each API with c workers in flight, each worker alternating the APIs: latencies (ms) and failures per API. */
async function interleaved(url: string, secret: string, p: BenchProgram, n: number, c: number) {
  const out: Record<Api, { times: number[]; errors: string[] }> = { v3: { times: [], errors: [] }, piston: { times: [], errors: [] } }
  let left = 2 * n
  const started = performance.now()
  await Promise.all(
    Array.from({ length: c }, async (_, w) => {
      for (let i = w; left > 0; i++) {
        left--
        const api: Api = i % 2 ? 'piston' : 'v3'
        const t = performance.now()
        const r = await once[api](url, secret, p)
        out[api].times.push(performance.now() - t)
        if (!r.ok) out[api].errors.push(r.why)
      }
    })
  )
  return { out, ms: performance.now() - started }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

const server = await startServer()
try {
  const secret = await server.createClient('bench-piston')
  const rows: Record<string, unknown>[] = []
  for (const [name, p] of Object.entries(BENCH_PROGRAMS)) {
    // warm both paths (first compile, cache, JIT) untimed
    await once.v3(server.url, secret, p)
    await once.piston(server.url, secret, p)
    for (const c of CONCURRENCY) {
      const { out: acc, ms } = await interleaved(server.url, secret, p, REQUESTS, c)
      const stat = (api: Api) => {
        const s = [...acc[api].times].sort((a, b) => a - b)
        return { p50: quantile(s, 0.5), p99: quantile(s, 0.99), perSec: (s.length / ms) * 1000, failed: acc[api].errors.length }
      }
      const v3 = stat('v3')
      const piston = stat('piston')
      rows.push({ program: name, c, v3, piston, ratio: piston.p50 / v3.p50 })
      for (const api of ['v3', 'piston'] as Api[]) if (acc[api].errors.length) console.error(`${api} ${name} c=${c} failures:`, [...new Set(acc[api].errors)].slice(0, 3))
    }
  }
  if (values.json) console.log(JSON.stringify(rows, null, 2))
  else {
    const f = (n: number) => n.toFixed(1).padStart(7)
    type Stat = { p50: number; p99: number; perSec: number; failed: number }
    console.log(`program         c |   v3 p50     p99      /s fail |  piston p50     p99      /s fail | piston/v3 p50`)
    for (const r of rows as { program: string; c: number; v3: Stat; piston: Stat; ratio: number }[]) {
      const cols = (s: Stat) => `${f(s.p50)} ${f(s.p99)} ${f(s.perSec)} ${String(s.failed).padStart(4)}`
      console.log(`${r.program.padEnd(15)} ${r.c} | ${cols(r.v3)} | ${cols(r.piston)} | ${r.ratio.toFixed(3)}`)
    }
    console.log(`(latencies in ms; /s is each API's completions per second while both ran; ${REQUESTS} requests of each per row)`)
  }
} finally {
  await server.stop()
  server.cleanup()
}
