// One callback POST: a URL check (optionally refusing private addresses through outbound-guard.ts), a
// hard timeout, no redirects, and the receiver's answer read at most ANSWER_MAX_BYTES, then dropped.
// It never throws for a slow or dead receiver beyond its own promise: the outbox decides about retries.
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { outboundGuard, RefusedAddress, type OutboundGuard } from './outbound-guard.ts'

/** A delivery that can never succeed (bad URL, refused address): not retried. */
export class PermanentFailure extends Error {}

export interface CallbackRequest {
  url: string
  /** POST unless a protocol asks otherwise (Judge0 CE calls back with PUT). */
  method?: 'POST' | 'PUT'
  body: string
  contentType: string
  headers?: Record<string, string>
  timeoutMs: number
  blockPrivate?: boolean
  /** The guard used when blockPrivate is on; the default one unless a test injects another. */
  guard?: OutboundGuard
}

/** Clients write callbacks as "client.com/cb" or "127.0.0.1:8000": a missing scheme means http://. */
export function normaliseCallbackUrl(raw: string): string {
  const s = raw.trim()
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `http://${s}`
}

export function parseCallbackUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(normaliseCallbackUrl(raw))
  } catch {
    throw new PermanentFailure(`not a URL: ${raw}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new PermanentFailure(`not an http(s) URL: ${raw}`)
  return url
}

// node:http with keep-alive agents rather than fetch: every v4 job sends two callbacks from the main
// thread that also serves the API, and fetch's web streams cost several times the CPU per request.
// With the guard on, the agents connect through its lookup (the checked address is the one used);
// a guard injected by a test gets agents of its own, without keep-alive.
const agentsFor = (guard?: OutboundGuard, keepAlive = true) => {
  const lookup = guard?.lookup as never
  return {
    'http:': new HttpAgent({ keepAlive, maxSockets: 64, ...(guard ? { lookup } : {}) }),
    'https:': new HttpsAgent({ keepAlive, maxSockets: 64, ...(guard ? { lookup } : {}) }),
  } as const
}
const defaultGuard = outboundGuard()
const openAgents = agentsFor()
const guardedAgents = agentsFor(defaultGuard)

/**
 * What is read of a receiver's answer: its status decides, its body is never used. A body longer than
 * this (declared or counted), or one not ended ANSWER_GRACE_MS after the status line, closes the
 * connection instead of being read on (a receiver streaming an endless 200 once cost 128 MiB of reads
 * per callback); a short answer that ends in time keeps the keep-alive connection for the next one.
 */
export const ANSWER_MAX_BYTES = 4096
export const ANSWER_GRACE_MS = 1000
/** The status line and headers (Node's parser refuses more), and 1xx interim answers before the status. */
const ANSWER_MAX_HEADER_BYTES = 8192
const ANSWER_MAX_INTERIM = 4

/** Sends once (POST, or req.method). Resolves on 2xx; rejects with the reason otherwise. */
export async function postCallback(req: CallbackRequest): Promise<void> {
  const url = parseCallbackUrl(req.url)
  const guard = req.blockPrivate ? (req.guard ?? defaultGuard) : undefined
  const agents = !guard ? openAgents : guard === defaultGuard ? guardedAgents : agentsFor(guard, false)
  if (guard) {
    try {
      guard.checkLiteral(url)
    } catch (err) {
      throw new PermanentFailure(`callback refused: ${(err as Error).message}`)
    }
  }
  const protocol = url.protocol as keyof typeof agents
  const send = protocol === 'https:' ? httpsRequest : httpRequest
  const status = await new Promise<number>((resolve, reject) => {
    const r = send(
      url,
      {
        method: req.method ?? 'POST',
        agent: agents[protocol],
        maxHeaderSize: ANSWER_MAX_HEADER_BYTES,
        headers: {
          'content-type': req.contentType,
          'content-length': Buffer.byteLength(req.body),
          'user-agent': 'Arbiter-callback/1',
          ...req.headers,
        },
      },
      (res) => {
        // the status is the answer: the delivery is settled now, whatever the body does. A redirect
        // is not followed (it would turn the POST into a GET): its 3xx counts as a failure.
        resolve(res.statusCode ?? 0)
        const declared = Number(res.headers['content-length'])
        if (declared > ANSWER_MAX_BYTES) return void r.destroy()
        // what remains of the body is read (unused) only so the connection can be reused
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > ANSWER_MAX_BYTES) r.destroy()
        })
        clearTimeout(timer)
        timer = setTimeout(() => r.destroy(), Math.min(ANSWER_GRACE_MS, Math.max(0, deadline - Date.now())))
      }
    )
    let interim = 0
    r.on('information', () => {
      if (++interim > ANSWER_MAX_INTERIM) r.destroy(new Error('too many interim (1xx) answers'))
    })
    // the whole exchange, connect included, within timeoutMs
    const deadline = Date.now() + req.timeoutMs
    let timer = setTimeout(() => {
      const err = new Error(`timed out after ${req.timeoutMs} ms`)
      err.name = 'TimeoutError'
      r.destroy(err)
    }, req.timeoutMs)
    r.on('error', (err) =>
      reject(err instanceof RefusedAddress ? new PermanentFailure(`callback refused: ${err.message}`) : err)
    )
    // the request closes when the answer has ended or the connection was dropped
    r.on('close', () => clearTimeout(timer))
    r.end(req.body)
  })
  if (status < 200 || status > 299) throw new Error(`HTTP ${status}`)
}
