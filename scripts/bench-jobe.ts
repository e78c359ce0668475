// Benchmark of the Jobe API against the v3 API on the same programs, in one run on one server (real
// pool, real jail), driven from this process over loopback: python3 hello, C hello, and a C program that
// burns 0.3 s of CPU; at concurrency 1 and 8. The two APIs take turns per cell, so load on the machine
// weighs on both alike. With --peer URL (a Jobe server, e.g. a native Jobe 2.2), the same Jobe requests
// go to it too, side by side. Target: the Jobe path costs at most 1.1x v3's p50; against a native Jobe,
// at least 3x its throughput and at most a third of its p50. With --fresh every request's source carries
// a new random comment, so no compile cache helps (a native Jobe has none: without it, Arbiter's C
// figures are of a cached compile).
// Usage: npx tsx scripts/bench-jobe.ts [--requests 60] [--cpu-requests 24] [--peer URL] [--peer-key KEY] [--fresh] [--json]
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { startServer } from '../src/testing/harness.ts'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '60' },
    'cpu-requests': { type: 'string', default: '24' },
    peer: { type: 'string' },
    'peer-key': { type: 'string' },
    fresh: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
})
const REQUESTS = Number(values.requests)
const CPU_REQUESTS = Number(values['cpu-requests'])
const JOBE = '/jobe/index.php/restapi/runs'

const PROGRAMS = [
  { name: 'python3 hello', jobe: 'python3', v3: 'PYTHON3', comment: (t: string) => `# ${t}\n`, source: 'print("hello")\n', expect: 'hello\n', requests: REQUESTS },
  { name: 'C hello', jobe: 'c', v3: 'C', comment: (t: string) => `/* ${t} */\n`, source: '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n', expect: 'hello\n', requests: REQUESTS },
  {
    name: 'C 0.3 s CPU',
    jobe: 'c',
    v3: 'C',
    comment: (t: string) => `/* ${t} */\n`,
    source: '#include <stdio.h>\n#include <time.h>\nint main(void) { while (clock() < CLOCKS_PER_SEC * 3 / 10) {} puts("done"); return 0; }\n',
    expect: 'done\n',
    requests: CPU_REQUESTS,
  },
]

interface Cell {
  program: string
  api: string
  concurrency: number
  requests: number
  ok: number
  perSec: number
  p50: number
  p99: number
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

/** `total` requests on `lanes` concurrent lanes: the latencies (ms) of the correct ones, and the seconds taken. */
async function drive(total: number, lanes: number, once: () => Promise<boolean>) {
  const times: number[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next++ < total) {
        const t = performance.now()
        if (await once()) times.push(performance.now() - t)
      }
    })
  )
  return { times, seconds: (performance.now() - started) / 1000 }
}

async function jobeRun(base: string, key: string | undefined, language: string, source: string, expect: string): Promise<boolean> {
  const r = await fetch(`${base}${JOBE}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json; charset=utf-8', Accept: 'application/json', ...(key && { 'X-API-KEY': key }) },
    body: JSON.stringify({ run_spec: { language_id: language, sourcecode: source, sourcefilename: `__tester__.${language}`, input: '', file_list: [] } }),
  })
  if (r.status !== 200) return false
  const body = (await r.json()) as { outcome: number; stdout: string }
  return body.outcome === 15 && body.stdout === expect
}

async function v3Run(base: string, secret: string, lang: string, source: string, expect: string): Promise<boolean> {
  const r = await fetch(`${base}/code/run/`, { method: 'POST', body: new URLSearchParams({ client_secret: secret, lang, source }) })
  if (r.status !== 200) return false
  const body = (await r.json()) as { run_status?: { status: string; output: string } }
  return body.run_status?.status === 'AC' && body.run_status.output === expect
}

async function main() {
  const server = await startServer()
  const cells: Cell[] = []
  try {
    const secret = await server.createClient('bench-jobe')
    const peer = values.peer?.replace(/\/+$/, '')
    for (const program of PROGRAMS) {
      // the source of each request: the same, or (--fresh) with a comment no cache has seen
      const p = { ...program, get source() { return values.fresh ? program.comment(randomBytes(8).toString('hex')) + program.source : program.source } }
      // once each, untimed: the compile cache and the toolchain's pages are warm for both APIs alike
      await jobeRun(server.url, secret, p.jobe, p.source, p.expect)
      await v3Run(server.url, secret, p.v3, p.source, p.expect)
      for (const concurrency of [1, 8]) {
        const apis: [string, () => Promise<boolean>][] = [
          ['jobe', () => jobeRun(server.url, secret, p.jobe, p.source, p.expect)],
          ['v3', () => v3Run(server.url, secret, p.v3, p.source, p.expect)],
          ...(peer ? [['peer jobe', () => jobeRun(peer, values['peer-key'], p.jobe, p.source, p.expect)] as [string, () => Promise<boolean>]] : []),
        ]
        // in rounds that alternate the APIs, so a burst of load on the machine does not fall on one API only
        const ROUNDS = 4
        const acc = new Map(apis.map(([api]) => [api, { times: [] as number[], seconds: 0 }]))
        for (let round = 0; round < ROUNDS; round++) {
          for (const [api, once] of round % 2 ? [...apis].reverse() : apis) {
            const r = await drive(Math.ceil(p.requests / ROUNDS), concurrency, once)
            acc.get(api)!.times.push(...r.times)
            acc.get(api)!.seconds += r.seconds
          }
        }
        for (const [api, { times, seconds }] of acc) {
          times.sort((a, b) => a - b)
          cells.push({ program: p.name, api, concurrency, requests: Math.ceil(p.requests / ROUNDS) * ROUNDS, ok: times.length, perSec: times.length / seconds, p50: quantile(times, 0.5), p99: quantile(times, 0.99) })
        }
      }
    }
  } finally {
    await server.stop()
    server.cleanup()
  }
  if (values.json) {
    console.log(JSON.stringify(cells, null, 2))
    return
  }
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-')
  console.log('| program | c | API | ok/requests | runs/s | p50 ms | p99 ms | p50 vs v3 |')
  console.log('|---|---|---|---|---|---|---|---|')
  for (const c of cells) {
    const v3 = cells.find((x) => x.program === c.program && x.concurrency === c.concurrency && x.api === 'v3')!
    console.log(`| ${c.program} | ${c.concurrency} | ${c.api} | ${c.ok}/${c.requests} | ${f(c.perSec)} | ${f(c.p50)} | ${f(c.p99)} | ${(c.p50 / v3.p50).toFixed(2)}x |`)
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
