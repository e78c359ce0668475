// One callback POST: a URL check (optionally refusing private addresses through outbound-guard.ts), a
// hard timeout, no redirects.
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
        headers: {
          'content-type': req.contentType,
          'content-length': Buffer.byteLength(req.body),
          'user-agent': 'Arbiter-callback/1',
          ...req.headers,
        },
      },
      (res) => {
        // drained so the connection can be reused; the receiver's answer is not read. A redirect
        // is not followed (it would turn the POST into a GET): its 3xx counts as a failure.
        res.resume()
        resolve(res.statusCode ?? 0)
      }
    )
    // the whole exchange, connect included, within timeoutMs
    const timer = setTimeout(() => {
      const err = new Error(`timed out after ${req.timeoutMs} ms`)
      err.name = 'TimeoutError'
      r.destroy(err)
    }, req.timeoutMs)
    r.on('error', (err) =>
      reject(err instanceof RefusedAddress ? new PermanentFailure(`callback refused: ${err.message}`) : err)
    )
    r.on('close', () => clearTimeout(timer))
    r.end(req.body)
  })
  if (status < 200 || status > 299) throw new Error(`HTTP ${status}`)
}
