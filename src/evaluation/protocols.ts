// The registry of wire protocols. The core stores the name of the protocol that accepted a submission
// (its `api` column) and calls that protocol's hooks inside its own transactions, so a protocol can
// enqueue its callbacks through the outbox atomically with the state change. The core never branches
// on which protocol asked and imports none of them: the composition root builds the registry.
import type { HookDeps, Protocol, Protocols } from './protocol-types.ts'

export type { HookDeps, Protocol, Protocols }

export function protocolRegistry(list: Protocol[]): Protocols {
  const map = new Map<string, Protocol>()
  for (const p of list) {
    if (map.has(p.name)) throw new Error(`protocol ${p.name} registered twice`)
    map.set(p.name, p)
  }
  return map
}

/** The protocol of a stored row; a row of a protocol no longer registered gets no hooks. */
export const protocolOf = (protocols: Protocols, name: string): Protocol | undefined => protocols.get(name)
