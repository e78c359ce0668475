// One callback POST: a URL check (optionally refusing private addresses), a hard timeout, no redirects.
// It never throws for a slow or dead receiver beyond its own promise: the outbox decides about retries.
import { lookup } from 'node:dns/promises'
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'

/** A delivery that can never succeed (bad URL, refused address): not retried. */
export class PermanentFailure extends Error {}

export interface CallbackRequest {
  url: string
  body: string
  contentType: string
  headers?: Record<string, string>
  timeoutMs: number
  blockPrivate?: boolean
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

export function isPrivateAddress(ip: string): boolean {
  const v = isIP(ip)
  if (v === 4) {
    const [a, b] = ip.split('.').map(Number)
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224
  }
  if (v === 6) {
    const s = ip.toLowerCase()
    if (s.startsWith('::ffff:')) return isPrivateAddress(s.slice(7))
    return s === '::1' || s === '::' || s.startsWith('fc') || s.startsWith('fd') || s.startsWith('fe8') || s.startsWith('fe9') || s.startsWith('fea') || s.startsWith('feb') || s.startsWith('ff')
  }
  return false
}

/** Resolves and throws PermanentFailure for a private address. Checked at send time (a name may move). */
async function refusePrivate(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const addrs = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address)
  const bad = addrs.find(isPrivateAddress)
  if (bad) throw new PermanentFailure(`callback host ${host} resolves to a private address (${bad})`)
}

// node:http with keep-alive agents rather than fetch: every v4 job sends two callbacks from the main
// thread that also serves the API, and fetch's web streams cost several times the CPU per request.
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: 64 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
} as const

/** POSTs once. Resolves on 2xx; rejects with the reason otherwise. */
export async function postCallback(req: CallbackRequest): Promise<void> {
  const url = parseCallbackUrl(req.url)
  if (req.blockPrivate) await refusePrivate(url)
  const protocol = url.protocol as keyof typeof agents
  const send = protocol === 'https:' ? httpsRequest : httpRequest
  const status = await new Promise<number>((resolve, reject) => {
    const r = send(
      url,
      {
        method: 'POST',
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
    r.on('error', reject)
    r.on('close', () => clearTimeout(timer))
    r.end(req.body)
  })
  if (status < 200 || status > 299) throw new Error(`HTTP ${status}`)
}
