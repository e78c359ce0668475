// Benchmark of the code-evaluation API end to end: the real server (real pool, real jail) driven from
// this second process over loopback. v3 synchronous /code/run/ at concurrency 1 and 4; v4 submit, then
// wait for the REQUEST_COMPLETED callback (or poll) at 1, 8 and 64; PYTHON3 and C hello worlds; then the
// server's RSS with 10,000 submissions queued. Printed next to the jailed run cost of bench-sandbox and
// the toolchain's bare floor from bench-languages (what no sandbox or API can go below).
// A v4 submission whose REQUEST_COMPLETED has not arrived within --lost-after seconds counts as lost.
// Usage: npx tsx scripts/bench-api.ts [--requests 300] [--queue 10000] [--sandbox-runs 300] [--skip-sandbox]
//        [--lost-after 120] [--json]
//        npx tsx scripts/bench-api.ts --compare-nsjail [--rounds 6] [--requests 300]: only v3 PYTHON3 hello at
//        c=1 and c=4 on two servers at once, one with prepared jails (the default) and one with
//        pool.prepared_jails = false (one nsjail per run, as before them), in alternating rounds: the
//        before and after of prepared jails in one run, under the same machine load.
import { execa } from 'execa'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startServer, type RunningServer } from '../src/testing/harness.ts'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300' },
    queue: { type: 'string', default: '10000' },
    'sandbox-runs': { type: 'string', default: '300' },
    'skip-sandbox': { type: 'boolean', default: false },
    'lost-after': { type: 'string', default: '120' },
    'compare-nsjail': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '6' },
    json: { type: 'boolean', default: false },
  },
})
const REQUESTS = Number(values.requests)
const QUEUE = Number(values.queue)
const LOST_AFTER_MS = Number(values['lost-after']) * 1000
const V4_PATH = '/v4/partner/code-evaluation/submissions/'

const PROGRAMS = {
  PYTHON3: { source: 'print("hello")', expect: 'hello\n' },
  C: { source: '#include <stdio.h>\nint main(void){puts("hello");return 0;}\n', expect: 'hello\n' },
} as const
type Lang = keyof typeof PROGRAMS

interface Row {
  scenario: string
  lang: Lang
  concurrency: number
  requests: number
  ok: number
  perSec: number
  p50: number
  p99: number
  /** v4: submissions whose completion never arrived. */
  lost?: number
}

/** Why requests did not end in AC, per scenario (printed when not empty). */
const failures = new Map<string, Map<string, number>>()
function failed(scenario: string, why: string) {
  const m = failures.get(scenario) ?? new Map<string, number>()
  m.set(why, (m.get(why) ?? 0) + 1)
  failures.set(scenario, m)
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

/** Runs `total` tasks on `lanes` concurrent lanes; returns latencies (ms) of the successful ones and the wall time. */
async function drive(total: number, lanes: number, once: (i: number) => Promise<boolean>) {
  const times: number[] = []
  let next = 0
  let ok = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < total) {
        const i = next++
        const t = performance.now()
        if (await once(i)) {
          ok++
          times.push(performance.now() - t)
        }
      }
    })
  )
  const seconds = (performance.now() - started) / 1000
  times.sort((a, b) => a - b)
  return { ok, perSec: ok / seconds, p50: quantile(times, 0.5), p99: quantile(times, 0.99) }
}

// ── the callback receiver: resolves the waiter of each he_id at REQUEST_COMPLETED ──────────────────

type RunStatus = { status: string; output: string; status_detail?: string; request_NOT_OK_reason?: string }
const waiters = new Map<string, (body: { result: { run_status: RunStatus; compile_status: string } }) => void>()
const early = new Map<string, unknown>()
const receiver = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    res.writeHead(200).end()
    if (req.headers['x-arbiter-event'] !== 'REQUEST_COMPLETED') return
    const id = String(req.headers['x-arbiter-he-id'])
    const parsed = JSON.parse(body)
    const w = waiters.get(id)
    if (w) {
      waiters.delete(id)
      w(parsed)
    } else early.set(id, parsed)
  })
})
receiver.keepAliveTimeout = 60_000
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`

type Completed = { result: { run_status: RunStatus; compile_status: string } }

/** The REQUEST_COMPLETED callback of publicId, or undefined when none came within LOST_AFTER_MS. */
const completedCallback = (publicId: string) =>
  new Promise<Completed | undefined>((resolve) => {
    const got = early.get(publicId)
    if (got) {
      early.delete(publicId)
      return resolve(got as Completed)
    }
    const timer = setTimeout(() => {
      waiters.delete(publicId)
      resolve(undefined)
    }, LOST_AFTER_MS)
    waiters.set(publicId, (body) => {
      clearTimeout(timer)
      resolve(body)
    })
  })

// ── scenarios ──────────────────────────────────────────────────────────────────────────────────────

async function v3Sync(server: RunningServer, secret: string, lang: Lang, c: number, total: number): Promise<Row> {
  const { source, expect } = PROGRAMS[lang]
  const body = new URLSearchParams({ client_secret: secret, lang, source }).toString()
  const r = await drive(total, c, async () => {
    const res = await fetch(`${server.url}/code/run/`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    const j = (await res.json()) as { message: string; compile_status: string; run_status?: RunStatus }
    const ok = j.run_status?.status === 'AC' && j.run_status.output === expect
    if (!ok) failed(`v3 ${lang} c=${c}`, `${res.status} ${j.message} ${j.run_status?.status}/${j.run_status?.status_detail} ${j.compile_status.slice(0, 60)}`)
    return ok
  })
  return { scenario: 'v3 sync /code/run/', lang, concurrency: c, requests: total, ...r }
}

async function v4(server: RunningServer, secret: string, lang: Lang, c: number, total: number, mode: 'callback' | 'poll'): Promise<Row> {
  const { source, expect } = PROGRAMS[lang]
  const name = `v4 ${lang} c=${c}${mode === 'poll' ? ' poll' : ''}`
  const headers = { 'client-secret': secret, 'content-type': 'application/json' }
  const payload = JSON.stringify({ lang, source, ...(mode === 'callback' ? { callback: callbackUrl } : {}) })
  const outputs: string[] = []
  let lost = 0
  const r = await drive(total, c, async () => {
    const res = await fetch(`${server.url}${V4_PATH}`, { method: 'POST', body: payload, headers })
    const q = (await res.json()) as { he_id?: string; status_update_url: string; message?: string }
    if (res.status !== 200 || !q.he_id) {
      failed(name, `submit answered ${res.status} ${q.message ?? ''}`)
      return false
    }
    let done: Completed | undefined
    if (mode === 'callback') done = await completedCallback(q.he_id)
    else {
      const deadline = Date.now() + LOST_AFTER_MS
      while (!done && Date.now() < deadline) {
        const s = (await (await fetch(q.status_update_url, { headers })).json()) as Completed & { request_status: { code: string } }
        if (s.request_status.code === 'REQUEST_COMPLETED') done = s
        else await new Promise((res) => setTimeout(res, 10))
      }
    }
    if (!done) {
      lost++
      failed(name, `no REQUEST_COMPLETED within ${LOST_AFTER_MS / 1000} s (lost)`)
      return false
    }
    const rs = done.result.run_status
    const ok = rs.status === 'AC'
    if (!ok) failed(name, `${rs.status}/${rs.status_detail} ${rs.request_NOT_OK_reason ?? ''} ${done.result.compile_status.slice(0, 60)}`)
    else if (outputs.length < 3) outputs.push(rs.output)
    return ok
  })
  // the output URL is part of the contract: a few of each scenario are fetched and checked (untimed)
  for (const url of outputs) {
    const text = await (await fetch(url)).text()
    if (text !== expect) failed(name, `output URL answered ${JSON.stringify(text.slice(0, 40))}`)
  }
  return { scenario: `v4 submit + ${mode === 'callback' ? 'callback' : 'poll 10 ms'}`, lang, concurrency: c, requests: total, lost, ...r }
}

const rssKb = (pid: number, field: 'VmRSS' | 'VmHWM') => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? NaN)

/** Clients the queued backlog comes from: each may have evaluation.max_queued_per_client (default 500) waiting. */
const PER_CLIENT = 500

async function queueMemory(server: RunningServer, secret: string, n: number) {
  // the backlog of many clients, as a deadline brings it, each under its cap (their rows take turns)
  const secrets = [secret]
  while (secrets.length * PER_CLIENT < n) secrets.push(await server.createClient(`backlog-${secrets.length}`))
  const before = rssKb(server.pid, 'VmRSS')
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, rssKb(server.pid, 'VmRSS'))), 50)
  const payload = JSON.stringify({ lang: 'PYTHON3', source: PROGRAMS.PYTHON3.source })
  const submit = await drive(n, 32, async (i) => {
    const headers = { 'client-secret': secrets[i % secrets.length]!, 'content-type': 'application/json' }
    return (await fetch(`${server.url}${V4_PATH}`, { method: 'POST', body: payload, headers })).ok
  })
  clearInterval(timer)
  const after = rssKb(server.pid, 'VmRSS')
  const hwm = rssKb(server.pid, 'VmHWM')
  const health = (await (await fetch(`${server.url}/health`)).json()) as unknown
  return { submitted: submit.ok, submitPerSec: submit.perSec, rssBeforeMb: before / 1024, rssPeakMb: Math.max(peak, after) / 1024, rssAfterMb: after / 1024, vmHwmMb: hwm / 1024, health }
}

// ── run ────────────────────────────────────────────────────────────────────────────────────────────

async function sandboxCost(): Promise<{ program: string; jailed: { median: number; perSec: number } }[] | undefined> {
  if (values['skip-sandbox']) return undefined
  try {
    const r = await execa(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'bench-sandbox.ts'), '--runs', String(values['sandbox-runs']), '--json'])
    return JSON.parse(r.stdout).rows
  } catch (err) {
    process.stderr.write(`bench-sandbox failed, continuing without it: ${(err as Error).message.split('\n')[0]}\n`)
    return undefined
  }
}

/**
 * The floor under the targets: the same toolchain's hello world run bare in its root (no jail, no
 * HTTP, no queue), from bench-languages. A latency target below it, or a throughput target above
 * cores x 1000 / floor, cannot be met by any sandbox or API.
 */
async function toolchainFloor(): Promise<Record<Lang, { compile: number | null; run: number; total: number }> | undefined> {
  if (values['skip-sandbox']) return undefined
  try {
    const r = await execa(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'bench-languages.ts'), '--lang', 'C,PYTHON3', '--runs', '9', '--json'])
    const rows = JSON.parse(r.stdout).rows as { code: Lang; compileBareMs: number | null; runBareMs: number }[]
    return Object.fromEntries(rows.map((x) => [x.code, { compile: x.compileBareMs, run: x.runBareMs, total: (x.compileBareMs ?? 0) + x.runBareMs }])) as Record<Lang, { compile: number | null; run: number; total: number }>
  } catch (err) {
    process.stderr.write(`bench-languages failed, continuing without the floor: ${(err as Error).message.split('\n')[0]}\n`)
    return undefined
  }
}

if (values['compare-nsjail']) await compareNsjail()

/** Prepared jails against one nsjail per run: v3 PYTHON3 hello on two servers, alternating rounds. */
async function compareNsjail(): Promise<never> {
  const setups = { 'prepared jails': await startServer(), 'nsjail per run': await startServer({ configToml: '[pool]\nprepared_jails = false' }) }
  const per = Math.ceil(REQUESTS / Number(values.rounds))
  const got: Record<string, { p50: number[]; perSec: number[] }> = {}
  try {
    const secrets = Object.fromEntries(await Promise.all(Object.entries(setups).map(async ([k, s]) => [k, await s.createClient('bench')] as const)))
    for (const [k, s] of Object.entries(setups)) await v3Sync(s, secrets[k], 'PYTHON3', 2, 20) // warm-up
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const [k, s] of Object.entries(setups)) {
        const one = await v3Sync(s, secrets[k], 'PYTHON3', 1, per)
        const four = await v3Sync(s, secrets[k], 'PYTHON3', 4, per)
        got[k] ??= { p50: [], perSec: [] }
        got[k].p50.push(one.p50)
        got[k].perSec.push(four.perSec)
      }
    }
  } finally {
    for (const s of Object.values(setups)) {
      await s.stop()
      s.cleanup()
    }
    receiver.close()
  }
  const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5)
  const [after, before] = [got['prepared jails'], got['nsjail per run']]
  console.log(`bench-api --compare-nsjail: v3 PYTHON3 hello, ${values.rounds} rounds of ${per} requests per setup and concurrency, alternating; medians of the rounds`)
  console.log('setup            | p50 ms at c=1 | req/s at c=4')
  console.log('-----------------|---------------|-------------')
  for (const [k, v] of Object.entries(got)) console.log(`${k.padEnd(16)} | ${median(v.p50).toFixed(1).padStart(13)} | ${median(v.perSec).toFixed(1).padStart(12)}`)
  console.log(`prepared jails: p50 ${(median(after.p50) - median(before.p50)).toFixed(1)} ms (${((median(after.p50) / median(before.p50) - 1) * 100).toFixed(0)}%), c=4 throughput ${((median(after.perSec) / median(before.perSec) - 1) * 100).toFixed(0)}%`)
  for (const [scenario, whys] of failures) for (const [why, n] of whys) console.log(`not AC in ${scenario}: ${n} x ${why}`)
  process.exit(0)
}

const sandbox = await sandboxCost()
const floor = await toolchainFloor()
const server = await startServer()
const rows: Row[] = []
let memory: Awaited<ReturnType<typeof queueMemory>> | undefined
try {
  const secret = await server.createClient('bench')
  // warm-up: worker threads, supervisors, page cache
  for (const lang of ['PYTHON3', 'C'] as const) await v3Sync(server, secret, lang, 2, 20)

  for (const lang of ['PYTHON3', 'C'] as const) {
    for (const c of [1, 4]) rows.push(await v3Sync(server, secret, lang, c, lang === 'C' ? Math.ceil(REQUESTS / 2) : REQUESTS))
    for (const c of [1, 8, 64]) rows.push(await v4(server, secret, lang, c, Math.max(REQUESTS, c * 4), 'callback'))
  }
  rows.push(await v4(server, secret, 'PYTHON3', 8, REQUESTS, 'poll'))
  memory = await queueMemory(server, secret, QUEUE)
} finally {
  await server.stop()
  server.cleanup()
  receiver.close()
}

// ── report ─────────────────────────────────────────────────────────────────────────────────────────

const find = (scenario: string, lang: Lang, c: number) => rows.find((r) => r.scenario.startsWith(scenario) && r.lang === lang && r.concurrency === c)!
const v3py1 = find('v3', 'PYTHON3', 1)
const v3py4 = find('v3', 'PYTHON3', 4)
const v3c1 = find('v3', 'C', 1)
const v3c4 = find('v3', 'C', 4)
const v4py64 = find('v4 submit + callback', 'PYTHON3', 64)
const v4c64 = find('v4 submit + callback', 'C', 64)
const v4py1 = find('v4 submit + callback', 'PYTHON3', 1)
const v4c1 = find('v4 submit + callback', 'C', 1)
const CORES = availableParallelism()
/** ' (bare toolchain floor: …)' after a latency or throughput figure, when the floor was measured. */
const floorNote = (lang: Lang, kind: 'latency' | 'rate') => {
  const f = floor?.[lang]
  if (!f) return ''
  return kind === 'latency' ? `  (bare floor ${f.total.toFixed(1)} ms)` : `  (bare ceiling ${((CORES * 1000) / f.total).toFixed(0)}/s)`
}
const targets = [
  { target: 'v4 PYTHON3 submission → REQUEST_COMPLETED p99 <= 2 s (c=1)', value: `${v4py1.p99.toFixed(0)} ms`, pass: v4py1.p99 <= 2000 },
  { target: 'v4 C submission → REQUEST_COMPLETED p99 <= 2 s (c=1)', value: `${v4c1.p99.toFixed(0)} ms`, pass: v4c1.p99 <= 2000 },
  { target: 'v3 PYTHON3 hello p50 <= 15 ms at c=1', value: `${v3py1.p50.toFixed(1)} ms${floorNote('PYTHON3', 'latency')}`, pass: v3py1.p50 <= 15 },
  { target: 'v3 PYTHON3 hello >= 120/s at c=4', value: `${v3py4.perSec.toFixed(0)}/s${floorNote('PYTHON3', 'rate')}`, pass: v3py4.perSec >= 120 },
  { target: 'v3 C compile+run p50 <= 45 ms (c=1)', value: `${v3c1.p50.toFixed(1)} ms${floorNote('C', 'latency')}`, pass: v3c1.p50 <= 45 },
  { target: 'v3 C compile+run >= 40/s at c=4', value: `${v3c4.perSec.toFixed(0)}/s${floorNote('C', 'rate')}`, pass: v3c4.perSec >= 40 },
  { target: 'v4 c=64 PYTHON3: every submission completes, none lost', value: `${v4py64.ok}/${v4py64.requests} AC, ${v4py64.lost} lost`, pass: v4py64.ok === v4py64.requests && v4py64.lost === 0 },
  { target: 'v4 c=64 PYTHON3 >= 90% of v3 c=4', value: `${((100 * v4py64.perSec) / v3py4.perSec).toFixed(0)}%`, pass: v4py64.perSec >= 0.9 * v3py4.perSec },
  { target: 'v4 c=64 C: every submission completes, none lost', value: `${v4c64.ok}/${v4c64.requests} AC, ${v4c64.lost} lost`, pass: v4c64.ok === v4c64.requests && v4c64.lost === 0 },
  { target: 'v4 c=64 C >= 90% of v3 c=4', value: `${((100 * v4c64.perSec) / v3c4.perSec).toFixed(0)}%`, pass: v4c64.perSec >= 0.9 * v3c4.perSec },
  { target: `server RSS < 200 MB with ${QUEUE} queued`, value: memory ? `${memory.rssPeakMb.toFixed(0)} MB peak` : 'n/a', pass: !!memory && memory.submitted === QUEUE && memory.rssPeakMb < 200 },
]

if (values.json) {
  const notAc = Object.fromEntries([...failures].map(([k, m]) => [k, Object.fromEntries(m)]))
  console.log(JSON.stringify({ rows, sandbox, floor, memory, targets, notAc }, null, 2))
} else {
  console.log(`bench-api: ${REQUESTS} requests per scenario (C v3: half; v4: at least 4 x c), server on ${server.url}, pool.size = cores (${CORES})`)
  if (sandbox) {
    console.log('\njailed run cost (bench-sandbox, 2 in parallel):')
    for (const s of sandbox) console.log(`  ${s.program.padEnd(24)} median ${s.jailed.median.toFixed(2)} ms, ${s.jailed.perSec.toFixed(0)} runs/s`)
  }
  if (floor) {
    console.log('\ntoolchain floor (bench-languages: hello world bare in its root, no jail, no HTTP; median of 9):')
    for (const [lang, f] of Object.entries(floor)) {
      const parts = f.compile === null ? `run ${f.run.toFixed(1)} ms` : `compile ${f.compile.toFixed(1)} ms + run ${f.run.toFixed(1)} ms`
      console.log(`  ${lang.padEnd(8)} ${parts} = ${f.total.toFixed(1)} ms; ${CORES} cores -> at most ${((CORES * 1000) / f.total).toFixed(0)}/s`)
    }
  }
  console.log('\nscenario                    | lang    |   c | ok/requests | lost |   req/s |  p50 ms |  p99 ms')
  console.log('----------------------------|---------|-----|-------------|------|---------|---------|--------')
  for (const r of rows) {
    console.log(
      `${r.scenario.padEnd(27)} | ${r.lang.padEnd(7)} | ${String(r.concurrency).padStart(3)} | ${`${r.ok}/${r.requests}`.padStart(11)} | ${(r.lost === undefined ? '-' : String(r.lost)).padStart(4)} | ${r.perSec.toFixed(1).padStart(7)} | ${r.p50.toFixed(1).padStart(7)} | ${r.p99.toFixed(1).padStart(7)}`
    )
  }
  if (memory) {
    console.log(
      `\nqueue of ${QUEUE}: submitted ${memory.submitted} at ${memory.submitPerSec.toFixed(0)}/s; server RSS ${memory.rssBeforeMb.toFixed(0)} MB before, ${memory.rssPeakMb.toFixed(0)} MB peak, ${memory.rssAfterMb.toFixed(0)} MB after (VmHWM ${memory.vmHwmMb.toFixed(0)} MB)`
    )
  }
  for (const [scenario, whys] of failures) for (const [why, n] of whys) console.log(`not AC in ${scenario}: ${n} x ${why}`)
  console.log('\ntargets:')
  for (const t of targets) console.log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.target.padEnd(60)} ${t.value}`)
}
process.exit(0)
