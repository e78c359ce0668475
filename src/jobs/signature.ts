// HackerEarth-style webhook signatures: `HE-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`,
// the check a receiver makes, and the outbox sender that signs each attempt when it is made (a retry
// hours later carries a fresh timestamp, so receivers may refuse old ones).
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Config } from '../config.ts'
import { PermanentFailure, postCallback } from './callback.ts'
import type { OutboxRow, Sender } from './outbox.ts'

export const SIGNATURE_HEADER = 'HE-Signature'

export const hmacHex = (secret: string, t: number, body: string): string =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')

/** The header value for body at unix time t. */
export const signatureHeader = (secret: string, t: number, body: string): string => `t=${t},v1=${hmacHex(secret, t, body)}`

/**
 * A receiver's check: the header parses, its timestamp is within toleranceSec of now, and one of its v1
 * values is the HMAC of "<t>.<body>" (compared in constant time).
 */
export function verifySignature(secret: string, header: string | undefined, body: string, nowSec: number, toleranceSec = 300): boolean {
  if (!header) return false
  let t: number | undefined
  const v1: string[] = []
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2)
    if (k === 't' && /^\d{1,12}$/.test(v ?? '')) t = Number(v)
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v ?? '')) v1.push(v)
  }
  if (t === undefined || v1.length === 0 || Math.abs(nowSec - t) > toleranceSec) return false
  const want = Buffer.from(hmacHex(secret, t, body), 'hex')
  return v1.some((v) => timingSafeEqual(Buffer.from(v, 'hex'), want))
}

/**
 * The sender of a signed callback kind: POSTs the stored body with HE-Signature computed now with the
 * secret secretFor(row) returns (null: nobody to sign for any more, so the delivery is dropped).
 */
export function signedCallbackSender(
  config: Pick<Config, 'outbox'>,
  secretFor: (row: OutboxRow) => string | null,
  now: () => Date = () => new Date()
): Sender {
  return async (row) => {
    const secret = secretFor(row)
    if (!secret) throw new PermanentFailure('no signing secret for this delivery')
    const t = Math.floor(now().getTime() / 1000)
    await postCallback({
      url: row.target,
      body: row.body,
      contentType: row.contentType,
      headers: {
        'x-arbiter-delivery': String(row.id),
        ...(row.headersJson ? (JSON.parse(row.headersJson) as Record<string, string>) : {}),
        [SIGNATURE_HEADER]: signatureHeader(secret, t, row.body),
      },
      timeoutMs: config.outbox.timeout_ms,
      blockPrivate: config.outbox.block_private_addresses,
    })
  }
}
