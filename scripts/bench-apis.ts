// The wire protocols side by side on the same programs, in one run against one real server (real pool,
// real jail): HackerEarth v3 synchronous /code/run/ is the baseline; each other API is a column that
// runs the same program its own way (Judge0 CE: POST /judge0/submissions?wait=true). Windows of each
// column alternate, so a slow moment of this shared machine falls on all of them alike. Target: no API
// adds more than 10% to v3's p50.
// Usage: npx tsx scripts/bench-apis.ts [--requests 20] [--rounds 3] [--concurrency 1,8] [--fresh] [--json]
//   --fresh: a random tag in every source, so the compile cache never helps (by default every column
//   compiles the same source, so after the first request all of them run from the cache alike).
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { startServer } from '../src/testing/harness.ts'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,8' },
    fresh: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
})
const REQUESTS = Number(values.requests)
const ROUNDS = Number(values.rounds)
const LEVELS = values.concurrency.split(',').map(Number)

export interface BenchProgram {
  /** Arbiter's code (v3 lang). */
  code: string
  /** Judge0 CE language id. */
  judge0: number
  source: string
  /** How a line comment starts, for the --fresh tag. */
  comment: string
  expect: string
}

export const PROGRAMS: Record<string, BenchProgram> = {
  'python3 hello': { code: 'PYTHON3', judge0: 71, comment: '#', source: 'print("hello")\n', expect: 'hello\n' },
  'C hello': { code: 'C', judge0: 50, comment: '//', source: '#include <stdio.h>\nint main(void){puts("hello");return 0;}\n', expect: 'hello\n' },
  // spins until it has used 0.3 s of CPU, whatever the machine's speed
  'C 0.3 s CPU': {
    code: 'C',
    judge0: 50,
    comment: '//',
    source: '#include <stdio.h>\n#include <time.h>\nint main(void){while(clock() < 3 * CLOCKS_PER_SEC / 10);puts("spun");return 0;}\n',
    expect: 'spun\n',
  },
}

export type Outcome = { ok: true } | { ok: false; why: string }

/** One API's way of running a program once and checking its output. */
export interface Column {
  name: string
  once(url: string, secret: string, p: BenchProgram, source: string): Promise<Outcome>
}

/** The baseline: v3 synchronous /code/run/. */
export const v3Column: Column = {
  name: 'v3',
  async once(url, secret, p, source) {
    const r = await fetch(`${url}/code/run/`, { method: 'POST', body: new URLSearchParams({ client_secret: secret, lang: p.code, source }) })
    const body = (await r.json()) as { run_status?: { status?: string; output?: string } }
    if (r.status !== 200) return { ok: false, why: `HTTP ${r.status}` }
    return body.run_status?.status === 'AC' && body.run_status.output === p.expect ? { ok: true } : { ok: false, why: `v3 ${body.run_status?.status}` }
  },
}

/** Judge0 CE: create with wait=true, the reply's stdout and status checked. */
export const judge0Column: Column = {
  name: 'judge0',
  async once(url, secret, p, source) {
    const r = await fetch(`${url}/judge0/submissions?wait=true&fields=stdout,status`, {
      method: 'POST',
      headers: { 'X-Auth-Token': secret, 'content-type': 'application/json' },
      body: JSON.stringify({ language_id: p.judge0, source_code: source }),
    })
    const body = (await r.json()) as { stdout?: string; status?: { id: number; description: string } }
    if (r.status !== 201) return { ok: false, why: `HTTP ${r.status}` }
    return body.status?.id === 3 && body.stdout === p.expect ? { ok: true } : { ok: false, why: `judge0 ${body.status?.description}` }
  },
}

/** Every column, baseline first (a new API adds its column here). */
export const COLUMNS: Column[] = [v3Column, judge0Column]

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

interface Tally {
  times: number[]
  ok: number
  seconds: number
  failures: Map<string, number>
}

/** One window: `total` requests on `lanes` concurrent lanes. */
async function window(col: Column, url: string, secret: string, p: BenchProgram, lanes: number, total: number, into: Tally) {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < total) {
        next++
        const source = values.fresh ? `${p.comment} ${randomBytes(8).toString('hex')}\n${p.source}` : p.source
        const t = performance.now()
        const out = await col.once(url, secret, p, source).catch((e: Error) => ({ ok: false as const, why: e.message }))
        if (out.ok) {
          into.ok++
          into.times.push(performance.now() - t)
        } else into.failures.set(out.why, (into.failures.get(out.why) ?? 0) + 1)
      }
    })
  )
  into.seconds += (performance.now() - started) / 1000
}

const server = await startServer({ configToml: `[pool]\nsize = ${Math.max(...LEVELS)}\n` })
const rows: Record<string, unknown>[] = []
try {
  const secret = await server.createClient('bench-apis')
  for (const [name, p] of Object.entries(PROGRAMS)) {
    // warm-up: one of each (the first compile, the language's first start)
    for (const col of COLUMNS) await col.once(server.url, secret, p, p.source)
    for (const c of LEVELS) {
      const tallies = new Map(COLUMNS.map((col) => [col.name, { times: [], ok: 0, seconds: 0, failures: new Map() } as Tally]))
      for (let round = 0; round < ROUNDS; round++) {
        // alternate the order each round so neither side always runs first
        const order = round % 2 ? [...COLUMNS].reverse() : COLUMNS
        for (const col of order) await window(col, server.url, secret, p, c, REQUESTS, tallies.get(col.name)!)
      }
      const base = tallies.get(COLUMNS[0]!.name)!
      base.times.sort((a, b) => a - b)
      const baseP50 = quantile(base.times, 0.5)
      for (const col of COLUMNS) {
        const t = tallies.get(col.name)!
        t.times.sort((a, b) => a - b)
        const p50 = quantile(t.times, 0.5)
        rows.push({
          program: name,
          concurrency: c,
          api: col.name,
          ok: `${t.ok}/${ROUNDS * REQUESTS}`,
          p50_ms: Math.round(p50 * 10) / 10,
          p99_ms: Math.round(quantile(t.times, 0.99) * 10) / 10,
          per_sec: Math.round((t.ok / t.seconds) * 10) / 10,
          p50_vs_v3: Math.round((p50 / baseP50) * 100) / 100,
          ...(t.failures.size ? { failures: Object.fromEntries(t.failures) } : {}),
        })
      }
    }
  }
} finally {
  await server.stop()
  server.cleanup()
}

if (values.json) console.log(JSON.stringify(rows, null, 2))
else {
  console.table(rows)
  const over = rows.filter((r) => r.api !== COLUMNS[0]!.name && (r.p50_vs_v3 as number) > 1.1)
  console.log(over.length ? `over the 1.1 × v3 p50 target: ${over.map((r) => `${r.api} ${r.program} c=${r.concurrency} (${r.p50_vs_v3})`).join(', ')}` : 'every API within 1.1 × v3 p50')
}
