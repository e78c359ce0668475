// The one guard for every request this server makes to an address a client chose: callbacks, the
// interview report callback and resume downloads. It decides which addresses are refused and pins the
// checked address for the connection: the lookup it checks is the lookup the socket connects with, so a
// name cannot resolve to a public address for the check and to a private one for the connection.
import type { LookupAddress } from 'node:dns'
import { lookup as dnsLookup } from 'node:dns'
import { BlockList, isIP } from 'node:net'

// Refused: this host, the LAN, link-local (cloud metadata at 169.254.169.254), CGNAT, benchmarking
// (198.18/15), documentation, multicast and reserved ranges. Two lists: a BlockList also matches an
// IPv4 address against ::ffff:0:0/96, which is refused whole on the IPv6 side.
const blocked4 = new BlockList()
const blocked6 = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked4.addSubnet(net, bits, 'ipv4')
for (const [net, bits] of [
  // IPv4-compatible (::/96, with :: and ::1), IPv4-mapped, NAT64 (well-known and local-use) and 6to4
  // embed an IPv4 address the network may route to: refused whole rather than decoded
  ['::', 96], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23],
  ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked6.addSubnet(net, bits, 'ipv6')

/** Whether an address (literal IPv4 or IPv6) is one the guard refuses; anything not an address is refused. */
export function isRefusedAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '')
  const family = isIP(a)
  if (family === 0) return true
  return family === 4 ? blocked4.check(a, 'ipv4') : blocked6.check(a, 'ipv6')
}

/** A refused destination: never worth retrying. */
export class RefusedAddress extends Error {
  override name = 'RefusedAddress'
}

export type Resolver = (hostname: string, family: number) => Promise<LookupAddress[]>

const systemResolver: Resolver = (hostname, family) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, family }, (err, addresses) => (err ? reject(err) : resolve(addresses)))
  )

export interface GuardOptions {
  /** The address test; isRefusedAddress unless a test lets some loopback address through. */
  refused?: (address: string) => boolean
  /** Name resolution; the system's unless a test injects one (e.g. to rebind between calls). */
  resolve?: Resolver
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

export interface OutboundGuard {
  /** Throws RefusedAddress when the URL's host is a refused literal address (literals skip lookup). */
  checkLiteral(url: URL): void
  /** The `lookup` for http(s) agents and requests: refuses private answers, connects to the checked one. */
  lookup: (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) => void
}

export function outboundGuard({ refused = isRefusedAddress, resolve = systemResolver }: GuardOptions = {}): OutboundGuard {
  return {
    checkLiteral(url) {
      // WHATWG URL parsing already turned decimal, octal and hex IPv4 forms into dotted quads
      const host = url.hostname.replace(/^\[|\]$/g, '')
      if (isIP(host) && refused(host)) throw new RefusedAddress(`${host} is not a public address`)
    },
    lookup(hostname, options, callback) {
      resolve(hostname, options.family ?? 0).then(
        (addresses) => {
          const bad = addresses.find((a) => refused(a.address))
          if (bad || addresses.length === 0) {
            return callback(new RefusedAddress(`${hostname} resolves to ${bad?.address ?? 'nothing'}`), [])
          }
          if (options.all) callback(null, addresses)
          else callback(null, addresses[0].address, addresses[0].family)
        },
        (err: NodeJS.ErrnoException) => callback(err, [])
      )
    },
  }
}
