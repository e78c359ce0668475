// The wire protocols side by side on the same programs, in one run against one real server (real pool,
// real jail): HackerEarth v3 synchronous /code/run/ is the baseline; each other API is a column that
// runs the same program its own way (Judge0 CE: POST /judge0/submissions?wait=true; Piston: POST /piston/api/v2/execute). Windows of each
// column alternate, so a slow moment of this shared machine falls on all of them alike. Target: no API
// adds more than 10% to v3's p50.
// Each face (v3, v4 submitted and waited on to completion, Jobe, Judge0 wait=true, Piston) is also set
// against bare spawns on the host in the same run, alternating with them (--bare): host python3 on the
// source file, gcc then the program for C. p50_vs_bare is a column's p50 over the bare one at c=1;
// per_sec_vs_bare_2way its rate over bare spawns at 2-way parallelism (the bare column never runs more
// than 2 lanes), the rate the cores allow for the bare work alone.
// Where the time goes (c=1, means per request, from the server's /metrics sums read before and after each
// window: evaluation/phases.ts): the app's own time per request (http: from the request reaching the
// app to its reply built), the core's phases (accept, queued, claim, pool round trip, of which the
// jailed steps' own wall time, store), what is left in the app (waiting, notifying, reply building,
// validation, polls) and what is outside it (node's HTTP parsing and writing, loopback, the client);
// and the server's CPU per request (not wall time, so the load moves it less): its main thread, its
// other threads (the pool's workers, V8's and libuv's helpers) and its jail supervisors, the scrapes of
// /metrics left out. Each row's CPU a request: the whole machine's (cpu_machine_ms: /proc/stat), of which
// this bench's own process (cpu_bench_ms: the client side, and v4's callback receiver) and the server's,
// of which its main thread (cpu_main_ms), with the times the kernel woke that thread (main_wakes).
// v4 is measured as its clients wait: from the submit to its REQUEST_COMPLETED callback at a receiver in
// this process (--v4-poll MS: polling the status URL every MS ms instead, each poll a request the
// server answers; the breakdown's app_rest then holds the polls' cost).
// Usage: npx tsx scripts/bench-apis.ts [--requests 20] [--rounds 3] [--warmup 1500] [--concurrency 1,8] [--fresh] [--bare] [--exchanges] [--bare-python PATH] [--programs 'python3 hello,C hello'] [--v4-poll MS] [--faces v3,piston] [--cpu-prof DIR] [--client http|fetch] [--pool N] [--json]
//   --exchanges: one more column, no server's: two callback exchanges a request, the outbox's own sender
//   (postCallbackWithLead, src/jobs/callback.ts) POSTing the last v4 callback body this bench received to
//   its receiver twice, pipelined on one connection as a v4 job's two go. Its CPU a request (this process's, both ends) is
//   what v4's contract, two deliveries, costs before any row, look or record of the outbox: a floor under
//   v4's extra over v3, printed beside the 10% of v3's CPU that "within 1.1x the fastest face" leaves.
//   Both ends in one event loop, between the jails' runs rather than among them: low if anything.
//   --client: the requests' HTTP client (scripts/bench-http.ts): node:http with a keep-alive agent (default)
//   or fetch, which adds ~1 ms of its own to each round trip here.
//   --faces v3,piston: only these faces' columns (the first is the baseline of p50_vs_v3).
//   --pool N: the server's pool.size (default: the highest --concurrency, so no request of a window
//   waits for a pool thread; the service's own default is the machine's cores).
//   --cpu-prof DIR: the server runs with node's --cpu-prof, its main thread's profile (and the module
//   loader's thread's) written to DIR when it stops (open them in Chrome's DevTools or speedscope); the
//   pool's threads are ended by terminate(), which writes none: `perf record -g` with
//   --node-flags=--perf-basic-prof sees them (their native frames; a JS frame's name may be another
//   thread's, as the isolates share one map file).
//   --requests N: at c>1, a window's requests; at c=1, the requests of a round. 60 at c=4 gives the faces
//   an order that holds from run to run; 20 (the default, kept so earlier sets compare) is a quarter of a
//   second, short enough for any face to read as the fastest (docs/sandbox/performance.md, fourteenth look).
//   --c1-window N: requests per window at c=1 (default 1: the columns alternate request by request;
//   the /metrics sums are read once between two windows). At c>1 a window is --requests requests.
//   --warmup N: before a program's first window, N requests of it (default 1500) spread over the faces,
//   four at a time, not counted: the server is measured as it runs after its first minutes, not just
//   after its start (its JIT tiers up over the first ~1,500 requests: CPU per request 8.3–8.9 ms
//   before, 5.3–6.1 after, docs/sandbox/performance.md). --warmup 0: one of each, as before.
//   --fresh: a random tag in every source, so the compile cache never helps (by default every column
//   compiles the same source, so after the first request all of them run from the cache alike).
import { execFile, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { parseArgs } from 'node:util'
import { pistonColumn } from './bench-piston-part.ts'
import { benchClient, benchFetch, closeBenchClient, useBenchClient, type BenchClient } from './bench-http.ts'
import { postCallbackWithLead } from '../src/jobs/callback.ts'
import { startServer } from '../src/testing/harness.ts'
import { loadLanguages } from '../src/languages.ts'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,8' },
    fresh: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    bare: { type: 'boolean', default: false },
    exchanges: { type: 'boolean', default: false },
    programs: { type: 'string' },
    'bare-python': { type: 'string' },
    'v4-poll': { type: 'string' },
    'cpu-prof': { type: 'string' },
    // Node flags for the server after npm start's own, space-separated (an A/B of V8's settings)
    'node-flags': { type: 'string' },
    'c1-window': { type: 'string', default: '1' },
    warmup: { type: 'string', default: '1500' },
    faces: { type: 'string' },
    client: { type: 'string', default: 'http' },
    pool: { type: 'string' },
  },
})
useBenchClient(values.client as BenchClient)
const REQUESTS = Number(values.requests)
const ROUNDS = Number(values.rounds)
const LEVELS = values.concurrency.split(',').map(Number)
/**
 * Requests per window at c=1 (the same total, rounds × requests, in more rounds): one by default, so
 * the columns alternate request by request and a slow moment of the shared machine hits them alike.
 */
const C1_WINDOW = Math.max(1, Math.min(REQUESTS, Number(values['c1-window'])))
/** Requests of each program before its first window, spread over the faces (not counted). */
const WARMUP = Number(values.warmup)
if (!Number.isInteger(WARMUP) || WARMUP < 0) throw new Error('--warmup: a whole number of requests, 0 or more')

export interface BenchProgram {
  /** Arbiter's code (v3 lang). */
  code: string
  /** The Judge0 id that runs `code` (Judge0's 50 is gcc 9: C, gcc 14, is Arbiter's own 1007). */
  judge0: number
  /** Jobe's language_id. */
  jobe: string
  /**
   * Jobe's parameters that make its run the same job as the other faces' (Jobe's own C defaults compile
   * without -O2: 40 ms against 47 here, a different job, not a faster face).
   */
  jobeParameters?: { compileargs: string[]; linkargs: string[] }
  source: string
  /** How a line comment starts, for the --fresh tag. */
  comment: string
  expect: string
}

/** The manifest's own C flags (toolchains/languages/gcc.toml) as Jobe's parameters; Jobe puts -fuse-ld=gold first. */
function manifestCFlags(): { compileargs: string[]; linkargs: string[] } {
  const argv = loadLanguages().get('C')?.compile
  const o = argv?.indexOf('-o') ?? -1
  if (!argv || o < 0) throw new Error("the manifest's C has no compile step of the form gcc FLAGS -o OUT SRC LIBS")
  return { compileargs: argv.slice(1, o).filter((a) => !a.startsWith('-fuse-ld=')), linkargs: argv.slice(o + 3) }
}
const SAME_C = manifestCFlags()

export const PROGRAMS: Record<string, BenchProgram> = {
  'python3 hello': { code: 'PYTHON3', judge0: 71, jobe: 'python3', comment: '#', source: 'print("hello")\n', expect: 'hello\n' },
  'C hello': { code: 'C', judge0: 1007, jobe: 'c', jobeParameters: SAME_C, comment: '//', source: '#include <stdio.h>\nint main(void){puts("hello");return 0;}\n', expect: 'hello\n' },
  // spins until it has used 0.3 s of CPU, whatever the machine's speed
  'C 0.3 s CPU': {
    code: 'C',
    judge0: 1007,
    jobe: 'c',
    jobeParameters: SAME_C,
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
  /** A reference set beside the faces (bare spawns, bare exchanges), not a face: no server sums, no target. */
  reference?: true
  once(url: string, secret: string, p: BenchProgram, source: string): Promise<Outcome>
}

/** The baseline: v3 synchronous /code/run/. */
export const v3Column: Column = {
  name: 'v3',
  async once(url, secret, p, source) {
    const r = await benchFetch(`${url}/code/run/`, { method: 'POST', body: new URLSearchParams({ client_secret: secret, lang: p.code, source }) })
    const body = (await r.json()) as { run_status?: { status?: string; output?: string } }
    if (r.status !== 200) return { ok: false, why: `HTTP ${r.status}` }
    return body.run_status?.status === 'AC' && body.run_status.output === p.expect ? { ok: true } : { ok: false, why: `v3 ${body.run_status?.status}` }
  },
}

/** Judge0 CE: create with wait=true, the reply's stdout and status checked. */
export const judge0Column: Column = {
  name: 'judge0',
  async once(url, secret, p, source) {
    const r = await benchFetch(`${url}/judge0/submissions?wait=true&fields=stdout,status`, {
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

// The v4 callback receiver: each REQUEST_COMPLETED callback resolves its he_id's waiter (the
// CODE_COMPILED one, which always comes first, is answered and dropped).
type V4Completed = { result: { run_status: { status: string } } }
/** The last v4 callback's body and headers received: what the --exchanges column sends. */
let lastCallback: { body: string; headers: Record<string, string> } | undefined
const v4Waiters = new Map<string, (body: V4Completed) => void>()
const v4Early = new Map<string, V4Completed>()
const receiver = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    res.writeHead(200).end()
    const event = req.headers['x-arbiter-event']
    if (event === 'CODE_COMPILED' || event === 'REQUEST_COMPLETED')
      lastCallback = { body, headers: { 'x-arbiter-event': 'BENCH_EXCHANGE', 'x-arbiter-he-id': String(req.headers['x-arbiter-he-id']) } }
    if (event !== 'REQUEST_COMPLETED') return
    const id = String(req.headers['x-arbiter-he-id'])
    const parsed = JSON.parse(body) as V4Completed
    const w = v4Waiters.get(id)
    if (w) {
      v4Waiters.delete(id)
      w(parsed)
    } else v4Early.set(id, parsed)
  })
})
receiver.keepAliveTimeout = 60_000
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`
const V4_POLL_MS = values['v4-poll'] === undefined ? undefined : Number(values['v4-poll'])

const v4Completed = (publicId: string) =>
  new Promise<V4Completed | undefined>((resolve) => {
    const got = v4Early.get(publicId)
    if (got) {
      v4Early.delete(publicId)
      return resolve(got)
    }
    const timer = setTimeout(() => {
      v4Waiters.delete(publicId)
      resolve(undefined)
    }, 60_000)
    v4Waiters.set(publicId, (body) => {
      clearTimeout(timer)
      resolve(body)
    })
  })

/**
 * HackerEarth v4: submit, then wait to completion: for its REQUEST_COMPLETED callback (by default), or
 * polling the status URL every --v4-poll ms.
 */
export const v4Column: Column = {
  name: 'v4',
  async once(url, secret, p, source) {
    const headers = { 'client-secret': secret, 'content-type': 'application/json' }
    const poll = V4_POLL_MS !== undefined
    const r = await benchFetch(`${url}${V4_PATH}`, { method: 'POST', headers, body: JSON.stringify({ lang: p.code, source, ...(poll ? {} : { callback: callbackUrl }) }) })
    const q = (await r.json()) as { he_id?: string; status_update_url?: string }
    if (r.status !== 200 || !q.status_update_url || !q.he_id) return { ok: false, why: `HTTP ${r.status}` }
    // v4's output is a link to the output file: the status is checked, the output not fetched
    const verdict = (rs: { status: string }): Outcome => (rs.status === 'AC' ? { ok: true } : { ok: false, why: `v4 ${rs.status}` })
    if (!poll) {
      const done = await v4Completed(q.he_id)
      return done ? verdict(done.result.run_status) : { ok: false, why: 'v4 no callback in 60 s' }
    }
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      const s = (await (await benchFetch(q.status_update_url, { headers })).json()) as { request_status: { code: string }; result: { run_status: { status: string } } }
      if (s.request_status.code === 'REQUEST_COMPLETED') return verdict(s.result.run_status)
      await new Promise((res) => setTimeout(res, V4_POLL_MS))
    }
    return { ok: false, why: 'v4 not completed in 60 s' }
  },
}

/** Jobe: POST runs as CodeRunner does, outcome 15 and stdout checked. */
export const jobeColumn: Column = {
  name: 'jobe',
  async once(url, secret, p, source) {
    const r = await benchFetch(`${url}/jobe/index.php/restapi/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8', Accept: 'application/json', 'X-API-KEY': secret },
      body: JSON.stringify({
        run_spec: { language_id: p.jobe, sourcecode: source, input: '', ...(p.jobeParameters ? { parameters: p.jobeParameters } : {}) },
      }),
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
  reference: true,
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

/**
 * No server: a v4 job's two callback exchanges (its CODE_COMPILED, then its REQUEST_COMPLETED) as the
 * outbox sends them, a lead and its request pipelined on one connection (postCallbackWithLead), to this
 * bench's receiver, with the last v4 callback's body.
 */
export const exchangesColumn: Column = {
  name: 'exchanges',
  reference: true,
  async once() {
    const body = lastCallback?.body ?? JSON.stringify({ filler: 'x'.repeat(900) })
    const headers = lastCallback?.headers ?? { 'x-arbiter-event': 'BENCH_EXCHANGE' }
    await postCallbackWithLead({ url: callbackUrl, body, contentType: 'application/json', headers, timeoutMs: 10_000 }, { body, headers })
    return { ok: true }
  },
}

/** Every column, baseline first (a new API adds its column here). */
const ALL_COLUMNS: Column[] = [
  v3Column,
  v4Column,
  jobeColumn,
  judge0Column,
  pistonColumn,
  ...(values.bare ? [bareColumn] : []),
  ...(values.exchanges ? [exchangesColumn] : []),
]
export const COLUMNS = ALL_COLUMNS.filter((col) => !values.faces || col.reference || values.faces.split(',').includes(col.name))

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

interface Tally {
  times: number[]
  ok: number
  seconds: number
  failures: Map<string, number>
  /** The server's sums over this column's windows, and the requests they cover. */
  spent: Sums
  measured: number
  /** The whole machine's busy CPU over this column's windows (seconds): server, jails, the bench itself. */
  machine: number
  /** This bench's own process CPU over those windows (seconds): its client and v4's callback receiver. */
  bench: number
}

/**
 * The sums the breakdown reads, in seconds: from /metrics, and the CPU the server's process has used
 * (its main thread; its other threads: the pool's workers, V8's and libuv's helpers; its jail
 * supervisors), from the kernel's per-thread run time (/proc/…/schedstat, ns); and `wakes`, how many
 * times the kernel put the main thread on a CPU (schedstat's third field): each a wake-up of the event
 * loop, or its return after being preempted.
 */
type Sums = Record<'http' | 'jail' | 'accept' | 'queued' | 'claim' | 'pool' | 'store' | 'cpuMain' | 'cpuThreads' | 'cpuSupervisors' | 'wakes', number>
const ZERO: Sums = { http: 0, jail: 0, accept: 0, queued: 0, claim: 0, pool: 0, store: 0, cpuMain: 0, cpuThreads: 0, cpuSupervisors: 0, wakes: 0 }

const ranNs = (path: string) => {
  try {
    return Number(readFileSync(path, 'utf8').split(' ')[0])
  } catch {
    return 0 // a thread or process that ended since the listing
  }
}

/** The CPU the server's threads and its supervisor processes have used so far, in seconds. */
function serverCpu(pid: number): Pick<Sums, 'cpuMain' | 'cpuThreads' | 'cpuSupervisors' | 'wakes'> {
  let main = 0
  let threads = 0
  let supervisors = 0
  const children: string[] = []
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const ns = ranNs(`/proc/${pid}/task/${tid}/schedstat`)
    if (tid === String(pid)) main += ns
    else threads += ns
    try {
      children.push(...readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean))
    } catch {
      // ended
    }
  }
  for (const child of children) {
    try {
      if (readFileSync(`/proc/${child}/comm`, 'utf8').startsWith('arbiter-super')) supervisors += ranNs(`/proc/${child}/schedstat`)
    } catch {
      // ended
    }
  }
  const wakes = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ')[2])
  return { cpuMain: main / 1e9, cpuThreads: threads / 1e9, cpuSupervisors: supervisors / 1e9, wakes }
}

/**
 * Seconds every CPU of the machine has been busy so far (/proc/stat: user, nice, system, irq, softirq;
 * not idle, I/O wait or the hypervisor's steal). At c=4 the cores are saturated, so a column's rate is
 * the cores over this per request: what it spends beyond a bare spawn is what keeps it under bare's rate.
 */
function machineBusy(): number {
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  return (user! + nice! + system! + irq! + softirq!) / 100 // USER_HZ: 100 on Linux
}

/** The CPU the scrapes of /metrics themselves took so far: no request's, left out of every window. */
const scraped = { cpuMain: 0, cpuThreads: 0, cpuSupervisors: 0, wakes: 0 }

/** The server's sums now (its /metrics is open to the bench: its own server, on loopback). */
async function sums(url: string): Promise<Sums> {
  const before = serverCpu(server.pid)
  const text = await (await benchFetch(`${url}/metrics`)).text()
  const cpu = serverCpu(server.pid)
  for (const k of Object.keys(scraped) as (keyof typeof scraped)[]) {
    scraped[k] += cpu[k] - before[k]
    cpu[k] -= scraped[k]
  }
  const out = { ...ZERO, ...cpu }
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

/** The sums read at the end of the last server window: the next one's start (nothing runs between). */
let lastSums: Sums | undefined

/** One window: `total` requests on `lanes` concurrent lanes. */
async function window(col: Column, url: string, secret: string, p: BenchProgram, lanes: number, total: number, into: Tally) {
  let next = 0
  const before = col.reference ? undefined : (lastSums ?? (await sums(url)))
  const okBefore = into.ok
  const started = performance.now()
  const busyBefore = machineBusy()
  const benchBefore = process.cpuUsage()
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
  into.machine += machineBusy() - busyBefore
  const benchUsed = process.cpuUsage(benchBefore)
  into.bench += (benchUsed.user + benchUsed.system) / 1e6
  if (before) {
    const after = (lastSums = await sums(url))
    for (const k of Object.keys(ZERO) as (keyof Sums)[]) into.spent[k] += after[k] - before[k]
    into.measured += into.ok - okBefore
  }
}

const profDir = values['cpu-prof'] && resolve(values['cpu-prof'])
if (profDir) mkdirSync(profDir, { recursive: true })
const server = await startServer({
  configToml: `[pool]\nsize = ${values.pool ? Number(values.pool) : Math.max(...LEVELS)}\n[metrics]\nopen = true\n`,
  nodeFlags: [...(values['node-flags']?.split(' ').filter(Boolean) ?? []), ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [])],
})
const rows: Record<string, unknown>[] = []
const breakdown: Record<string, unknown>[] = []
/** The bare column's p50 at c=1, per program: what every level's p50 is set against. */
const bareP50AtOne = new Map<string, number>()
try {
  const secret = await server.createClient('bench-apis')
  const only = values.programs?.split(',')
  for (const [name, p] of Object.entries(PROGRAMS).filter(([n]) => !only || only.includes(n))) {
    // warm-up: one of each (the first compile, the language's first start), then --warmup more spread
    // over the server's faces, four lanes, fresh sources as the windows have them (not counted)
    for (const col of COLUMNS) await col.once(server.url, secret, p, p.source)
    const faces = COLUMNS.filter((col) => !col.reference)
    let warmed = 0
    const warmFailures = new Map<string, number>()
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (warmed < WARMUP) {
          const col = faces[warmed++ % faces.length]!
          const source = values.fresh ? `${p.comment} ${randomBytes(8).toString('hex')}\n${p.source}` : p.source
          const out = await col.once(server.url, secret, p, source).catch((e: Error) => ({ ok: false as const, why: e.message }))
          if (!out.ok) warmFailures.set(out.why, (warmFailures.get(out.why) ?? 0) + 1)
        }
      })
    )
    if (warmFailures.size) process.stderr.write(`warm-up of ${name}: failures ${JSON.stringify(Object.fromEntries(warmFailures))}\n`)
    for (const c of LEVELS) {
      const tallies = new Map(COLUMNS.map((col) => [col.name, { times: [], ok: 0, seconds: 0, failures: new Map(), spent: { ...ZERO }, measured: 0, machine: 0, bench: 0 } as Tally]))
      const perWindow = c === 1 ? C1_WINDOW : REQUESTS
      const rounds = Math.ceil((ROUNDS * REQUESTS) / perWindow)
      lastSums = undefined
      for (let round = 0; round < rounds; round++) {
        // alternate the order each round so neither side always runs first
        const order = round % 2 ? [...COLUMNS].reverse() : COLUMNS
        for (const col of order) await window(col, server.url, secret, p, c, perWindow, tallies.get(col.name)!)
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
            // v4 runs outside any request (answered queued, then called back or polled): what is left
            // is the submit's own rest and its polls'
            app_rest_ms: col.name === 'v4' ? ms(sp.http - sp.accept) : ms(sp.http - core),
            accept_ms: ms(sp.accept),
            queued_ms: ms(sp.queued),
            claim_ms: ms(sp.claim),
            pool_ms: ms(sp.pool),
            jail_steps_ms: ms(sp.jail),
            pool_not_jail_ms: ms(sp.pool - sp.jail),
            store_ms: ms(sp.store),
            // the server's CPU per request (not wall time: what it costs whatever the load)
            cpu_main_ms: ms(sp.cpuMain),
            cpu_threads_ms: ms(sp.cpuThreads),
            cpu_supervisors_ms: ms(sp.cpuSupervisors),
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
          ok: `${t.ok}/${t.ok + [...t.failures.values()].reduce((a, b) => a + b, 0)}`,
          p50_ms: Math.round(p50 * 10) / 10,
          p99_ms: Math.round(quantile(t.times, 0.99) * 10) / 10,
          per_sec: Math.round((t.ok / t.seconds) * 10) / 10,
          p50_vs_v3: Math.round((p50 / baseP50) * 100) / 100,
          // CPU per request: the whole machine's (server, jails, this bench's client and receiver) and the
          // server's own (its threads and supervisors); at c=4 the rate is the cores over the first
          cpu_machine_ms: Math.round(((t.machine * 1000) / t.ok) * 100) / 100,
          // of which this bench's own process: a face's client side (v4's: its submit and the receiver
          // answering two callbacks), on the same two cores as the server here
          cpu_bench_ms: Math.round(((t.bench * 1000) / t.ok) * 100) / 100,
          ...(t.measured && { cpu_server_ms: Math.round((((t.spent.cpuMain + t.spent.cpuThreads + t.spent.cpuSupervisors) * 1000) / t.measured) * 100) / 100 }),
          // the main thread's part, and its wake-ups a request (the event loop's: v4's callbacks' answers add two)
          ...(t.measured && { cpu_main_ms: Math.round(((t.spent.cpuMain * 1000) / t.measured) * 100) / 100, main_wakes: Math.round((t.spent.wakes / t.measured) * 10) / 10 }),
          ...(bare && { p50_vs_bare: Math.round((p50 / (bareP50AtOne.get(name) ?? bareP50!)) * 100) / 100, per_sec_vs_bare_2way: Math.round((t.ok / t.seconds / bareRate!) * 100) / 100 }),
          ...(t.failures.size ? { failures: Object.fromEntries(t.failures) } : {}),
        })
      }
    }
  }
} finally {
  await server.stop()
  server.cleanup()
  receiver.close()
  receiver.closeAllConnections()
  closeBenchClient()
}

if (values.json) console.log(JSON.stringify({ client: benchClient(), warmup: WARMUP, rows, breakdown }, null, 2))
else {
  console.log(`client: ${benchClient() === 'http' ? 'node:http with a keep-alive agent' : 'fetch'} (--client); warm-up: ${WARMUP} requests of each program before its windows (--warmup)`)
  console.table(rows)
  console.log('where the time goes at c=1 (ms per request, means; app = from the request reaching the app to its reply built):')
  console.table(breakdown)
  const references = new Set(COLUMNS.filter((col) => col.reference).map((col) => col.name))
  const over = rows.filter((r) => r.api !== COLUMNS[0]!.name && !references.has(r.api as string) && (r.p50_vs_v3 as number) > 1.1)
  if (values.exchanges)
    for (const r of rows.filter((r) => r.api === 'exchanges')) {
      const of = (api: string) => rows.find((o) => o.api === api && o.program === r.program && o.concurrency === r.concurrency)?.cpu_machine_ms as number | undefined
      const v3 = of(COLUMNS[0]!.name)
      const v4 = of('v4')
      // this process's own CPU (both ends are in it): /proc/stat counts in 10 ms ticks, too coarse for
      // windows this short; the loopback's kernel work is done in its system calls and counted there
      const floor = r.cpu_bench_ms as number
      if (v3 !== undefined)
        console.log(
          `${r.program} c=${r.concurrency}: two bare callback exchanges ${floor} ms of CPU; 10% of v3's machine CPU (${v3} ms) is ${Math.round(v3 * 10) / 100}` +
            (v4 !== undefined ? `; v4 over v3 ${Math.round((v4 - v3) * 100) / 100}` : '')
        )
    }
  console.log(over.length ? `over the 1.1 × v3 p50 target: ${over.map((r) => `${r.api} ${r.program} c=${r.concurrency} (${r.p50_vs_v3})`).join(', ')}` : 'every API within 1.1 × v3 p50')
}
