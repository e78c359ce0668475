// Which area's module serves each command of `cli` (src/cli.ts), loaded only when one of its names is
// asked for: importing every area for every command (the similarity engine, the queue over Redis, the
// package verifier…) made each start take 1.7–2.2 s on these machines, `clients create` included; one
// area is 0.7–1.4 s. The names must match each area's own table (cli-areas.test.ts checks them).
import type { CliCommands } from './cli-types.ts'

export interface CliArea {
  /** the command names the area's module exports, as typed (two words for a sub-command) */
  names: string[]
  load(): Promise<CliCommands>
}

/** In the order `cli help` lists them. */
export const CLI_AREAS: CliArea[] = [
  { names: ['languages', 'doctor'], load: async () => (await import('./jobs/cli-commands.ts')).jobCommands },
  {
    names: ['companies create', 'companies credits', 'companies feature', 'companies secret', 'companies list', 'users create', 'users list', 'users revoke'],
    load: async () => (await import('./interviews/cli-commands.ts')).interviewCommands,
  },
  { names: ['run'], load: async () => (await import('./evaluation/cli-run.ts')).runCommands },
  { names: ['clients create', 'clients list', 'clients revoke'], load: async () => (await import('./evaluation/cli-commands.ts')).evaluationCommands },
  { names: ['outbox', 'outbox show', 'outbox retry'], load: async () => (await import('./jobs/outbox-commands.ts')).outboxCommands },
  { names: ['init', 'backup', 'restore'], load: async () => (await import('./storage/cli-commands.ts')).storageCommands },
  { names: ['admin create', 'admin list', 'admin revoke'], load: async () => (await import('./admin/cli-commands.ts')).adminCommands },
  { names: ['grade'], load: async () => (await import('./evaluation/cli-grade.ts')).gradeCommands },
  { names: ['problems create', 'problems list', 'problems delete'], load: async () => (await import('./problems/cli-commands.ts')).problemCommands },
  { names: ['problems import', 'problems verify'], load: async () => (await import('./packages/cli-commands.ts')).packageCommands },
  { names: ['worker'], load: async () => (await import('./sandbox-hosts/cli-commands.ts')).sandboxHostCommands },
  { names: ['similarity'], load: async () => (await import('./similarity/cli-commands.ts')).similarityCommands },
  { names: ['metrics token'], load: async () => (await import('./metrics/cli-commands.ts')).metricsCommands },
]

/** The area that serves a command name, if any. */
export const areaOf = (name: string): CliArea | undefined => CLI_AREAS.find((a) => a.names.includes(name))

/** Every command, for the usage text (loads every area). */
export async function allCommands(): Promise<CliCommands> {
  const tables = await Promise.all(CLI_AREAS.map((a) => a.load()))
  return Object.assign({}, ...tables) as CliCommands
}
