// The registry of wire protocols. The core stores the name of the protocol that accepted a submission
// (its `api` column) and calls that protocol's hooks inside its own transactions, so a protocol can
// enqueue its callbacks through the outbox atomically with the state change. The core never branches
// on which protocol asked and imports none of them: the composition root builds the registry.
import type { Config } from '../config.ts'
import type { Db } from '../storage/db.ts'
import type { Submission } from './model.ts'

/**
 * What a hook may use: it runs inside the core's transaction (db is that connection). Spelt out, not
 * picked from Deps, which names this module's Protocols: no type loop through src/deps.ts.
 */
export interface HookDeps {
  config: Config
  db: Db
  now: () => Date
}

export interface Protocol {
  /** Stored in submissions.api; unique. */
  name: string
  /** Whether the protocol shows the compile stage and tests as they end (the worker then reports them early). */
  stagesShown: boolean
  /** Every request is answered before it runs (a callback or a poll gives the result): queued behind synchronous ones. */
  asynchronous?: boolean
  /** It accepts Judge0's own forms (manifest judge0_only: its Executable, its multi-file program); no other protocol may. */
  judge0Forms?: boolean
  /** The compile step is over (only called when stagesShown). */
  onCompiled?(deps: HookDeps, row: Submission): void
  /** The submission is completed (also after our own failure). */
  onCompleted?(deps: HookDeps, row: Submission): void
}

export type Protocols = ReadonlyMap<string, Protocol>

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
