// Keep-alive connections for callbacks: undici's Client, one connection each, held by one exchange at a
// time (a request, or a lead and its request pipelined: jobs/callback.ts). Not undici's Pool: it puts a
// new request behind a running one on the same connection once pipelining is on, so a slow receiver's
// answer would hold up another delivery, and it may split a lead and its request over two connections,
// where their order is no longer kept.
import type { LookupFunction, Socket } from 'node:net'
import { buildConnector, Client } from 'undici'

/** Idle connections kept per origin and in all: callback URLs naming many origins (ports) cannot grow them. */
export const IDLE_PER_ORIGIN = 16
export const IDLE_TOTAL = 256
/** An idle connection unused this long is closed (a receiver's Keep-Alive hint closes its socket sooner). */
export const IDLE_MS = 30_000

export interface ConnectionOptions {
  /** The status line and headers, in bytes (more: the connection is closed). */
  maxHeaderSize: number
  /** An answer's body, in bytes (more: the connection is closed). */
  maxResponseSize: number
  /** The outbound guard's lookup: the checked address is the one connected to. */
  lookup?: LookupFunction
  /** false: a connection serves one exchange and is closed (a test's own guard). */
  keepAlive?: boolean
}

export interface Connections {
  /** An idle connection to the origin, or a new one. */
  take(origin: string, connectTimeoutMs: number): Client
  /** Back after its exchange has ended (every answer read or dropped). */
  give(origin: string, client: Client): void
  /** Idle connections now (tests). */
  idle(): number
}

/** Closes a connection for good (one that broke, was cut, or is not kept idle). */
export const drop = (client: Client) => void client.destroy().catch(() => undefined)

/** Each connection's socket now (undici keeps it to itself): writeTogether corks it. */
const sockets = new WeakMap<Client, { current?: Socket }>()

/**
 * Runs `dispatch` (requests given to the client) with the connection's socket corked until the next
 * turn of the event loop, so the requests leave in one write: undici writes each request with a write
 * of its own, and on a reused connection only after a turn of the event loop (it first reads what the
 * receiver may have sent meanwhile). One write, not two, for a v4 job's pair: the kernel's loopback
 * send (~0.05–0.1 ms) once, and the receiver woken once. A new connection writes when it connects, as
 * undici does.
 */
export function writeTogether(client: Client, dispatch: () => void): void {
  const socket = sockets.get(client)?.current
  if (!socket || socket.destroyed || socket.connecting) return dispatch()
  socket.cork()
  try {
    dispatch()
  } finally {
    setImmediate(() => socket.uncork())
  }
}

export function callbackConnections(opts: ConnectionOptions): Connections {
  const idle = new Map<string, { client: Client; at: number }[]>()
  let count = 0
  let sweep: NodeJS.Timeout | undefined
  const sweepIdle = () => {
    const old = Date.now() - IDLE_MS
    for (const [origin, list] of idle) {
      const keep = list.filter((e) => e.at > old || void drop(e.client))
      count -= list.length - keep.length
      if (keep.length) idle.set(origin, keep)
      else idle.delete(origin)
    }
    if (!count) {
      clearInterval(sweep)
      sweep = undefined
    }
  }
  return {
    take(origin, connectTimeoutMs) {
      const list = idle.get(origin)
      while (list?.length) {
        const { client } = list.pop()!
        count--
        if (!list.length) idle.delete(origin)
        if (!client.closed && !client.destroyed) return client
      }
      const held: { current?: Socket } = {}
      const connector = buildConnector({ timeout: connectTimeoutMs, ...(opts.lookup ? { lookup: opts.lookup } : {}) })
      const client = new Client(origin, {
        // a lead and its request: written together, answered in order
        pipelining: 2,
        maxHeaderSize: opts.maxHeaderSize,
        maxResponseSize: opts.maxResponseSize,
        keepAliveTimeout: IDLE_MS,
        keepAliveMaxTimeout: IDLE_MS,
        // the exchange's own deadline (jobs/callback.ts) ends what takes too long; these would only race it
        headersTimeout: 0,
        bodyTimeout: 0,
        connect: (options, callback) =>
          connector(options, (...args) => {
            held.current = args[1] ?? undefined
            callback(...args)
          }),
      })
      sockets.set(client, held)
      return client
    },
    give(origin, client) {
      const list = idle.get(origin) ?? []
      if (opts.keepAlive === false || client.closed || client.destroyed || count >= IDLE_TOTAL || list.length >= IDLE_PER_ORIGIN) return drop(client)
      list.push({ client, at: Date.now() })
      idle.set(origin, list)
      count++
      sweep ??= setInterval(sweepIdle, IDLE_MS / 2).unref()
    },
    idle: () => count,
  }
}
