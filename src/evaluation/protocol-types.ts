// A wire protocol as the core sees it (protocols.ts keeps the registry), types only: deps.ts names it
// without loading the registry.
import type { Config } from '../config.ts'
import type { Db } from '../storage/db-types.ts'
import type { Submission } from './model.ts'

/**
 * What a hook may use: it runs inside the core's transaction (db is that connection). Spelt out, not
 * picked from Deps, which names this file's Protocols: no type loop through src/deps.ts.
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
