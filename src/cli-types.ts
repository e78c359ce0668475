// The shape of a command of `cli` (src/cli.ts), apart from the dispatcher so areas can import it.
import type { parseArgs } from 'node:util'
import type { Config } from './config.ts'
import type { Db } from './storage/db-types.ts'

/** What every command gets from cli.ts: the one way to read the config and to open the database. */
export interface CliContext {
  /** data/config.toml with the environment's overrides, loaded once per command. */
  config(): Config
  /** Runs fn against the installation's database (ARBITER_DATA/arbiter.db), closed afterwards (when fn is async: once its promise settles). */
  withDb<T>(fn: (db: Db, config: Config) => T): T
}

export interface CliCommand {
  /** One line for `cli help`. */
  summary: string
  /** util.parseArgs options. */
  options?: NonNullable<Parameters<typeof parseArgs>[0]>['options']
  run(args: { values: Record<string, unknown>; positionals: string[] }, ctx: CliContext): Promise<unknown>
}
export type CliCommands = Record<string, CliCommand>

/** Returned by a command that printed its own output: nothing more is printed, the process exits with code. */
export class CliExit {
  constructor(readonly code: number) {}
}

/** Output is always JSON; --json is accepted so that scripts can say so. */
export const JSON_FLAG = { json: { type: 'boolean' as const } }
