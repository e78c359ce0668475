// The address a request comes from, for per-address limits (the admin sign-in throttle). Behind a reverse
// proxy (an https public_url needs one: the server has no TLS of its own) every connection comes from the
// proxy, so a request from a trusted proxy is counted against the address its X-Forwarded-For names. The
// header is read from the right: each trusted proxy appends the address it was reached from, so the first
// entry from the right that is not a trusted proxy is the one no client can forge; anything to its left
// was written by the client.
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { isIP } from 'node:net'

/** The client's address given the connection's peer, its X-Forwarded-For header and the trusted proxies. */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: ReadonlySet<string>): string {
  if (!peer) return 'unknown'
  if (!trusted.has(peer) || !forwardedFor) return peer
  let nearest = peer
  for (const entry of forwardedFor.split(',').map((a) => a.trim()).reverse()) {
    if (!isIP(entry)) return nearest // junk: stop at the last address a trusted hop vouched for
    nearest = entry
    if (!trusted.has(entry)) return entry
  }
  return nearest
}

/** clientAddress of a request served by @hono/node-server ('unknown' without a socket: app.request in tests). */
export function requestAddress(c: Context, trusted: ReadonlySet<string>): string {
  let peer: string | undefined
  try {
    peer = getConnInfo(c).remote.address
  } catch {
    peer = undefined
  }
  return clientAddress(peer, c.req.header('x-forwarded-for'), trusted)
}
