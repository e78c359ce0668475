// What a connection may hold before and beside its requests. Node's HTTP server closes a connection
// whose request headers take too long only from their first byte (headersTimeout), and nothing closes one
// that sends no byte at all: each held ~8 KB of the server's memory and a descriptor for as long as its
// client liked (10,000 silent connections from one loop: +84 MB). So:
// - a connection must send its first request's headers within server.first_request_timeout_sec of
//   connecting, or it is answered 408 and closed (later requests on it have node's keep-alive timeout);
// - one address holds at most server.max_connections_per_address connections at once (an IPv6 client
//   counts by its /64, which one machine commonly has whole); the next one is answered 503 with
//   Retry-After and closed before anything of it is read. Trusted proxies are not counted: every client
//   of theirs comes through them, and they keep limits of their own;
// - a connection idle between two requests is closed after server.keep_alive_timeout_sec (node's own
//   5 s is shorter than the idle times of the clients and proxies in front of it: a client that reuses
//   a connection as the server closes it sees a reset on a request it sent; the cap above bounds what
//   the longer wait holds).
// All read the running config at each connection (live on SIGHUP).
import type { Server } from 'node:http'
import { isIPv6, type Socket } from 'node:net'

export interface ConnectionLimits {
  /** Connections one address may hold at once; 0 = no cap. */
  max_connections_per_address: number
  /** Seconds a new connection has to send its first request's headers. */
  first_request_timeout_sec: number
  /** Seconds a connection may stay idle between two requests (node's keepAliveTimeout, stated in its Keep-Alive header). */
  keep_alive_timeout_sec: number
  trusted_proxies: string[]
}

export type RefusalReason = 'per_address' | 'first_request_timeout'
const refusals: Record<RefusalReason, number> = { per_address: 0, first_request_timeout: 0 }
/** Connections refused since start, by reason (for /metrics). */
export const connectionRefusals = (): Readonly<Record<RefusalReason, number>> => refusals

/** The key an address is counted under: an IPv4 address (also when mapped into IPv6), or an IPv6 /64. */
export function addressKey(address: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (v4) return v4[1]
  if (!isIPv6(address)) return address
  const [head, tail] = address.toLowerCase().split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  // '::' stands for the missing zero groups; an embedded IPv4 tail takes two groups, past the /64 anyway
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`
}

const BUSY_TEXT = 'Too many connections from your address at once: close some, then try again.\n'
const BUSY = `HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(BUSY_TEXT)}\r\n\r\n${BUSY_TEXT}`
const SLOW = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'
/** How long a refused connection is read (and dropped) after its answer, so its client sees the answer, not a reset. */
const LINGER_MS = 1000

/** Answers and closes a connection, reading what its client still sends for a moment (unread data would reset it). */
function answerAndClose(socket: Socket, answer: string) {
  socket.on('error', () => {})
  socket.end(answer)
  socket.resume()
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}

/**
 * Puts the limits in front of the server's own connection handling (its 'connection' listeners run
 * only for a connection let in). `limits` is read at each connection.
 */
export function guardConnections(server: Server, limits: () => ConnectionLimits): void {
  const perKey = new Map<string, number>()
  const deadlines = new WeakMap<Socket, NodeJS.Timeout>()
  const handlers = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')

  server.on('connection', (socket: Socket) => {
    const l = limits()
    // node reads it when a response ends (the idle timer and the Keep-Alive header): set before any request here
    server.keepAliveTimeout = l.keep_alive_timeout_sec * 1000
    const address = socket.remoteAddress ?? ''
    const counted = l.max_connections_per_address > 0 && !!address && !l.trusted_proxies.includes(address) && !l.trusted_proxies.includes(addressKey(address))
    if (counted) {
      const key = addressKey(address)
      const n = perKey.get(key) ?? 0
      if (n >= l.max_connections_per_address) {
        refusals.per_address++
        return answerAndClose(socket, BUSY)
      }
      perKey.set(key, n + 1)
      socket.once('close', () => {
        const left = (perKey.get(key) ?? 1) - 1
        if (left > 0) perKey.set(key, left)
        else perKey.delete(key)
      })
    }
    const deadline = setTimeout(() => {
      refusals.first_request_timeout++
      answerAndClose(socket, SLOW)
    }, l.first_request_timeout_sec * 1000)
    deadline.unref()
    deadlines.set(socket, deadline)
    socket.once('close', () => clearTimeout(deadline))
    for (const handle of handlers) handle.call(server, socket)
  })

  // the first request's headers have arrived: node's own timeouts take over
  const arrived = (socket: Socket) => {
    const deadline = deadlines.get(socket)
    if (deadline === undefined) return
    clearTimeout(deadline)
    deadlines.delete(socket)
  }
  // 'request' only: a listener on 'upgrade', 'connect' or 'checkContinue' would change what node does
  // with those requests (this server answers them as node does without one)
  server.prependListener('request', (req) => arrived(req.socket))
}
