import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isPrivateAddress, normaliseCallbackUrl, PermanentFailure, postCallback } from './callback.ts'

let server: Server
let base = ''
const seen: { url: string; headers: IncomingMessage['headers']; body: string }[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      seen.push({ url: req.url!, headers: req.headers, body })
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

test.each([
  ['127.0.0.1', true],
  ['10.1.2.3', true],
  ['172.20.0.1', true],
  ['192.168.1.1', true],
  ['169.254.169.254', true],
  ['::1', true],
  ['fd00::1', true],
  ['::ffff:127.0.0.1', true],
  ['8.8.8.8', false],
  ['172.32.0.1', false],
  ['2001:4860:4860::8888', false],
])('isPrivateAddress(%s) = %s', (ip, want) => {
  expect(isPrivateAddress(ip)).toBe(want)
})
