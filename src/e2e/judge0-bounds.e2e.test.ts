// Judge0's batch read against the real server: the worst requests its caps allow, several at once. One
// big submission (~3.2 MB stored: 600 KB of stdin and of expected output, 1 MB each of stdout and
// stderr) is named 20 times with fields=* and Base64 (a ~110 MB body before judge0.reply_max_bytes:
// 4 at once took the server from 163 MB to 1.43 GB and stalled /health 9.4 s), then as many times as
// the 16 MiB budget allows. The server's RSS growth and the slowest /health while they are in flight
// stay within the bounds stated in docs/api/judge0.md.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startServer, type RunningServer } from '../testing/harness.ts'

let server: RunningServer
let secret: string

beforeAll(async () => {
  server = await startServer()
  secret = await server.createClient('judge0-bounds')
}, 60_000)

afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024
const get = (path: string) => fetch(`${server.url}/judge0${path}`, { headers: { 'X-Auth-Token': secret } })

/**
 * /health timed from a process of its own (this one is busy receiving the replies, and its own event loop
 * must not count as the server's): it asks every 20 ms until stdin closes, then prints the slowest answer.
 */
const PROBE = `let max = 0, on = true
process.stdin.on('end', () => (on = false)).resume()
;(async () => {
  while (on) {
    const t = performance.now()
    await (await fetch(process.argv[1] + '/health')).text()
    max = Math.max(max, performance.now() - t)
    await new Promise((r) => setTimeout(r, 20))
  }
  process.stdout.write(String(max))
})()`

/** Runs burst() while sampling the server's RSS and timing /health; the peak growth and the slowest answer. */
async function underLoad<T>(burst: () => Promise<T>): Promise<{ result: T; growthMb: number; healthMs: number; beforeMb: number; peakMb: number }> {
  const beforeMb = rssMb()
  let peakMb = beforeMb
  let running = true
  const probe = spawn(process.execPath, ['-e', PROBE, server.url], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  probe.stdout.on('data', (d) => (out += d))
  const probed = new Promise<void>((r) => probe.on('exit', () => r()))
  const sampler = (async () => {
    while (running) {
      peakMb = Math.max(peakMb, rssMb())
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  const result = await burst()
  running = false
  probe.stdin.end()
  await Promise.all([sampler, probed])
  return { result, growthMb: peakMb - beforeMb, healthMs: Number(out), beforeMb, peakMb }
}

test('the worst batch reads the caps allow, several at once: the server stays within its bounds', { timeout: 300_000 }, async () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64')
  const program = 'import sys\nsys.stdin.read()\nsys.stdout.write("o" * 1_000_000)\nsys.stderr.write("e" * 1_000_000)\n'
  // three of them, so the allowed read below builds three replies, not one sent three times
  const tokens: string[] = []
  for (const c of 'abc') {
    const r = await fetch(`${server.url}/judge0/submissions?base64_encoded=true&wait=true&fields=token,status_id`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Auth-Token': secret },
      body: JSON.stringify({ language_id: 71, source_code: b64(program), stdin: b64(c.repeat(600_000)), expected_output: b64('x'.repeat(600_000)) }),
    })
    const { token, status_id } = (await r.json()) as { token: string; status_id: number }
    expect(status_id).toBe(4)
    tokens.push(token)
  }

  // 20 names of them, everything, Base64: refused before a row is read, 8 at once
  const worst = `/submissions/batch?tokens=${Array.from({ length: 20 }, (_, i) => tokens[i % 3]).join(',')}&fields=*&base64_encoded=true`
  const refused = await underLoad(() => Promise.all(Array.from({ length: 8 }, async () => {
    const res = await get(worst)
    return { status: res.status, body: await res.text() }
  })))
  for (const x of refused.result) expect([x.status, JSON.parse(x.body).error]).toEqual([413, expect.stringMatching(/^the reply would be larger than 16777216 bytes/)])

  // as many as fit in the budget (each ~4.4 MB of JSON): the three, 4 requests at once, three rounds
  const fits = `/submissions/batch?tokens=${tokens.join(',')}&fields=*&base64_encoded=true`
  const allowed = await underLoad(async () => {
    const sizes: number[] = []
    for (let round = 0; round < 3; round++) {
      sizes.push(...(await Promise.all(Array.from({ length: 4 }, async () => {
        const res = await get(fits)
        expect(res.status).toBe(200)
        // read whole, not parsed here: this process's own JSON work is not the server's
        const body = Buffer.from(await res.arrayBuffer())
        expect(body.length).toBe(Number(res.headers.get('content-length')))
        expect(body.subarray(0, 17).toString()).toBe('{"submissions":[{')
        return body.length
      }))))
    }
    return sizes
  })
  const replyMb = allowed.result[0] / 2 ** 20
  console.log(
    `judge0 bounds: 8 × 20-token reads refused, RSS +${refused.growthMb.toFixed(0)} MB (${refused.beforeMb.toFixed(0)} → ${refused.peakMb.toFixed(0)}), slowest /health ${refused.healthMs.toFixed(0)} ms; ` +
      `4 × 3-token reads (${replyMb.toFixed(1)} MB each) × 3 rounds, RSS +${allowed.growthMb.toFixed(0)} MB (${allowed.beforeMb.toFixed(0)} → ${allowed.peakMb.toFixed(0)}), slowest /health ${allowed.healthMs.toFixed(0)} ms`
  )
  expect(replyMb).toBeGreaterThan(12)
  // the bounds of docs/api/judge0.md. A refused read costs next to nothing. The allowed ones hold at most
  // their replies (4 × 13 MB in flight, each built one submission at a time) and take ~0.1 s of the main
  // thread each: /health waits behind a few of them (seconds only on a machine loaded many times over;
  // before the budget, 4 reads of one submission named 20 times took +1.27 GB and stalled /health 9.4 s)
  expect(refused.growthMb).toBeLessThan(60)
  expect(refused.healthMs).toBeLessThan(1500)
  expect(allowed.growthMb).toBeLessThan(200)
  expect(allowed.healthMs).toBeLessThan(4000)
})
