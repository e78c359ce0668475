// The wire protocols side by side on the same programs, in one run against one real server (real pool,
// real jail): HackerEarth v3 synchronous /code/run/ is the baseline; each other API is a column that
// runs the same program its own way (Judge0 CE: POST /judge0/submissions?wait=true; Piston: POST /piston/api/v2/execute). Windows of each
// column alternate, so a slow moment of this shared machine falls on all of them alike. Target: no API
// adds more than 10% to v3's p50.
// Each face (v3, v4 submitted and polled to completion, Jobe, Judge0 wait=true, Piston) is also set
// against bare spawns on the host in the same run, alternating with them (--bare): host python3 on the
// source file, gcc then the program for C. p50_vs_bare is a column's p50 over the bare one at c=1;
// per_sec_vs_bare_2way its rate over bare spawns at 2-way parallelism (the bare column never runs more
// than 2 lanes), the rate the cores allow for the bare work alone.
// Where the time goes (c=1, means per request, from the server's /metrics sums read before and after each
// window: evaluation/phases.ts): the app's own time per request (http: from the request reaching the
// app to its reply built), the core's phases (accept, queued, claim, pool round trip, of which the
// jailed steps' own wall time, store), what is left in the app (waiting, notifying, reply building,
// validation, polls) and what is outside it (node's HTTP parsing and writing, loopback, the client).
// Usage: npx tsx scripts/bench-apis.ts [--requests 20] [--rounds 3] [--concurrency 1,8] [--fresh] [--bare] [--bare-python PATH] [--programs 'python3 hello,C hello'] [--json]
//   --fresh: a random tag in every source, so the compile cache never helps (by default every column
//   compiles the same source, so after the first request all of them run from the cache alike).
import { execFile, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parseArgs } from 'node:util'
import { pistonColumn } from './bench-piston-part.ts'
import { startServer } from '../src/testing/harness.ts'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,8' },
    fresh: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    bare: { type: 'boolean', default: false },
    programs: { type: 'string' },
    'bare-python': { type: 'string' },
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
  /** Jobe's language_id. */
  jobe: string
  source: string
  /** How a line comment starts, for the --fresh tag. */
  comment: string
  expect: string
}

export const PROGRAMS: Record<string, BenchProgram> = {
  'python3 hello': { code: 'PYTHON3', judge0: 71, jobe: 'python3', comment: '#', source: 'print("hello")\n', expect: 'hello\n' },
  'C hello': { code: 'C', judge0: 50, jobe: 'c', comment: '//', source: '#include <stdio.h>\nint main(void){puts("hello");return 0;}\n', expect: 'hello\n' },
  // spins until it has used 0.3 s of CPU, whatever the machine's speed
  'C 0.3 s CPU': {
    code: 'C',
    judge0: 50,
    jobe: 'c',
    comment: '//',
    source: '#include <stdio.h>\n#include <time.h>\nint main(void){while(clock() < 3 * CLOCKS_PER_SEC / 10);puts("spun");return 0;}\n',
    expect: 'spun\n',
  },
}

export type Outcome = { ok: true } | { ok: false; why: string }

/** One API's way of running a program once and checking its output. */
export interface Column {
  name: string
  /** Most concurrent lanes this column runs (the bare column: 2). */
  maxLanes?: number
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

const V4_PATH = '/v4/partner/code-evaluation/submissions/'

/** HackerEarth v4: submit, then poll the status URL every 2 ms until REQUEST_COMPLETED (async to completion). */
export const v4Column: Column = {
  name: 'v4',
  async once(url, secret, p, source) {
    const headers = { 'client-secret': secret, 'content-type': 'application/json' }
    const r = await fetch(`${url}${V4_PATH}`, { method: 'POST', headers, body: JSON.stringify({ lang: p.code, source }) })
    const q = (await r.json()) as { he_id?: string; status_update_url?: string }
    if (r.status !== 200 || !q.status_update_url) return { ok: false, why: `HTTP ${r.status}` }
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      const s = (await (await fetch(q.status_update_url, { headers })).json()) as { request_status: { code: string }; result: { run_status: { status: string; output: string } } }
      if (s.request_status.code === 'REQUEST_COMPLETED') {
        const rs = s.result.run_status
        // v4's output is a link to the output file: the status is checked, the output not fetched
        return rs.status === 'AC' ? { ok: true } : { ok: false, why: `v4 ${rs.status}` }
      }
      await new Promise((res) => setTimeout(res, 2))
    }
    return { ok: false, why: 'v4 not completed in 60 s' }
  },
}

/** Jobe: POST runs as CodeRunner does, outcome 15 and stdout checked. */
export const jobeColumn: Column = {
  name: 'jobe',
  async once(url, secret, p, source) {
    const r = await fetch(`${url}/jobe/index.php/restapi/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8', Accept: 'application/json', 'X-API-KEY': secret },
      body: JSON.stringify({ run_spec: { language_id: p.jobe, sourcecode: source, input: '' } }),
    })
    if (r.status !== 200) return { ok: false, why: `HTTP ${r.status}` }
    const body = (await r.json()) as { outcome: number; stdout: string }
    return body.outcome === 15 && body.stdout === p.expect ? { ok: true } : { ok: false, why: `jobe outcome ${body.outcome}` }
  },
}

const run = promisify(execFile)
/**
 * The system's python3 (--bare-python to choose another): a pyenv python3 on PATH is a shell-script
 * shim (~150 ms a start) in front of an interpreter whose site-packages cost ~50 ms more a start here.
 */
const hostPython = values['bare-python'] ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim())

/** No server: the host's python3 on the source file, or gcc then the program, in a folder of its own. */
export const bareColumn: Column = {
  name: 'bare',
  maxLanes: 2,
  async once(_url, _secret, p, source) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'))
    try {
      const file = join(dir, p.code === 'C' ? 'prog.c' : 'prog.py')
      writeFileSync(file, source)
      if (p.code === 'C') await run('gcc', ['-o', join(dir, 'prog'), file], { cwd: dir })
      const { stdout } = p.code === 'C' ? await run(join(dir, 'prog'), [], { cwd: dir }) : await run(hostPython, [file], { cwd: dir })
      return stdout === p.expect ? { ok: true } : { ok: false, why: 'bare output' }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}

/** Every column, baseline first (a new API adds its column here). */
export const COLUMNS: Column[] = [v3Column, v4Column, jobeColumn, judge0Column, pistonColumn, ...(values.bare ? [bareColumn] : [])]

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

interface Tally {
  times: number[]
  ok: number
  seconds: number
  failures: Map<string, number>
  /** The server's sums over this column's windows, and the requests they cover. */
  spent: Sums
  measured: number
}

/** The sums the breakdown reads from /metrics, in seconds. */
type Sums = Record<'http' | 'jail' | 'accept' | 'queued' | 'claim' | 'pool' | 'store', number>
const ZERO: Sums = { http: 0, jail: 0, accept: 0, queued: 0, claim: 0, pool: 0, store: 0 }

/** The server's sums now (its /metrics is open to the bench: its own server, on loopback). */
async function sums(url: string): Promise<Sums> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const out = { ...ZERO }
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{([^}]*)\})? ([\d.e+-]+)$/.exec(line)
    if (!m) continue
    const [, name, labels = '', value] = m
    const v = Number(value)
    // the scrapes themselves are no request's
    if (name === 'arbiter_http_request_seconds_total' && !labels.includes('route="/metrics"')) out.http += v
    else if (name === 'arbiter_step_duration_seconds_sum') out.jail += v
    else if (name === 'arbiter_core_phase_seconds_total') {
      const phase = /phase="(\w+)"/.exec(labels)?.[1] as keyof Sums | undefined
      if (phase && phase in out) out[phase] += v
    }
  }
  return out
}

/** One window: `total` requests on `lanes` concurrent lanes. */
async function window(col: Column, url: string, secret: string, p: BenchProgram, lanes: number, total: number, into: Tally) {
  let next = 0
  const before = col.name === 'bare' ? undefined : await sums(url)
  const okBefore = into.ok
  const started = performance.now()
  await Promise.all(
    Array.from({ length: Math.min(lanes, col.maxLanes ?? lanes) }, async () => {
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
  if (before) {
    const after = await sums(url)
    for (const k of Object.keys(ZERO) as (keyof Sums)[]) into.spent[k] += after[k] - before[k]
    into.measured += into.ok - okBefore
  }
}

const server = await startServer({ configToml: `[pool]\nsize = ${Math.max(...LEVELS)}\n[metrics]\nopen = true\n` })
const rows: Record<string, unknown>[] = []
const breakdown: Record<string, unknown>[] = []
/** The bare column's p50 at c=1, per program: what every level's p50 is set against. */
const bareP50AtOne = new Map<string, number>()
try {
  const secret = await server.createClient('bench-apis')
  const only = values.programs?.split(',')
  for (const [name, p] of Object.entries(PROGRAMS).filter(([n]) => !only || only.includes(n))) {
    // warm-up: one of each (the first compile, the language's first start)
    for (const col of COLUMNS) await col.once(server.url, secret, p, p.source)
    for (const c of LEVELS) {
      const tallies = new Map(COLUMNS.map((col) => [col.name, { times: [], ok: 0, seconds: 0, failures: new Map(), spent: { ...ZERO }, measured: 0 } as Tally]))
      for (let round = 0; round < ROUNDS; round++) {
        // alternate the order each round so neither side always runs first
        const order = round % 2 ? [...COLUMNS].reverse() : COLUMNS
        for (const col of order) await window(col, server.url, secret, p, c, REQUESTS, tallies.get(col.name)!)
      }
      const bare = tallies.get('bare')
      const bareP50 = bare && quantile([...bare.times].sort((a, b) => a - b), 0.5)
      if (bare && c === 1) bareP50AtOne.set(name, bareP50!)
      const bareRate = bare && bare.ok / bare.seconds
      const base = tallies.get(COLUMNS[0]!.name)!
      base.times.sort((a, b) => a - b)
      const baseP50 = quantile(base.times, 0.5)
      if (c === 1)
        for (const col of COLUMNS) {
          const t = tallies.get(col.name)!
          if (!t.measured) continue
          const ms = (sec: number) => Math.round((sec * 1000 * 100) / t.measured) / 100
          const client = t.times.reduce((a, b) => a + b, 0) / t.times.length
          const sp = t.spent
          const core = sp.accept + sp.queued + sp.claim + sp.pool + sp.store
          breakdown.push({
            program: name,
            api: col.name,
            client_mean_ms: Math.round(client * 100) / 100,
            outside_app_ms: Math.round((client - (sp.http * 1000) / t.measured) * 100) / 100,
            app_ms: ms(sp.http),
            // v4 runs outside any request (answered queued, then polled): what is left is its polls' own
            app_rest_ms: col.name === 'v4' ? ms(sp.http - sp.accept) : ms(sp.http - core),
            accept_ms: ms(sp.accept),
            queued_ms: ms(sp.queued),
            claim_ms: ms(sp.claim),
            pool_ms: ms(sp.pool),
            jail_steps_ms: ms(sp.jail),
            pool_not_jail_ms: ms(sp.pool - sp.jail),
            store_ms: ms(sp.store),
          })
        }
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
          ...(bare && { p50_vs_bare: Math.round((p50 / (bareP50AtOne.get(name) ?? bareP50!)) * 100) / 100, per_sec_vs_bare_2way: Math.round((t.ok / t.seconds / bareRate!) * 100) / 100 }),
          ...(t.failures.size ? { failures: Object.fromEntries(t.failures) } : {}),
        })
      }
    }
  }
} finally {
  await server.stop()
  server.cleanup()
}

if (values.json) console.log(JSON.stringify({ rows, breakdown }, null, 2))
else {
  console.table(rows)
  console.log('where the time goes at c=1 (ms per request, means; app = from the request reaching the app to its reply built):')
  console.table(breakdown)
  const over = rows.filter((r) => r.api !== COLUMNS[0]!.name && r.api !== 'bare' && (r.p50_vs_v3 as number) > 1.1)
  console.log(over.length ? `over the 1.1 × v3 p50 target: ${over.map((r) => `${r.api} ${r.program} c=${r.concurrency} (${r.p50_vs_v3})`).join(', ')}` : 'every API within 1.1 × v3 p50')
}
