// Keep-alive connections for callbacks: undici's Client, one connection each, held by one exchange at a
// time (a request, or a lead and its request pipelined: jobs/callback.ts). Not undici's Pool: it puts a
// new request behind a running one on the same connection once pipelining is on, so a slow receiver's
// answer would hold up another delivery, and it may split a lead and its request over two connections,
// where their order is no longer kept.
import type { LookupFunction } from 'node:net'
import { Client } from 'undici'

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

const drop = (client: Client) => void client.destroy().catch(() => undefined)

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
      return new Client(origin, {
        // a lead and its request: written together, answered in order
        pipelining: 2,
        maxHeaderSize: opts.maxHeaderSize,
        maxResponseSize: opts.maxResponseSize,
        keepAliveTimeout: IDLE_MS,
        keepAliveMaxTimeout: IDLE_MS,
        // the exchange's own deadline (jobs/callback.ts) ends what takes too long; these would only race it
        headersTimeout: 0,
        bodyTimeout: 0,
        connect: { timeout: connectTimeoutMs, ...(opts.lookup ? { lookup: opts.lookup } : {}) },
      })
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
