// Abusive requests against the real server: nesting that cannot be echoed,
// uploads cut off mid-body, limits that would round to "no limit", and the headers every reply carries.
// None may answer 500 or log an internal error with a stack.
import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

let server: RunningServer
let secret: string
let http: ReturnType<typeof api>

beforeAll(async () => {
  server = await startServer()
  http = api(server.url)
  secret = await server.createClient('abuse-e2e')
}, 60_000)

afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

const internalErrors = () => server.output().split('\n').filter((l) => /unhandled|"stack"|InternalServerError/.test(l))
const V4 = '/v4/partner/code-evaluation/submissions/'
const INTERVIEWS = '/partner/service/interviews/'

/** A JSON text nesting `depth` arrays around a value (built as text: the value itself could not be stringified). */
const nested = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth)

describe('deeply nested JSON', () => {
  const fields = ['source', 'lang', 'input', 'time_limit', 'memory_limit', 'id', 'callback', 'context', 'client_secret', 'async']
  test.each([10_000, 100_000])('%d levels in any v3/v4 field: a 4xx in the area shape, never a 500', async (depth) => {
    for (const field of fields) {
      const base: Record<string, string> = { source: '"print(1)"', lang: '"PYTHON3"', client_secret: JSON.stringify(secret) }
      const text = `{${Object.entries({ ...base, [field]: nested(depth) }).map(([k, v]) => `"${k}":${v}`).join(',')}}`
      const v3 = await fetch(`${server.url}/code/run/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
      expect([field, v3.status]).toEqual([field, 400])
      const v3Body = await json(v3)
      expect(v3Body.message).toMatch(/^InvalidArgumentError: /)
      expect(JSON.stringify(v3Body).length).toBeLessThan(1000)
      const v4 = await fetch(`${server.url}${V4}`, { method: 'POST', headers: { 'content-type': 'application/json', 'client-secret': secret }, body: text })
      expect([field, v4.status]).toEqual([field, 400])
      expect((await json(v4)).request_status).toEqual({ code: 'REQUEST_FAILED', message: expect.stringMatching(/^InvalidArgumentError: /) })
    }
    // interview bodies: the envelope's BADDATA
    for (const [method, path] of [['POST', INTERVIEWS], ['PUT', `${INTERVIEWS}x/`], ['DELETE', `${INTERVIEWS}x/`], ['POST', `${INTERVIEWS}x/report/`]] as const) {
      const r = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: `{"client_id":"a","client_secret":"b","title":${nested(depth)}}` })
      expect([path, r.status]).toEqual([path, 400])
      expect((await json(r)).ecode).toEqual(['BADDATA'])
    }
    // nothing was stored, nothing logged as our fault
    expect(server.query<{ n: number }>('select count(*) n from submissions')[0].n).toBe(0)
    expect(internalErrors()).toEqual([])
  })

  test('an id or context nested 32 levels is still accepted and echoed as sent', async () => {
    const context = JSON.parse(nested(30))
    const r = await http.post(V4, JSON.stringify({ source: 'print(1)', lang: 'PYTHON3', context }), { 'client-secret': secret, 'content-type': 'application/json' })
    expect(r.status).toBe(200)
    expect((await json(r)).context).toEqual(context)
  })
})

test('an upload cut off mid-body is not our fault: no 500, nothing logged as internal', async () => {
  for (const path of ['/code/run/', V4, INTERVIEWS]) {
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"source":"`)
        setTimeout(() => socket.destroy(), 100)
      })
      socket.on('close', () => resolve())
      socket.on('error', () => resolve())
    })
  }
  // the server is still fine, and said nothing about an internal error
  await waitUntil(async () => (await fetch(`${server.url}/health`)).ok)
  await new Promise((r) => setTimeout(r, 300))
  expect(internalErrors()).toEqual([])
})

describe('replies', () => {
  test('every reply says nosniff (JSON, HTML, errors, text)', async () => {
    for (const path of ['/', '/health', '/openapi.json', '/nope', '/v4/', '/view/nope', V4 + 'nope/']) {
      const r = await fetch(`${server.url}${path}`, { headers: { 'client-secret': secret } })
      expect([path, r.headers.get('x-content-type-options')]).toEqual([path, 'nosniff'])
    }
    const posted = await http.post('/code/run/', new URLSearchParams({ client_secret: 'x'.repeat(40), source: 'x', lang: 'C' }))
    expect(posted.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test.each(['GET', 'POST'])('%s /v4/ answers the v4 error body with request_status', async (method) => {
    for (const path of ['/v4/', '/v4']) {
      const r = await fetch(`${server.url}${path}`, { method })
      expect(r.status).toBe(404)
      expect(await json(r)).toEqual({ message: 'NotFoundError: no such endpoint', errors: {}, request_status: { code: 'REQUEST_FAILED', message: 'NotFoundError: no such endpoint' } })
    }
  })

  test('the 404 page of an unknown /view/<id> has the code view\'s Content-Security-Policy', async () => {
    const r = await fetch(`${server.url}/view/does-not-exist`)
    expect(r.status).toBe(404)
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'none'/)
  })

  test('a v3 error never echoes the client_secret whole', async () => {
    const sent = 'a1b2'.repeat(10)
    const r = await http.post('/code/run/', new URLSearchParams({ client_secret: sent, source: 'x', lang: 'C' }))
    const text = await r.text()
    expect(text).not.toContain(sent)
    expect(JSON.parse(text).errors).toEqual({ client_secret: 'a1b2…' })
  })
})

test('memory_limit 0.4 (or "0.4", 0.49) cannot switch the memory limit off: 400 MB is MLE, not AC', async () => {
  const source = 'b = bytearray(400 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint(len(b))'
  for (const memory_limit of ['0.4', '0.49']) {
    const r = await http.post('/code/run/', new URLSearchParams({ client_secret: secret, source, lang: 'PYTHON3', memory_limit }))
    const body = await json(r)
    expect(body.run_status.memory_limit).toBe(16384)
    expect(body.run_status.status).not.toBe('AC')
    expect(body.run_status, JSON.stringify(body.run_status)).toMatchObject({ status: 'MLE' })
  }
  const v4 = await http.post(V4, JSON.stringify({ source, lang: 'PYTHON3', memory_limit: 0.4 }), { 'client-secret': secret, 'content-type': 'application/json' })
  const { status_update_url } = await json(v4)
  let done: any
  await waitUntil(async () => {
    done = await json(await fetch(status_update_url, { headers: { 'client-secret': secret } }))
    return done.request_status.code === 'REQUEST_COMPLETED'
  }, 60_000)
  expect(done.result.run_status.status).toBe('MLE')
}, 120_000)

test("a C++ template explosion through v4: the stored and served compiler message stops at 1 MB and says it was cut", async () => {
  const source = '#include <utility>\ntemplate<int N,class T>struct A{typedef typename A<N-1,std::pair<T,T>>::t t;};\ntemplate<class T>struct A<0,T>{};\nint main(){A<20,int>::t x;}\n'
  const r = await http.post(V4, JSON.stringify({ source, lang: 'CPP17' }), { 'client-secret': secret, 'content-type': 'application/json' })
  const { status_update_url, he_id } = await json(r)
  let done: any
  await waitUntil(async () => {
    done = await json(await fetch(status_update_url, { headers: { 'client-secret': secret } }))
    return done.request_status.code === 'REQUEST_COMPLETED'
  }, 90_000)
  expect(done.result.run_status.status).toBe('CE')
  const message: string = done.result.compile_status
  expect(Buffer.byteLength(message)).toBeLessThanOrEqual(1_048_576 + 100)
  expect(message.endsWith("[… the compiler's message was cut at 1048576 bytes]")).toBe(true)
  const stored = server.query<{ n: number }>('select length(compile_status) n from submissions where he_id = ?', he_id)[0].n
  expect(stored).toBeLessThanOrEqual(1_048_576 + 100)
}, 120_000)

describe('connections (a second server, its connection limits low: http/connection-guard.ts)', () => {
  let guarded: RunningServer
  beforeAll(async () => {
    guarded = await startServer({ configToml: 'max_connections_per_address = 64\nfirst_request_timeout_sec = 3\nbody_bytes_in_flight_per_address = 262144\nbody_bytes_in_flight = 1048576\n' })
  }, 60_000)
  afterAll(async () => {
    await guarded?.stop()
    guarded?.cleanup()
  })
  /** A reader of one unlabelled figure of the guarded server's /metrics. */
  const metricReader = async () => {
    const { token } = (await guarded.cli(['metrics', 'token'])) as { token: string }
    return async (name: string) =>
      Number(new RegExp(`^${name} (\\d+)`, 'm').exec((await getFrom('127.0.0.1', '/metrics', { authorization: `Bearer ${token}` })).body)?.[1])
  }
  /** A v3 form body of 600 KB from `address`: `first` bytes of it now, the rest on rest(); answer() is what came back so far. */
  const slowV3Body = (address: string, first: number) => {
    const s = connect({ port: Number(new URL(guarded.url).port), host: '127.0.0.1', localAddress: address })
    s.on('error', () => {})
    let text = ''
    s.on('data', (d) => (text += d))
    s.write('POST /code/run/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 600007\r\n\r\nsource=')
    s.write(Buffer.alloc(first, 'x'))
    return { rest: () => s.write(Buffer.alloc(600_000 - first, 'x')), answer: () => text, done: () => s.destroy() }
  }

  /** A request from a given loopback address (any of 127/8 reaches the server; 127.0.0.1 is a trusted proxy by default). */
  const requestFrom = (from: string, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(path, guarded.url)
      const r = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: opts.method, localAddress: from, agent: false, headers: opts.headers }, (res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      r.on('error', reject)
      r.end(opts.body)
    })
  const getFrom = (from: string, path: string, headers: Record<string, string> = {}) => requestFrom(from, path, { headers })

  test('300 silent connections from one address: 64 held, then answered 408 and closed; the rest 503 at once; another address is served throughout', async () => {
    const { port } = new URL(guarded.url)
    const answers = await Promise.all(
      Array.from({ length: 300 }, () =>
        new Promise<string>((resolve) => {
          const s = connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.5' })
          let text = ''
          s.on('data', (d) => (text += d))
          s.on('error', () => {})
          s.on('close', () => resolve(text.split('\r\n')[0]))
          setTimeout(() => s.destroy(), 20_000)
        })
      ).concat(
        // while they are held: another address is served
        (async () => {
          await new Promise((r) => setTimeout(r, 500))
          return `other ${(await getFrom('127.0.0.6', '/health')).status}`
        })()
      )
    )
    const count = (line: string) => answers.filter((a) => a === line).length
    expect(count('other 200')).toBe(1)
    expect(count('HTTP/1.1 408 Request Timeout')).toBe(64)
    expect(count('HTTP/1.1 503 Service Unavailable')).toBe(236)
    // the address's slots are free again once they closed
    expect((await getFrom('127.0.0.5', '/health')).status).toBe(200)
    const { token } = (await guarded.cli(['metrics', 'token'])) as { token: string }
    const metrics = (await getFrom('127.0.0.1', '/metrics', { authorization: `Bearer ${token}` })).body
    expect(Number(/arbiter_http_connections_refused_total\{reason="per_address"\} (\d+)/.exec(metrics)?.[1])).toBe(236)
    expect(Number(/arbiter_http_connections_refused_total\{reason="first_request_timeout"\} (\d+)/.exec(metrics)?.[1])).toBe(64)
    expect(guarded.output().split('\n').filter((l) => /unhandled|"stack"|InternalServerError/.test(l))).toEqual([])
  }, 60_000)

  test("a connection kept alive is kept server.keep_alive_timeout_sec (75 s by default, not node's 5), as its reply states", async () => {
    const { port } = new URL(guarded.url)
    const s = connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.8' })
    s.on('error', () => {})
    let text = ''
    s.on('data', (d) => (text += d))
    s.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
    await vi.waitFor(() => expect(text).toMatch(/\r\n\r\n/), 10_000)
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(text).toMatch(/\r\nKeep-Alive: timeout=75\r\n/i)
    // still open past node's own 5 s: a second request on it is answered
    await new Promise((r) => setTimeout(r, 6000))
    text = ''
    s.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
    await vi.waitFor(() => expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/), 10_000)
    s.destroy()
  }, 30_000)

  test("bodies one address is still sending are bounded together (256 KiB here, its oldest not counted): every face answers one past it its own 'try later'; the held ones arrive whole", async () => {
    const key = await guarded.createClient('budget-e2e')
    const metric = await metricReader()
    // two bodies from 127.0.0.11 sent in part, then waiting: the oldest (10 KB of 600 KB; not counted)
    // and a second (200 KB of 600 KB, under the budget)
    const slowBody = (first: number) => slowV3Body('127.0.0.11', first)
    const oldest = slowBody(10_000)
    await vi.waitFor(async () => expect(await metric('arbiter_http_body_bytes_arriving')).toBeGreaterThanOrEqual(10_000), 10_000)
    const second = slowBody(200_000)
    await vi.waitFor(async () => expect(await metric('arbiter_http_body_bytes_arriving')).toBeGreaterThanOrEqual(210_000), 10_000)
    const refusedBefore = await metric('arbiter_http_bodies_refused_total')
    const big = 'x'.repeat(64 * 1024)
    const from = (path: string, headers: Record<string, string>, body: string) =>
      new Promise<{ status: number; retryAfter?: string; body: string }>((resolve, reject) => {
        const url = new URL(path, guarded.url)
        const r = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', localAddress: '127.0.0.11', agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
          let text = ''
          res.on('data', (d) => (text += d))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body: text }))
        })
        r.on('error', reject)
        r.end(body)
      })
    const src = JSON.stringify({ source: big, lang: 'PYTHON3', client_secret: key })
    const v3 = await from('/code/run/', {}, src)
    expect([v3.status, v3.retryAfter, JSON.parse(v3.body).message]).toEqual([429, '1', expect.stringMatching(/^QueueFullError: .*still arriving/)])
    const v4 = await from(V4, { 'client-secret': key }, src)
    expect([v4.status, v4.retryAfter]).toEqual([429, '1'])
    const judge0 = await from('/judge0/submissions?wait=true', { 'X-Auth-Token': key }, JSON.stringify({ source_code: big, language_id: 71 }))
    expect([judge0.status, judge0.retryAfter]).toEqual([429, '1'])
    const piston = await from('/piston/api/v2/execute', { authorization: key }, JSON.stringify({ language: 'python', version: '*', files: [{ content: big }] }))
    expect([piston.status, piston.retryAfter]).toEqual([429, '1'])
    const jobe = await from('/jobe/index.php/restapi/runs', { 'X-API-KEY': key }, JSON.stringify({ run_spec: { language_id: 'python3', sourcecode: big } }))
    expect([jobe.status, jobe.retryAfter, JSON.parse(jobe.body).outcome]).toEqual([200, '1', 21])
    const interviews = await from(INTERVIEWS, {}, JSON.stringify({ client_id: 'x', client_secret: 'y', pad: big }))
    expect([interviews.status, JSON.parse(interviews.body).ecode]).toEqual([429, ['RATELIMITEXCEEDED']])
    expect(await metric('arbiter_http_bodies_refused_total')).toBe(refusedBefore + 6)
    // another address meanwhile: not held back
    expect((await requestFrom('127.0.0.12', '/piston/api/v2/execute', { method: 'POST', headers: { authorization: key, 'content-type': 'application/json' }, body: JSON.stringify({ language: 'nope', version: '*', files: [{ content: big }] }) })).status).toBe(400)
    // the oldest sends the rest and is read whole; then the second, the oldest now (600 KB each, past
    // the budget): their answers are v3's own (no secret in them)
    for (const body of [oldest, second]) {
      body.rest()
      await vi.waitFor(() => expect(body.answer()).toMatch(/^HTTP\/1\.1 (\d+)/), 10_000)
      expect(body.answer()).toMatch(/^HTTP\/1\.1 400 /)
      expect(body.answer()).toMatch(/ArgumentMissingError/)
      body.done()
    }
    await vi.waitFor(async () => expect(await metric('arbiter_http_body_bytes_arriving')).toBe(0), 10_000)
    // and the address may send again
    expect((await from('/piston/api/v2/execute', { authorization: key }, JSON.stringify({ language: 'nope', version: '*', files: [{ content: big }] }))).status).toBe(400)
    expect(guarded.output().split('\n').filter((l) => /unhandled|"stack"|InternalServerError/.test(l))).toEqual([])
  }, 60_000)

  test("bodies all addresses are still sending share the server's budget (1 MiB here): past it an address holding its share is refused, its oldest body too; the others arrive", async () => {
    const metric = await metricReader()
    const status = async (body: { answer(): string }) => {
      await vi.waitFor(() => expect(body.answer()).toMatch(/^HTTP\/1\.1 (\d+)[^]*\r\n\r\n[^]+/), 10_000)
      return Number(body.answer().slice(9, 12))
    }
    // two addresses' oldest bodies, 500 KB of 600 KB each: under the server's 1 MiB together
    const a = slowV3Body('127.0.0.31', 500_000)
    const b = slowV3Body('127.0.0.32', 500_000)
    await vi.waitFor(async () => expect(await metric('arbiter_http_body_bytes_arriving')).toBeGreaterThanOrEqual(1_000_000), 10_000)
    const refusedBefore = await metric('arbiter_http_bodies_refused_total')
    // a third address sends 600 KB whole: past the budget with more than its share (a third of it)
    const c = slowV3Body('127.0.0.33', 600_000)
    expect(await status(c)).toBe(429)
    expect(c.answer()).toMatch(/QueueFullError: .*all the request bodies/)
    expect(await metric('arbiter_http_bodies_refused_total')).toBe(refusedBefore + 1)
    // the first address's rest passes the budget with more than its share (half): refused too
    a.rest()
    expect(await status(a)).toBe(429)
    // the second's rest is under the budget now: read whole, v3's own answer (no secret in it)
    b.rest()
    expect(await status(b)).toBe(400)
    expect(b.answer()).toMatch(/ArgumentMissingError/)
    for (const body of [a, b, c]) body.done()
    await vi.waitFor(async () => expect(await metric('arbiter_http_body_bytes_arriving')).toBe(0), 10_000)
    expect(guarded.output().split('\n').filter((l) => /unhandled|"stack"|InternalServerError/.test(l))).toEqual([])
  }, 60_000)

  test('a v3 run from a counted address is not cut by the first-request deadline, however long it runs', async () => {
    const secretHere = await guarded.createClient('guarded-e2e')
    const body = JSON.stringify({ client_secret: secretHere, lang: 'PYTHON3', source: 'import time\ntime.sleep(4)\nprint("slept")', time_limit: 5 })
    const answer = await requestFrom('127.0.0.7', '/code/run/', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body).run_status.output).toBe('slept\n')
  }, 60_000)
})
