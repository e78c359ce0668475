import { connect, type AddressInfo, type Socket } from 'node:net'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { isAppError } from '../errors.ts'
import { readBody } from './body.ts'
import { bodyBudgetRefusals, bodyBytesArriving, configureBodyBudget, type BodyBudgetLimits } from './body-budget.ts'
import { setRetryAfter } from './error-bodies.ts'

const KB = 1024
const limits: BodyBudgetLimits = { perAddress: 1024 * KB, total: 0, trustedProxies: new Set(['127.0.0.9']) }

let port = 0
let close: () => Promise<unknown>
beforeAll(async () => {
  configureBodyBudget(() => limits)
  const app = new Hono()
  app.post('/', readBody(2048 * KB), (c) => c.json({ bytes: String(c.var.body.source ?? '').length }))
  app.onError((err, c) => {
    if (isAppError(err)) setRetryAfter(c, err)
    return c.json({ code: isAppError(err) ? err.code : 'other', message: err.message }, isAppError(err) && err.code === 'QueueFull' ? 429 : 400)
  })
  const { serve } = await import('@hono/node-server')
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
  })
  port = (server.address() as AddressInfo).port
  close = () => new Promise((r) => server.close(r))
})
afterAll(() => close())

/**
 * A POST of a form body whose source is `size` bytes, sent from `from` in two parts: `first` bytes
 * now, the rest when `rest()` is called. `answer` is the status line and body the server sends.
 */
function slowPost(from: string, size: number, first: number, headers = '') {
  const body = Buffer.concat([Buffer.from('source='), Buffer.alloc(size, 'x')])
  const s: Socket = connect({ port, host: '127.0.0.1', localAddress: from })
  s.on('error', () => {})
  let text = ''
  const answer = new Promise<{ status: number; retryAfter?: string; body: string }>((resolve) => {
    s.on('data', (d) => {
      text += d
      const at = text.indexOf('\r\n\r\n')
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1] ?? NaN)
      if (at >= 0 && text.length - at - 4 >= length)
        resolve({ status: Number(text.slice(9, 12)), retryAfter: /\r\nretry-after: (\d+)/i.exec(text)?.[1], body: text.slice(at + 4) })
    })
  })
  s.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n${headers}\r\n`)
  s.write(body.subarray(0, first))
  return { answer, rest: () => s.write(body.subarray(first)), done: () => s.destroy() }
}

describe('the bytes of one address’s unfinished bodies', () => {
  test("past the budget a newer body is refused 429 with Retry-After; the oldest one arrives whole past it, not counted; another address is not held back; the bytes are freed after", async () => {
    const refusedBefore = bodyBudgetRefusals()
    // the oldest body from 127.0.0.2: 1.2 MB of 1.5 MB sent (past the budget alone), then it waits
    const a = slowPost('127.0.0.2', 1536 * KB, 1200 * KB)
    await vi.waitFor(() => expect(bodyBytesArriving()).toBeGreaterThanOrEqual(1200 * KB), 5000)
    // a second one from the same address: the oldest is not counted against it
    const b = slowPost('127.0.0.2', 1000 * KB, 600 * KB)
    await vi.waitFor(() => expect(bodyBytesArriving()).toBeGreaterThanOrEqual(1800 * KB), 5000)
    // a third: refused once the second and third pass 1 MiB, before all of it is read
    const b2 = slowPost('127.0.0.2', 1000 * KB, 600 * KB)
    const refused = await b2.answer
    expect(refused.status).toBe(429)
    expect(refused.retryAfter).toBe('1')
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'QueueFull' })
    expect(bodyBudgetRefusals()).toBe(refusedBefore + 1)
    // another address meanwhile: its own budget
    const c = slowPost('127.0.0.3', 900 * KB, 900 * KB + 7)
    expect(await c.answer).toMatchObject({ status: 200, body: JSON.stringify({ bytes: 900 * KB }) })
    // the oldest sends the rest, 1.5 MB alone, more than the budget: it arrives; so does the second
    a.rest()
    expect(await a.answer).toMatchObject({ status: 200, body: JSON.stringify({ bytes: 1536 * KB }) })
    b.rest()
    expect(await b.answer).toMatchObject({ status: 200, body: JSON.stringify({ bytes: 1000 * KB }) })
    await vi.waitFor(() => expect(bodyBytesArriving()).toBe(0), 5000)
    // the address may send again
    const again = slowPost('127.0.0.2', 1000 * KB, 1000 * KB + 7)
    expect((await again.answer).status).toBe(200)
    for (const p of [a, b, b2, c, again]) p.done()
  })

  test('behind a trusted proxy the budget is that of the address its X-Forwarded-For names', async () => {
    // the oldest body of 192.0.2.1 (not counted), then a second one
    const a = slowPost('127.0.0.9', 1536 * KB, 100 * KB, 'X-Forwarded-For: 192.0.2.1\r\n')
    await vi.waitFor(() => expect(bodyBytesArriving()).toBeGreaterThanOrEqual(100 * KB), 5000)
    const a2 = slowPost('127.0.0.9', 900 * KB, 700 * KB, 'X-Forwarded-For: 192.0.2.1\r\n')
    await vi.waitFor(() => expect(bodyBytesArriving()).toBeGreaterThanOrEqual(800 * KB), 5000)
    // another client through the same proxy is not held back by the first one's bodies
    const other = slowPost('127.0.0.9', 800 * KB, 800 * KB + 7, 'X-Forwarded-For: 192.0.2.2\r\n')
    expect((await other.answer).status).toBe(200)
    // the same client through it is
    const same = slowPost('127.0.0.9', 800 * KB, 800 * KB + 7, 'X-Forwarded-For: 192.0.2.1\r\n')
    expect((await same.answer).status).toBe(429)
    // the two arrive whole, the second under the budget
    a.rest()
    expect((await a.answer).status).toBe(200)
    a2.rest()
    expect((await a2.answer).status).toBe(200)
    for (const p of [a, a2, other, same]) p.done()
  })

  test("past the server's budget an address holding its share is refused, the oldest body too, while one holding less is served", async () => {
    limits.total = 1536 * KB
    try {
      const refusedBefore = bodyBudgetRefusals()
      // 127.0.0.21's oldest body: not counted against its address, counted in all (1.4 MB of 2 MB)
      const a = slowPost('127.0.0.21', 2000 * KB, 1400 * KB)
      await vi.waitFor(() => expect(bodyBytesArriving()).toBeGreaterThanOrEqual(1400 * KB), 5000)
      // another address: its 600 KB pass the server's 1.5 MiB, but it holds under its share (half of it)
      const b = slowPost('127.0.0.22', 600 * KB, 600 * KB + 7)
      expect(await b.answer).toMatchObject({ status: 200, body: JSON.stringify({ bytes: 600 * KB }) })
      // the first address again: under its own budget (its oldest is not counted there), but past the
      // server's with more than its share (all of it, alone)
      const a2 = slowPost('127.0.0.21', 300 * KB, 300 * KB + 7)
      const refused = await a2.answer
      expect(refused).toMatchObject({ status: 429, retryAfter: '1' })
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'QueueFull' })
      expect(bodyBudgetRefusals()).toBe(refusedBefore + 1)
      // and so is the rest of its oldest body (what it sent before stays counted until the refusal)
      a.rest()
      expect((await a.answer).status).toBe(429)
      await vi.waitFor(() => expect(bodyBytesArriving()).toBe(0), 5000)
      for (const p of [a, a2, b]) p.done()
    } finally {
      limits.total = 0
    }
  })

  test("at twice the server's budget every body is refused, one under its share too", async () => {
    limits.total = 4096 * KB
    try {
      const a = slowPost('127.0.0.23', 1536 * KB, 1000 * KB)
      await vi.waitFor(() => expect(bodyBytesArriving()).toBeGreaterThanOrEqual(1000 * KB), 5000)
      // the budget lowered (live) under what is held: 1000 KB is past twice 400 KB
      limits.total = 400 * KB
      const b = slowPost('127.0.0.24', 100 * KB, 100 * KB + 7)
      expect((await b.answer).status).toBe(429)
      // back up: the same body from the same address is served
      limits.total = 4096 * KB
      const b2 = slowPost('127.0.0.24', 100 * KB, 100 * KB + 7)
      expect((await b2.answer).status).toBe(200)
      a.rest()
      expect((await a.answer).status).toBe(200)
      for (const p of [a, b, b2]) p.done()
    } finally {
      limits.total = 0
    }
  })

  test('with the budget at 0 nothing is refused: both bodies are held whole (what the budget bounds)', async () => {
    limits.perAddress = 0
    try {
      const a = slowPost('127.0.0.4', 1536 * KB, 1000 * KB)
      const b = slowPost('127.0.0.4', 1536 * KB, 1000 * KB)
      a.rest()
      b.rest()
      expect((await a.answer).status).toBe(200)
      expect((await b.answer).status).toBe(200)
      for (const p of [a, b]) p.done()
    } finally {
      limits.perAddress = 1024 * KB
    }
  })
})
