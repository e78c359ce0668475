// Bytes of request bodies being received at once, per client address and in all. Each body is bounded
// by its route's limit (2 MiB for a submission), but a client may send its headers in time and its
// bodies slowly: 256 connections of one address, each holding a body it has not finished sending, held
// 512 MiB of the server's memory until node's request timeout (300 s). So the bytes an address's bodies
// have sent while unfinished are counted, and past server.body_bytes_in_flight_per_address a body is
// refused (QueueFull: 429 with Retry-After on every face) before more of it is read. The oldest body
// still arriving from an address is not counted there: any body up to its route's limit arrives as
// before, and leaves the budget to the others. Behind a trusted proxy the address is the one its
// X-Forwarded-For names (client-address.ts); an IPv6 address counts by its /64.
// Many addresses (a /48 holds 65,536 /64s) each with one oldest body would still hold their sum, so all
// bodies arriving, the oldest too, share server.body_bytes_in_flight: past it, a chunk is refused when
// its address already holds its share (that budget over the addresses with bodies arriving), so an
// address that holds little is still served while the others' bodies fill the budget; at twice the
// budget every chunk is refused (the shares shrink as addresses come, and what was taken under a larger
// one stays: this is the bound).
import type { Context } from 'hono'
import { AppError } from '../errors.ts'
import { requestAddress } from './client-address.ts'
import { addressKey } from './connection-guard.ts'

export interface BodyBudgetLimits {
  /** Bytes of unfinished bodies one address may have sent at once, but its oldest's; 0 = no budget. */
  perAddress: number
  /** Bytes of unfinished bodies all addresses may have sent at once; past it each address its share, at twice it none; 0 = no budget. */
  total: number
  trustedProxies: ReadonlySet<string>
}

let limits: () => BodyBudgetLimits = () => ({ perAddress: 0, total: 0, trustedProxies: new Set() })
/** Where the budget is read from, at each body (live on SIGHUP): the app sets it from its config. */
export function configureBodyBudget(read: () => BodyBudgetLimits): void {
  limits = read
}

let refused = 0
/** Bodies refused by either budget since start (for /metrics). */
export const bodyBudgetRefusals = (): number => refused

interface Reader {
  bytes: number
}
/** Per address: the bodies arriving, oldest first, and the bytes they have all sent. */
const arriving = new Map<string, { readers: Reader[]; bytes: number }>()
let arrivingBytes = 0

/** Bytes held now by the bodies still arriving from every address (for tests and /metrics). */
export const bodyBytesArriving = (): number => arrivingBytes

export interface BodyReservation {
  /** Counts a chunk just read; throws QueueFull if it would pass its address's budget, or the server's while the address holds its share. */
  take(bytes: number): void
  /** The body has been read whole, refused or cut off: its bytes no longer count. */
  release(): void
}

/** A reservation for the body of this request, or undefined when there is no budget or no client address. */
export function reserveBody(c: Context): BodyReservation | undefined {
  const l = limits()
  if (l.perAddress <= 0 && l.total <= 0) return undefined
  const address = requestAddress(c, l.trustedProxies)
  if (address === 'unknown') return undefined
  const key = addressKey(address)
  const held = arriving.get(key) ?? { readers: [], bytes: 0 }
  arriving.set(key, held)
  const self: Reader = { bytes: 0 }
  held.readers.push(self)
  let released = false
  return {
    take(bytes) {
      const { perAddress, total } = limits()
      const oldest = held.readers[0]
      // the oldest body is bounded by its route's limit alone and is not counted: a large upload arriving
      // slowly leaves the budget to the address's other bodies
      if (perAddress > 0 && oldest !== self && held.bytes - oldest.bytes + bytes > perAddress) {
        refused++
        throw new AppError('QueueFull', 'the bodies of requests from your address still arriving already hold their share of the server: send this one again when they have arrived', {
          retry_after: 1,
        })
      }
      if (total > 0 && arrivingBytes + bytes > total && (held.bytes + bytes > total / arriving.size || arrivingBytes + bytes > 2 * total)) {
        refused++
        throw new AppError('QueueFull', 'the server is receiving all the request bodies it holds at once, and those from your address hold their share: send this one again in a moment', {
          retry_after: 1,
        })
      }
      self.bytes += bytes
      held.bytes += bytes
      arrivingBytes += bytes
    },
    release() {
      if (released) return
      released = true
      held.bytes -= self.bytes
      arrivingBytes -= self.bytes
      held.readers.splice(held.readers.indexOf(self), 1)
      if (!held.readers.length) arriving.delete(key)
    },
  }
}
