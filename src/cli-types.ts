// The shape of a command of `cli` (src/cli.ts), apart from the dispatcher so areas can import it.
import type { parseArgs } from 'node:util'

export interface CliCommand {
  /** One line for `cli help`. */
  summary: string
  /** util.parseArgs options. */
  options?: NonNullable<Parameters<typeof parseArgs>[0]>['options']
  run(args: { values: Record<string, unknown>; positionals: string[] }): Promise<unknown>
}
export type CliCommands = Record<string, CliCommand>

/** Returned by a command that printed its own output: nothing more is printed, the process exits with code. */
export class CliExit {
  constructor(readonly code: number) {}
}
