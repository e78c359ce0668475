import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseConfig } from '../config.ts'
import { PermanentFailure } from './callback.ts'
import type { OutboxRow } from './outbox.ts'
import { signatureHeader, signedCallbackSender, verifySignature } from './signature.ts'

// computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
const KNOWN = '38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789'
const T = 1_700_000_000
const BODY = '{"a":1}'

describe('signatureHeader', () => {
  test('is t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    expect(signatureHeader('whsec_test', T, BODY)).toBe(`t=${T},v1=${KNOWN}`)
  })
})

describe('verifySignature', () => {
  const header = `t=${T},v1=${KNOWN}`
  test('accepts the right signature within the tolerance', () => {
    expect(verifySignature('whsec_test', header, BODY, T)).toBe(true)
    expect(verifySignature('whsec_test', header, BODY, T + 300)).toBe(true)
    expect(verifySignature('whsec_test', ` t=${T} , v1=${KNOWN} `, BODY, T)).toBe(true)
  })
  test('accepts when one of several v1 values matches (a rotated secret)', () => {
    expect(verifySignature('whsec_test', `t=${T},v1=${'0'.repeat(64)},v1=${KNOWN}`, BODY, T)).toBe(true)
  })
  test.each([
    ['another body', header, '{"a":2}', T],
    ['another secret', `t=${T},v1=${signatureHeader('other', T, BODY).split('v1=')[1]}`, BODY, T],
    ['a timestamp too old', header, BODY, T + 301],
    ['a timestamp from the future', header, BODY, T - 301],
    ['another timestamp with the same mac', `t=${T + 1},v1=${KNOWN}`, BODY, T],
    ['no header', undefined, BODY, T],
    ['no v1', `t=${T}`, BODY, T],
    ['no t', `v1=${KNOWN}`, BODY, T],
    ['a short mac', `t=${T},v1=${KNOWN.slice(2)}`, BODY, T],
    ['upper-case hex', `t=${T},v1=${KNOWN.toUpperCase()}`, BODY, T],
    ['garbage', 'nonsense', BODY, T],
  ])('refuses %s', (_what, h, body, now) => {
    expect(verifySignature('whsec_test', h, body, now)).toBe(false)
  })
})

describe('signedCallbackSender', () => {
  let server: Server
  let base = ''
  const seen: { headers: IncomingHttpHeaders; body: string }[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        seen.push({ headers: req.headers, body })
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise((r) => server.close(r)))

  const config = parseConfig({}, {}, '/nonexistent')
  const row = (over: Partial<OutboxRow> = {}) =>
    ({ id: 7, kind: 'interview_report', target: `${base}/hook`, body: BODY, contentType: 'application/json', headersJson: '{"x-arbiter-event":"interview.report"}', groupKey: 'report:x', ...over }) as OutboxRow

  test('signs the stored body with the secret at the time of sending', async () => {
    const send = signedCallbackSender(config, () => 'whsec_test', () => new Date(T * 1000))
    await send(row())
    const got = seen.at(-1)!
    expect(got.body).toBe(BODY)
    expect(got.headers['he-signature']).toBe(`t=${T},v1=${KNOWN}`)
    expect(got.headers['x-arbiter-delivery']).toBe('7')
    expect(got.headers['x-arbiter-event']).toBe('interview.report')
    expect(got.headers['content-type']).toBe('application/json')
    expect(verifySignature('whsec_test', got.headers['he-signature'] as string, got.body, T)).toBe(true)
  })

  test('no secret (the interview is gone) is a permanent failure, and nothing is sent', async () => {
    const before = seen.length
    const send = signedCallbackSender(config, () => null)
    await expect(send(row())).rejects.toBeInstanceOf(PermanentFailure)
    expect(seen).toHaveLength(before)
  })
})
