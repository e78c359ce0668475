import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ANSWER_GRACE_MS, normaliseCallbackUrl, PermanentFailure, postCallback, postCallbackWithLead } from './callback.ts'
import { outboundGuard, type Resolver } from './outbound-guard.ts'
import { callbackSender, type OutboxRow } from './outbox.ts'

let server: Server
let base = ''
const seen: { url: string; method?: string; headers: IncomingMessage['headers']; body: string }[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      seen.push({ url: req.url!, method: req.method, headers: req.headers, body })
      if (req.url === '/fail') res.writeHead(500).end()
      else if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end()
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 1000)
      else res.writeHead(204).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((r) => server.close(r)))

const post = (path: string, over: Partial<Parameters<typeof postCallback>[0]> = {}) =>
  postCallback({ url: `${base}${path}`, body: '{"a":1}', contentType: 'application/json', timeoutMs: 2000, headers: { 'x-test': '1' }, ...over })

describe('postCallback', () => {
  test('POSTs the body with its content type and headers; a missing scheme means http', async () => {
    await post('/ok')
    expect(seen.at(-1)).toMatchObject({ url: '/ok', body: '{"a":1}', headers: { 'content-type': 'application/json', 'x-test': '1' } })
  })

  test('credentials in the URL go as Basic authorization, not in the request line', async () => {
    await postCallback({ url: `http://us%40er:p%3Ass@${base}/auth`, body: 'x', contentType: 'text/plain', timeoutMs: 2000 })
    expect(seen.at(-1)).toMatchObject({ url: '/auth', headers: { authorization: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}` } })
  })

  test('POST by default, PUT when asked (Judge0 CE calls back with PUT)', async () => {
    await post('/ok')
    expect(seen.at(-1)?.method).toBe('POST')
    await post('/put', { method: 'PUT' })
    expect(seen.at(-1)).toMatchObject({ url: '/put', method: 'PUT', body: '{"a":1}' })
  })

  test("the outbox's callback sender uses the row's method: POST unless it says PUT", async () => {
    const send = callbackSender({ outbox: { timeout_ms: 2000, block_private_addresses: false } } as Parameters<typeof callbackSender>[0])
    const row = { id: 1, target: `${base}/row`, body: '{}', contentType: 'application/json', headersJson: null, method: null } as OutboxRow
    await send(row)
    expect(seen.at(-1)).toMatchObject({ url: '/row', method: 'POST', headers: { 'x-arbiter-delivery': '1' } })
    await send({ ...row, method: 'PUT' })
    expect(seen.at(-1)).toMatchObject({ url: '/row', method: 'PUT' })
  })

  test('non-2xx fails', async () => {
    await expect(post('/fail')).rejects.toThrow('HTTP 500')
  })

  test('a redirect is a failure, not a silent GET', async () => {
    await expect(post('/redirect')).rejects.toThrow('HTTP 302')
  })

  test('a slow receiver times out', async () => {
    const started = Date.now()
    await expect(post('/slow', { timeoutMs: 100 })).rejects.toThrow()
    expect(Date.now() - started).toBeLessThan(900)
  })

  test('an exchange that ended leaves no timer behind', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    await post('/warm')
    const before = timers()
    for (let i = 0; i < 20; i++) {
      await post('/ok')
      await postCallbackWithLead({ url: `${base}/ok`, body: 'b', contentType: 'text/plain', timeoutMs: 2000 }, { body: 'a' })
      await expect(post('/fail')).rejects.toThrow('HTTP 500')
    }
    // each exchange's deadline (and a body's grace, had one been needed) is cleared once its answers ended
    expect(timers()).toBe(before)
  })

  test('bad URLs and refused addresses are permanent failures', async () => {
    await expect(postCallback({ url: 'ftp://x/y', body: '', contentType: 'text/plain', timeoutMs: 100 })).rejects.toBeInstanceOf(PermanentFailure)
    await expect(postCallback({ url: 'http://exa mple.com', body: '', contentType: 'text/plain', timeoutMs: 100 })).rejects.toBeInstanceOf(PermanentFailure)
    await expect(post('/ok', { blockPrivate: true })).rejects.toBeInstanceOf(PermanentFailure)
  })
})

test('normaliseCallbackUrl', () => {
  expect(normaliseCallbackUrl(' client.com ')).toBe('http://client.com')
  expect(normaliseCallbackUrl('https://a.b/c')).toBe('https://a.b/c')
})

describe('the outbound guard on callbacks', () => {
  // every spelling of this host: a literal is never looked up, so each must be caught by itself
  test.each(['127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '2130706433', '0177.0.0.1', '0x7f.1', '[::1]', '[::]', '0.0.0.0'])(
    'http://%s:PORT/ is refused with block_private_addresses on',
    async (host) => {
      const port = base.split(':')[1]
      const before = seen.length
      await expect(postCallback({ url: `http://${host}:${port}/ok`, body: '', contentType: 'text/plain', timeoutMs: 2000, blockPrivate: true })).rejects.toBeInstanceOf(PermanentFailure)
      expect(seen.length).toBe(before)
    }
  )

  test('a name is resolved once, and the connection goes to the address that was checked (no rebinding)', async () => {
    // 127.0.0.1 stands for "public" here and 127.0.0.2 for "private": the first answer passes the
    // check, a second lookup would answer the refused one. Only one lookup may happen.
    const other = createServer((req, res) => res.writeHead(204).end())
    await new Promise<void>((r) => other.listen(Number(base.split(':')[1]), '127.0.0.2', r)).catch(() => undefined)
    const answers = ['127.0.0.1', '127.0.0.2']
    let lookups = 0
    const resolve: Resolver = async () => [{ address: answers[Math.min(lookups++, 1)], family: 4 }]
    const guard = outboundGuard({ refused: (a) => a === '127.0.0.2', resolve })
    const before = seen.length
    await postCallback({ url: `http://rebinding.test:${base.split(':')[1]}/pinned`, body: 'x', contentType: 'text/plain', timeoutMs: 2000, blockPrivate: true, guard })
    expect(lookups).toBe(1)
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/pinned'])
    // and a name whose (only) answer is refused never gets a connection
    lookups = 1
    await expect(postCallback({ url: `http://rebinding.test:${base.split(':')[1]}/never`, body: 'x', contentType: 'text/plain', timeoutMs: 2000, blockPrivate: true, guard })).rejects.toBeInstanceOf(PermanentFailure)
    expect(seen.some((s) => s.url === '/never')).toBe(false)
    await new Promise((r) => other.close(r))
  })
})


describe("the receiver's answer is read at most ANSWER_MAX_BYTES and ANSWER_GRACE_MS, then dropped", () => {
  // A receiver under test: answers each request with `answer`, and records how many body bytes it
  // managed to hand to the kernel and when its connection was closed by the other side.
  interface Seen { written: number; closedAfterMs: number }
  async function receiver(answer: (res: import('node:http').ServerResponse, seen: Seen) => void) {
    const results: Promise<Seen>[] = []
    const srv = createServer((req, res) => {
      req.resume()
      const started = Date.now()
      const seen: Seen = { written: 0, closedAfterMs: -1 }
      results.push(new Promise((done) => res.on('close', () => done({ ...seen, closedAfterMs: Date.now() - started }))))
      answer(res, seen)
    })
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/cb`
    return { url, results, close: () => new Promise((r) => { srv.closeAllConnections(); srv.close(r) }) }
  }
  const chunk = Buffer.alloc(64 * 1024, 'x')
  // writes as fast as the reader takes it, forever (the 2.15 GB receiver)
  const endless = (status: number, headers: Record<string, string> = {}) => (res: import('node:http').ServerResponse, seen: Seen) => {
    res.writeHead(status, headers)
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) seen.written += chunk.length
      if (!res.destroyed) res.once('drain', pump)
    }
    pump()
  }
  const timeoutMs = 8000

  test.each([
    ['a 200 that streams forever (chunked)', endless(200)],
    ['a 500 that streams forever (the delivery fails, on its status alone)', endless(500)],
    ['a 200 that declares 1 GiB', endless(200, { 'content-length': String(2 ** 30) })],
    ['a 200 that trickles a byte every 20 ms', (res: import('node:http').ServerResponse, seen: Seen) => {
      res.writeHead(200)
      const t = setInterval(() => { if (res.destroyed) clearInterval(t); else { res.write('x'); seen.written++ } }, 20)
      res.on('close', () => clearInterval(t))
    }],
  ])('%s: the delivery is settled on its status at once and the connection is closed promptly', async (name, answer) => {
    const r = await receiver(answer)
    try {
      const started = Date.now()
      const sent = postCallback({ url: r.url, body: '{}', contentType: 'application/json', timeoutMs })
      if (name.includes('500')) await expect(sent).rejects.toThrow('HTTP 500')
      else await sent
      // settled on the status line, not when (if ever) the body ends
      expect(Date.now() - started).toBeLessThan(timeoutMs / 4)
      const [seen] = await Promise.all(r.results)
      // closed from our side well before the delivery's own timeout: after at most ANSWER_MAX_BYTES
      // (plus what the loopback's socket buffers took in) or ANSWER_GRACE_MS
      expect(seen.closedAfterMs).toBeLessThan(ANSWER_GRACE_MS + 1500)
      expect(seen.written).toBeLessThan(32 * 1024 * 1024)
    } finally {
      await r.close()
    }
  })

  test('endless headers and endless 1xx interim answers are cut off too', async () => {
    const { createServer: rawServer } = await import('node:net')
    for (const flood of ['HTTP/1.1 200 OK\r\n' + 'x-pad: '.padEnd(1000, 'y') + '\r\n', 'HTTP/1.1 102 Processing\r\n\r\n']) {
      let written = 0
      let closedAfterMs = -1
      const srv = rawServer((sock) => {
        const started = Date.now()
        sock.resume()
        sock.on('error', () => {})
        sock.on('close', () => (closedAfterMs = Date.now() - started))
        const first = flood.startsWith('HTTP/1.1 200') ? flood : ''
        if (first) sock.write(first)
        const line = first ? flood.slice(flood.indexOf('\n') + 1) : flood
        const pump = () => {
          while (!sock.destroyed && sock.write(line)) written += line.length
          if (!sock.destroyed) sock.once('drain', pump)
        }
        pump()
      })
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
      try {
        const started = Date.now()
        await expect(postCallback({ url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`, body: '{}', contentType: 'application/json', timeoutMs })).rejects.toThrow()
        expect(Date.now() - started).toBeLessThan(1500)
        await expect.poll(() => closedAfterMs, { timeout: 3000 }).toBeGreaterThanOrEqual(0)
        expect(written).toBeLessThan(32 * 1024 * 1024)
      } finally {
        await new Promise((r) => srv.close(r))
      }
    }
  })

  test('a short answer that ends in time leaves the connection open for the next callback', async () => {
    const sockets = new Set<unknown>()
    const r = await receiver((res) => {
      sockets.add(res.socket)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
    try {
      for (let i = 0; i < 3; i++) await postCallback({ url: r.url, body: '{}', contentType: 'application/json', timeoutMs })
      expect(sockets.size).toBe(1)
    } finally {
      await r.close()
    }
  })
})

describe('a lead and its request, pipelined on one connection (postCallbackWithLead: v4 CODE_COMPILED, REQUEST_COMPLETED)', () => {
  // A raw receiver: reads requests off each connection and answers only when `answerWhen` says so, with
  // `answer(n)` for the n-th request of the connection; records the requests each connection carried.
  async function rawReceiver(answerWhen: (requests: string[]) => boolean, answer: (n: number) => string | null) {
    const { createServer: rawServer } = await import('node:net')
    const connections: string[][] = []
    const sockets = new Set<import('node:net').Socket>()
    const srv = rawServer((sock) => {
      sockets.add(sock)
      const requests: string[] = []
      connections.push(requests)
      let buf = ''
      let answered = 0
      sock.setEncoding('latin1')
      sock.on('error', () => {})
      sock.on('data', (d: string) => {
        buf += d
        for (;;) {
          const end = buf.indexOf('\r\n\r\n')
          if (end < 0) break
          const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0)
          if (buf.length < end + 4 + length) break
          requests.push(buf.slice(0, end + 4 + length))
          buf = buf.slice(end + 4 + length)
        }
        if (!answerWhen(requests)) return
        while (answered < requests.length) {
          const a = answer(answered++)
          if (a !== null) sock.write(a)
        }
      })
    })
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/cb`
    return { url, connections, close: () => new Promise((r) => { for (const k of sockets) k.destroy(); srv.close(r) }) }
  }
  const ok = 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'
  const lead = { body: 'compiled', headers: { 'x-arbiter-event': 'CODE_COMPILED' } }
  const req = (url: string, over: Partial<Parameters<typeof postCallback>[0]> = {}) =>
    ({ url, body: 'completed', contentType: 'text/plain', timeoutMs: 3000, headers: { 'x-arbiter-event': 'REQUEST_COMPLETED' }, ...over })

  test('both are written before either answer is read, lead first, on one connection', async () => {
    // answers nothing until it holds both requests: a client that waits for the lead's answer first
    // (one request at a time) never gets one, and times out
    const r = await rawReceiver((rs) => rs.length >= 2, () => ok)
    try {
      await expect(postCallbackWithLead(req(r.url), lead)).resolves.toEqual({})
      expect(r.connections).toHaveLength(1)
      expect(r.connections[0].map((q) => q.split('\r\n')[0] + ' ' + q.slice(q.indexOf('\r\n\r\n') + 4))).toEqual(['POST /cb HTTP/1.1 compiled', 'POST /cb HTTP/1.1 completed'])
      expect(r.connections[0][0]).toMatch(/x-arbiter-event: CODE_COMPILED/i)
      expect(r.connections[0][1]).toMatch(/x-arbiter-event: REQUEST_COMPLETED/i)
    } finally {
      await r.close()
    }
  })

  test('on a reused connection the two leave in one write (one loopback send, the receiver woken once)', async () => {
    const { Socket } = await import('node:net')
    const r = await rawReceiver((rs) => rs.length >= 1, () => ok)
    const proto = Socket.prototype as unknown as { _writev: (chunks: { chunk: unknown }[], cb: unknown) => void; _write: (chunk: unknown, enc: unknown, cb: unknown) => void }
    const { _writev, _write } = proto
    const writes: string[] = []
    const text = (c: unknown) => (Buffer.isBuffer(c) ? c.toString('latin1') : String(c))
    proto._writev = function (chunks, cb) {
      writes.push(chunks.map((c) => text(c.chunk)).join(''))
      return _writev.call(this, chunks, cb)
    }
    proto._write = function (chunk, enc, cb) {
      writes.push(text(chunk))
      return _write.call(this, chunk, enc, cb)
    }
    try {
      await postCallback(req(r.url))
      writes.length = 0
      await postCallbackWithLead(req(r.url), lead)
      const posts = writes.filter((w) => w.includes('POST /cb'))
      expect(posts).toHaveLength(1)
      expect(posts[0].match(/POST \/cb/g)).toHaveLength(2)
      expect(r.connections).toHaveLength(1)
    } finally {
      proto._writev = _writev
      proto._write = _write
      await r.close()
    }
  })

  test("a lead answered with an error is reported and the request's own answer decides", async () => {
    const r = await rawReceiver((rs) => rs.length >= 2, (n) => (n === 0 ? 'HTTP/1.1 500 Oops\r\ncontent-length: 0\r\n\r\n' : ok))
    try {
      const got = await postCallbackWithLead(req(r.url), lead)
      expect(got.leadFailure?.message).toBe('HTTP 500')
    } finally {
      await r.close()
    }
    const r2 = await rawReceiver((rs) => rs.length >= 2, (n) => (n === 0 ? ok : 'HTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n'))
    try {
      await expect(postCallbackWithLead(req(r2.url), lead)).rejects.toThrow('HTTP 503')
    } finally {
      await r2.close()
    }
  })

  test('a lead never answered takes the request with it: the pair fails as timed out, within the timeout', async () => {
    const r = await rawReceiver(() => true, () => null)
    try {
      const started = Date.now()
      const err = await postCallbackWithLead(req(r.url, { timeoutMs: 300 }), lead).catch((e: Error) => e)
      expect(err).toBeInstanceOf(Error)
      expect((err as Error).name).toBe('TimeoutError')
      expect(Date.now() - started).toBeLessThan(1500)
    } finally {
      await r.close()
    }
  })

  test("a lead whose answer streams forever is cut off, and the pair settles long before the timeout", async () => {
    let written = 0
    const { createServer: rawServer } = await import('node:net')
    const srv = rawServer((sock) => {
      sock.on('error', () => {})
      sock.once('data', () => {
        sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n')
        const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`
        const pump = () => {
          while (!sock.destroyed && sock.write(chunk)) written += chunk.length
          if (!sock.destroyed) sock.once('drain', pump)
        }
        pump()
      })
    })
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    try {
      const started = Date.now()
      await postCallbackWithLead(req(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/cb`, { timeoutMs: 8000 }), lead).catch(() => undefined)
      expect(Date.now() - started).toBeLessThan(ANSWER_GRACE_MS + 1500)
      expect(written).toBeLessThan(32 * 1024 * 1024)
    } finally {
      await new Promise((r) => srv.close(r))
    }
  })

  test('the outbound guard holds for the pair: a refused address gets neither', async () => {
    const r = await rawReceiver(() => true, () => ok)
    try {
      await expect(postCallbackWithLead(req(r.url, { blockPrivate: true }), lead)).rejects.toBeInstanceOf(PermanentFailure)
      expect(r.connections).toHaveLength(0)
    } finally {
      await r.close()
    }
  })

  test("one exchange at a time on a connection: a slow answer to one delivery never holds up another's", async () => {
    const { createServer: httpServer } = await import('node:http')
    const srv = httpServer((q, s) => {
      q.resume()
      q.on('end', () => (q.url === '/slow' ? setTimeout(() => s.writeHead(200).end(), 1500) : s.writeHead(200).end()))
    })
    await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res))
    const base2 = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`
    try {
      const held = postCallbackWithLead(req(`${base2}/slow`), lead)
      await new Promise((res) => setTimeout(res, 50))
      const started = Date.now()
      await postCallback(req(`${base2}/fast`))
      expect(Date.now() - started).toBeLessThan(1000)
      await held
    } finally {
      srv.closeAllConnections()
      await new Promise((res) => srv.close(res))
    }
  })
})
