// One callback POST (or a lead and its POST, pipelined): a URL check (optionally refusing private
// addresses through outbound-guard.ts), a hard timeout, no redirects, and the receiver's answer read at
// most ANSWER_MAX_BYTES, then dropped. It never throws for a slow or dead receiver beyond its own
// promise: the outbox decides about retries.
import { callbackConnections, drop, writeTogether } from './callback-connections.ts'
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

// undici's Client (jobs/callback-connections.ts) rather than fetch or node:http: every v4 job sends two
// callbacks from the main thread that also serves the API. fetch's web streams cost several times the
// CPU a request; node:http's agent cannot pipeline, so a v4 job's two exchanges cost two round trips, and
// with them written together the receiver reads both at one wake-up and this side reads both answers at
// one (a pair costs both ends 0.62-0.67x the CPU of one exchange after the other: scripts/bench-callbacks.ts). With the guard on,
// connections go through its lookup (the checked address is the one used); a guard injected by a test
// gets connections of its own, closed after each exchange.
const defaultGuard = outboundGuard()

/**
 * What is read of a receiver's answer: its status decides, its body is never used. A body longer than
 * this (declared or counted), or one not ended ANSWER_GRACE_MS after the status line, closes the
 * connection instead of being read on (a receiver streaming an endless 200 once cost 128 MiB of reads
 * per callback); a short answer that ends in time keeps the keep-alive connection for the next one.
 */
export const ANSWER_MAX_BYTES = 4096
export const ANSWER_GRACE_MS = 1000
/** The status line and headers (more closes the connection), and 1xx interim answers before the status. */
const ANSWER_MAX_HEADER_BYTES = 8192
const ANSWER_MAX_INTERIM = 4

const connectionOptions = { maxHeaderSize: ANSWER_MAX_HEADER_BYTES, maxResponseSize: ANSWER_MAX_BYTES }
const openConnections = callbackConnections(connectionOptions)
const guardedConnections = callbackConnections({ ...connectionOptions, lookup: defaultGuard.lookup as never })

/** One body sent: the request's own, or its lead's. */
interface Sent {
  body: string
  headers?: Record<string, string>
}

/** The declared length of an answer's body, from undici's raw headers (name, value, name, value...). */
function declaredLength(raw: Buffer[]): number {
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === 14 && raw[i].toString('latin1').toLowerCase() === 'content-length') return Number(raw[i + 1].toString('latin1'))
  }
  return 0
}

/**
 * Sends each body in turn on one connection, pipelined (all written before any answer is read; a
 * receiver answers them in order), within the request's timeout as a whole. Each settles on its status
 * line: a number, or the error that ended it (the deadline, a refused address, the connection's end).
 *
 * Through undici's dispatch with a handler of its own, not `client.request`: a request's promise, its
 * async resource, its parsed headers, its body stream and the abort signal's listeners cost the main
 * thread several times what the exchange itself does, and every answer is only a status to keep.
 */
function exchange(req: CallbackRequest, sends: Sent[]): Promise<(number | Error)[]> {
  const url = parseCallbackUrl(req.url)
  const guard = req.blockPrivate ? (req.guard ?? defaultGuard) : undefined
  const connections = !guard
    ? openConnections
    : guard === defaultGuard
      ? guardedConnections
      : callbackConnections({ ...connectionOptions, lookup: guard.lookup as never, keepAlive: false })
  if (guard) {
    try {
      guard.checkLiteral(url)
    } catch (err) {
      throw new PermanentFailure(`callback refused: ${(err as Error).message}`)
    }
  }
  const client = connections.take(url.origin, req.timeoutMs)
  const path = `${url.pathname}${url.search}`
  // credentials in the URL (https://user:pass@host/cb) go as Basic authorization, as node:http sends them
  const auth = url.username || url.password ? { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` } : undefined
  return new Promise((resolve) => {
    const outcomes: (number | Error | undefined)[] = sends.map(() => undefined)
    let unsettled = sends.length
    let unended = sends.length
    let broken = false
    let interim = 0
    let resolved = false
    const finish = () => {
      if (resolved) return
      resolved = true
      resolve(outcomes.map((o) => (o instanceof RefusedAddress ? new PermanentFailure(`callback refused: ${o.message}`) : o!)))
    }
    // the connection goes back once every answer has been read (a short answer has, in the same read as
    // its status line); one that broke or was cut is closed
    const ended = () => {
      if (--unended) return
      clearTimeout(timer)
      if (broken) drop(client)
      else connections.give(url.origin, client)
      finish()
    }
    const cut = (err: Error) => {
      broken = true
      void client.destroy(err).catch(() => undefined)
    }
    // the whole exchange, connect included, within timeoutMs
    const deadline = Date.now() + req.timeoutMs
    let timer = setTimeout(() => {
      const err = new Error(`timed out after ${req.timeoutMs} ms`)
      err.name = 'TimeoutError'
      for (let i = 0; i < outcomes.length; i++) if (outcomes[i] === undefined) outcomes[i] = err
      cut(err)
      finish()
    }, req.timeoutMs)
    // every status in, and a body still coming after this read: the outcomes are known now. What
    // remains of the bodies (unused: read only so the connection can be reused) gets ANSWER_GRACE_MS
    // at most, or the connection is closed
    const bodiesLeft = () => {
      if (!unended) return
      clearTimeout(timer)
      timer = setTimeout(() => cut(new Error('answer body not ended in time')), Math.min(ANSWER_GRACE_MS, Math.max(0, deadline - Date.now())))
      setImmediate(finish)
    }
    const settle = (i: number, o: number | Error) => {
      if (outcomes[i] !== undefined) return
      outcomes[i] = o
      // a short answer's body ends in the same read as its status line
      if (!--unsettled) queueMicrotask(bodiesLeft)
    }
    const dispatch = (s: Sent, i: number) => {
      let abort: ((err: Error) => void) | undefined
      let done = false
      client.dispatch(
        {
          path,
          method: req.method ?? 'POST',
          headers: { 'content-type': req.contentType, 'user-agent': 'Arbiter-callback/1', ...auth, ...s.headers },
          body: s.body,
          // undici pipelines only requests it may send again: a delivery may be (at-least-once, with its
          // X-Arbiter-Delivery id), and a request behind a lead whose connection broke is sent again on a new one
          idempotent: true,
        },
        {
          onConnect(a: (err: Error) => void) {
            abort = a
          },
          onHeaders(statusCode: number, raw: Buffer[]) {
            if (statusCode < 200) {
              if (++interim > ANSWER_MAX_INTERIM) abort?.(new Error('too many interim (1xx) answers'))
              return true
            }
            // the status is the answer: the delivery is settled now, whatever the body does. A redirect
            // is not followed (it would turn the POST into a GET): its 3xx counts as a failure.
            settle(i, statusCode)
            if (declaredLength(raw) > ANSWER_MAX_BYTES) abort?.(new Error('answer body too long'))
            return true
          },
          onData: () => true,
          onComplete() {
            if (done) return
            done = true
            ended()
          },
          onError(err: Error) {
            settle(i, err)
            if (done) return
            done = true
            broken = true
            ended()
          },
        }
      )
    }
    writeTogether(client, () => sends.forEach(dispatch))
  })
}

const failureOf = (o: number | Error): Error | undefined =>
  o instanceof Error ? o : o < 200 || o > 299 ? new Error(`HTTP ${o}`) : undefined

/** Sends once (POST, or req.method). Resolves on 2xx; rejects with the reason otherwise. */
export async function postCallback(req: CallbackRequest): Promise<void> {
  const [outcome] = await exchange(req, [{ body: req.body, headers: req.headers }])
  const failed = failureOf(outcome)
  if (failed) throw failed
}

/**
 * Sends `lead` and then the request on one connection, pipelined (v4's CODE_COMPILED and its
 * REQUEST_COMPLETED): one round trip for both. Resolves or rejects on the request's own answer, as
 * postCallback, with the lead's failure if it had one (its answer not a 2xx, or the connection ending
 * under it); one that timed out took the request with it, which rejects as timed out.
 */
export async function postCallbackWithLead(req: CallbackRequest, lead: Sent): Promise<{ leadFailure?: Error }> {
  const [leadOutcome, outcome] = await exchange(req, [lead, { body: req.body, headers: req.headers }])
  const failed = failureOf(outcome)
  if (failed) throw failed
  const leadFailure = failureOf(leadOutcome)
  return leadFailure ? { leadFailure } : {}
}
