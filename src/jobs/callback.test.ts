import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { normaliseCallbackUrl, PermanentFailure, postCallback } from './callback.ts'
import { outboundGuard, type Resolver } from './outbound-guard.ts'

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

  test('POST by default, PUT when asked (Judge0 CE calls back with PUT)', async () => {
    await post('/ok')
    expect(seen.at(-1)?.method).toBe('POST')
    await post('/put', { method: 'PUT' })
    expect(seen.at(-1)).toMatchObject({ url: '/put', method: 'PUT', body: '{"a":1}' })
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

