// The worst requests the v3 and v4 faces' caps allow, many at once, through the real server: the
// largest source (limits.source_max_bytes) with the largest stdin (limits.input_max_bytes), a program
// that prints its stdin back (just under the output cap), v3 waiting for the result and v4 calling
// back a receiver that answers 200 and then streams forever. The server's memory and its /health
// latency stay within the bounds stated in docs/api/hackerearth.md ("Sizes and bounds"), and every
// callback is settled on its status and its connection closed, never read on.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const V4 = '/v4/partner/code-evaluation/submissions/'
const SOURCE_MAX = 262_144
const INPUT_MAX = 1_048_576
const AT_ONCE = 8 // of each face: 16 requests of ~1.3 MB in flight together
// the stated bounds (docs/api/hackerearth.md, "Sizes and bounds"): the server's RSS grows by at most
// this over its idle figure while all of them are in flight and answered (measured +72 to +77 MB), and
// /health answers within this meanwhile (measured 2.4 to 3.5 s at most, on a 2-core machine loaded
// 14-18 times over by other tests: each such request costs the main thread ~0.3 s, see the docs)
const RSS_GROWTH_MB = 200
const HEALTH_MS = 6000

// asks URL every 50 ms (one at a time) until its stdin ends, then prints the latencies (ms) as JSON;
// a request not answered at all counts as the time until it failed
const HEALTH_SAMPLER = `
const url = process.argv[1], times = []
let going = true
process.stdin.on('end', () => (going = false)).resume()
;(async () => {
  while (going) {
    const t = Date.now()
    try { await (await fetch(url, { signal: AbortSignal.timeout(60000) })).arrayBuffer() } catch {}
    times.push(Date.now() - t)
  }
  process.stdout.write(JSON.stringify(times))
})()
`

let server: RunningServer
let http: ReturnType<typeof api>
let secret: string
let receiver: Server
let receiverUrl = ''
const connections: { opened: number; closed: number; written: number; delivery: string }[] = []

beforeAll(async () => {
  server = await startServer({ configToml: '[outbox]\ntimeout_ms = 10000' })
  http = api(server.url)
  secret = await server.createClient('worst-request', 100_000)
  // answers 200 at once, then writes as fast as the server reads, until the server hangs up
  const chunk = Buffer.alloc(64 * 1024, 'x')
  receiver = createServer((req, res) => {
    req.resume()
    const c = { opened: Date.now(), closed: 0, written: 0, delivery: String(req.headers['x-arbiter-delivery']) }
    connections.push(c)
    // the connection's close: a REQUEST_COMPLETED pipelined behind its lead is answered (queued by
    // node:http) on the lead's connection, and ends with it
    req.socket.once('close', () => (c.closed = Date.now()))
    res.writeHead(200, { 'content-type': 'text/plain' })
    const pump = () => {
      while (!res.destroyed) {
        c.written += chunk.length
        if (!res.write(chunk)) return void res.once('drain', pump)
      }
    }
    pump()
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`
}, 60_000)

afterAll(async () => {
  receiver?.closeAllConnections()
  await new Promise((r) => receiver?.close(r))
  await server?.stop()
  server?.cleanup()
})

const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024

/** A source of exactly SOURCE_MAX bytes that prints its stdin back; and stdin of exactly INPUT_MAX. */
function worst(tag: string) {
  // what it prints stays just under the output cap (limits.output_cap_bytes, 1 MiB; reaching it is RE SIGXFSZ)
  const code = `import sys\nsys.stdout.write(sys.stdin.read()[:1_000_000])\n# ${tag}\n`
  const source = code + '#'.repeat(SOURCE_MAX - Buffer.byteLength(code) - 1) + '\n'
  const input = `${tag}\n`.padEnd(INPUT_MAX, 'y')
  expect(Buffer.byteLength(source)).toBe(SOURCE_MAX)
  expect(Buffer.byteLength(input)).toBe(INPUT_MAX)
  return { source, input }
}

test('16 of the largest v3 and v4 requests at once: bounded memory, /health answers, callbacks settled and cut off', { timeout: 600_000 }, async () => {
  // warm: one small run of each face, so that the idle figure is the running server's
  const warm = await http.post('/code/run/', new URLSearchParams({ client_secret: secret, lang: 'PYTHON3', source: 'print(1)', async: '0' }))
  expect(warm.status).toBe(200)
  await json(warm)
  const idle = rssMb()

  let peak = idle
  let sampling = true
  const rssSampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, rssMb())
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  // /health is asked from a process of its own every 50 ms: this one is busy building and reading the
  // requests, and its own event loop would count in the latencies
  const health = spawn(process.execPath, ['-e', HEALTH_SAMPLER, `${server.url}/health`], { stdio: ['pipe', 'pipe', 'inherit'] })
  let healthOut = ''
  health.stdout.on('data', (d) => (healthOut += d))
  const healthDone = new Promise((r) => health.on('close', r))
  const sampler = (async () => {
    await rssSampler
    health.stdin.end()
    await healthDone
  })()
  try {
    const v3 = Array.from({ length: AT_ONCE }, async (_, i) => {
      const { source, input } = worst(`v3-${i}`)
      const r = await http.post('/code/run/', JSON.stringify({ client_secret: secret, lang: 'PYTHON3', source, input, async: 0, time_limit: 5 }), { 'content-type': 'application/json' })
      const body = await json(r)
      expect(r.status, JSON.stringify(body).slice(0, 300)).toBe(200)
      return body as { run_status: { status: string; output: string } }
    })
    const v4 = Array.from({ length: AT_ONCE }, async (_, i) => {
      const { source, input } = worst(`v4-${i}`)
      const r = await http.post(V4, JSON.stringify({ lang: 'PYTHON3', source, input, callback: receiverUrl, time_limit: 5 }), { 'client-secret': secret, 'content-type': 'application/json' })
      const body = await json(r)
      expect(r.status, JSON.stringify(body).slice(0, 300)).toBe(200)
      return body.he_id as string
    })
    const [v3Replies, ids] = await Promise.all([Promise.all(v3), Promise.all(v4)])
    for (const [i, b] of v3Replies.entries()) {
      expect(b.run_status.status, JSON.stringify({ ...b.run_status, output: b.run_status.output.slice(0, 100) })).toBe('AC')
      expect(b.run_status.output.startsWith(`v3-${i}\n`)).toBe(true)
    }
    // every v4 submission done and both of its callbacks (compiled, completed) delivered: a short
    // job's CODE_COMPILED rides as the lead of its REQUEST_COMPLETED's row, a longer one's has a row
    // of its own, so the receiver's requests are counted, and no callback row is left unsettled
    await waitUntil(
      () =>
        new Set(connections.map((c) => c.delivery)).size >= 2 * AT_ONCE &&
        server.query<{ n: number }>("select count(*) n from outbox where kind = 'callback' and state != 'delivered'")[0].n === 0,
      300_000,
      'every callback delivered'
    )
    for (const id of ids) {
      const done = await json(await http.get(`${V4}${id}/`, { 'client-secret': secret }))
      expect(done.request_status.code).toBe('REQUEST_COMPLETED')
      expect(done.result.run_status.status).toBe('AC')
    }
  } finally {
    sampling = false
    await sampler
  }
  peak = Math.max(peak, rssMb())

  const latencies = JSON.parse(healthOut) as number[]
  const slowest = Math.max(...latencies)
  expect(latencies.length).toBeGreaterThan(10)
  // each delivery was one attempt: settled on the 200, not failed by its timeout (a lead is tried
  // once, before its row's own attempt, and only that attempt is recorded)
  const rows = server.query<{ n: number; leads: number }>("select count(*) n, count(lead_json) leads from outbox where kind = 'callback'")[0]
  expect(rows.n + rows.leads).toBe(2 * AT_ONCE)
  // each delivery reached the receiver: a lead's REQUEST_COMPLETED, written behind it on its connection,
  // may come a second time on a new one when the lead's endless answer is cut, with the same delivery id
  const deliveries = new Set(connections.map((c) => c.delivery))
  expect(deliveries.size).toBe(2 * AT_ONCE)
  expect(connections.length).toBeLessThanOrEqual(2 * AT_ONCE + rows.leads)
  const attempts = server.query<{ n: number }>("select count(*) n from outbox_attempts a join outbox o on o.id = a.outbox_id where o.kind = 'callback'")[0].n
  expect(attempts).toBe(rows.n)
  // the receiver's connections were closed by the server soon after it answered, not read for the
  // delivery's 10 s: the server read at most 4 KB of each (the rest is the loopback's buffers)
  await waitUntil(() => connections.every((c) => c.closed > 0), 20_000, 'the receiver connections closed')
  for (const c of connections) {
    expect(c.closed - c.opened).toBeLessThan(5000)
    expect(c.written).toBeLessThan(32 << 20)
  }
  console.log(
    `worst requests: RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(peak - idle).toFixed(0)}); /health slowest ${slowest} ms; ` +
      `receiver wrote at most ${(Math.max(...connections.map((c) => c.written)) / 1048576).toFixed(1)} MiB a connection, closed after at most ${Math.max(...connections.map((c) => c.closed - c.opened))} ms`
  )
  expect(peak - idle, `RSS ${idle.toFixed(0)} → ${peak.toFixed(0)} MB`).toBeLessThan(RSS_GROWTH_MB)
  expect(slowest).toBeLessThan(HEALTH_MS)
})
