import { Agent, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { Hono } from 'hono'
import { describe, expect, test } from 'vitest'
import { isAppError } from '../errors.ts'
import { CutOff, readBody, readUpTo, TooLarge } from './body.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json()

function app(limit = 1000) {
  const a = new Hono()
  a.post('/', readBody(limit), (c) => c.json(c.var.body))
  a.onError((err, c) => c.json({ code: isAppError(err) ? err.code : 'other', message: err.message }, 400))
  return a
}

const post = (body: NonNullable<RequestInit['body']> | null, headers: Record<string, string> = {}, limit?: number) =>
  app(limit).request('/', { method: 'POST', body, headers })

describe('readBody', () => {
  test.each([
    ['JSON with application/json', 'application/json'],
    ['JSON with a charset', 'application/json; charset=utf-8'],
    ['JSON labelled as a form', 'application/x-www-form-urlencoded'],
    ['JSON labelled as text', 'text/plain;charset=UTF-8'],
  ])('%s', async (_n, ct) => {
    const r = await post(JSON.stringify({ source: 'x', n: 5, ctx: { a: 1 } }), { 'content-type': ct })
    expect(await json(r)).toEqual({ source: 'x', n: 5, ctx: { a: 1 } })
  })

  test('JSON with no Content-Type at all', async () => {
    const req = new Request('http://x/', { method: 'POST', body: new TextEncoder().encode(' {"a":"b"}') })
    expect(req.headers.get('content-type')).toBeNull()
    expect(await json(await app().request(req))).toEqual({ a: 'b' })
  })

  test('form fields; the first of a repeated field wins; + is a space', async () => {
    const r = await post('source=print(1+2)&lang=PYTHON&lang=C&input=a+b%0A', { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' })
    expect(await json(r)).toEqual({ source: 'print(1 2)', lang: 'PYTHON', input: 'a b\n' })
  })

  test('form fields with no Content-Type', async () => {
    const req = new Request('http://x/', { method: 'POST', body: new TextEncoder().encode('a=1&b=') })
    expect(await json(await app().request(req))).toEqual({ a: '1', b: '' })
  })

  test('multipart form data, a file part read as text', async () => {
    const fd = new FormData()
    fd.append('lang', 'C')
    fd.append('source', new Blob(['int main(){}']), 'main.c')
    expect(await json(await post(fd))).toEqual({ lang: 'C', source: 'int main(){}' })
  })

  test('an empty body is an empty object', async () => {
    expect(await json(await post(null))).toEqual({})
  })

  test('broken JSON is a clear error', async () => {
    const r = await post('{"a":', { 'content-type': 'application/json' })
    expect(await json(r)).toMatchObject({ code: 'InvalidArgument' })
  })

  test('over the cap by Content-Length or by counting: PayloadTooLargeError', async () => {
    expect(await json(await post('a='.padEnd(2000, 'x'), {}, 100))).toMatchObject({ code: 'PayloadTooLarge' })
    // a stream has no length: counted while read
    const stream = new ReadableStream({
      start(ctl) {
        for (let i = 0; i < 10; i++) ctl.enqueue(new TextEncoder().encode('x'.repeat(50)))
        ctl.close()
      },
    })
    const req = new Request('http://x/', { method: 'POST', body: stream, duplex: 'half' } as RequestInit)
    expect(await json(await app(100).request(req))).toMatchObject({ code: 'PayloadTooLarge' })
  })
})

describe('readUpTo', () => {
  /** A source of n chunks of 50 bytes that records how many were pulled and whether it was cancelled. */
  function source(n: number, failAt = -1) {
    const seen = { pulled: 0, cancelled: false }
    async function* gen() {
      try {
        for (let i = 0; i < n; i++) {
          if (i === failAt) throw new Error('reset')
          seen.pulled++
          yield new Uint8Array(50)
        }
      } finally {
        seen.cancelled = seen.pulled < n
      }
    }
    return { it: gen(), seen }
  }

  test('the whole source within the limit', async () => {
    expect((await readUpTo(source(3).it, 150)).length).toBe(150)
  })

  test('past the limit: TooLarge, the rest never pulled and the source cancelled', async () => {
    const { it, seen } = source(100)
    await expect(readUpTo(it, 120)).rejects.toBeInstanceOf(TooLarge)
    expect(seen).toEqual({ pulled: 3, cancelled: true })
  })

  test('onChunk refuses: its error, the source cancelled', async () => {
    const { it, seen } = source(100)
    await expect(
      readUpTo(it, 1e6, () => {
        if (seen.pulled === 2) throw new RangeError('no more')
      })
    ).rejects.toBeInstanceOf(RangeError)
    expect(seen).toEqual({ pulled: 2, cancelled: true })
  })

  test('a source that fails midway: CutOff', async () => {
    await expect(readUpTo(source(5, 2).it, 1e6)).rejects.toBeInstanceOf(CutOff)
  })

  test('a Node stream (a download) as well as a web stream', async () => {
    expect((await readUpTo(Readable.from([Buffer.from('ab'), Buffer.from('c')]), 3)).toString()).toBe('abc')
    await expect(readUpTo(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 3)).rejects.toBeInstanceOf(TooLarge)
  })
})

describe("readBody behind node's HTTP server (the body read from node's own stream)", () => {
  // what main.ts serves with: c.env.incoming is node's request
  async function served(limit: number) {
    const { serve } = await import('@hono/node-server')
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app(limit).fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
    })
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) }
  }

  test('a body in many chunks, JSON and a form', async () => {
    const s = await served(1 << 20)
    try {
      const big = 'x'.repeat(200_000)
      const r = await fetch(s.url, { method: 'POST', body: JSON.stringify({ source: big, n: 1 }), headers: { 'content-type': 'application/json' } })
      expect(await json(r)).toEqual({ source: big, n: 1 })
      const f = await fetch(s.url, { method: 'POST', body: 'a=1&b=%C3%A9' })
      expect(await json(f)).toEqual({ a: '1', b: 'é' })
    } finally {
      await s.close()
    }
  })

  test('past the cap while counting (chunked, no Content-Length): the refusal still reaches the client, and the connection serves the next request', async () => {
    const s = await served(1000)
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      const send = (body: string | Readable) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = request(s.url, { method: 'POST', agent }, (res) => {
            let text = ''
            res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve({ status: res.statusCode!, body: text }))
          })
          req.on('error', reject)
          if (typeof body === 'string') req.end(body)
          else body.pipe(req)
        })
      const refused = await send(Readable.from([Buffer.from('{"a":"'), Buffer.alloc(5000, 'y'), Buffer.from('"}')]))
      expect(refused.status).toBe(400)
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'PayloadTooLarge' })
      const next = await send('{"b":2}')
      expect(JSON.parse(next.body)).toEqual({ b: 2 })
      // a body refused with much of it unread (200 KB in 10 KB chunks): what is left is drained, and
      // the same connection serves the next request, at once and later (it was closed under it)
      const refusedMany = await send(Readable.from(Array.from({ length: 20 }, () => Buffer.alloc(10_000, 'z'))))
      expect(refusedMany.status).toBe(400)
      for (const wait of [0, 700]) {
        await new Promise((r) => setTimeout(r, wait))
        expect(JSON.parse((await send('{"c":3}')).body)).toEqual({ c: 3 })
      }
      // one connection all along
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(1)
      agent.destroy()
    } finally {
      await s.close()
    }
  })
})
