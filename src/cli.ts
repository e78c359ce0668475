// The command line: `npm run -s cli -- <command> ...`. Each area exports its own commands; this file
// only dispatches and prints. Output is JSON on stdout; errors go to stderr with exit code 1, and so
// does a report that says it failed (`{ok: false, …}`, e.g. doctor): printed as usual, exit code 1.
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { CliExit, type CliContext } from './cli-types.ts'
import { allCommands, areaOf } from './cli-areas.ts'
import { dataDirFromEnv, loadConfig, requireDataDir, type Config } from './config.ts'
import { openDb } from './storage/db.ts'
import { repairOwnership } from './storage/backup.ts'

/** The one way a command reads the config and opens the database (cli-types.ts CliContext). */
function cliContext(): CliContext {
  let config: Config | undefined
  const ctx: CliContext = {
    config: () => (config ??= loadConfig()),
    withDb(fn) {
      const c = ctx.config()
      // never a new empty database where the installation's should be (cli init makes a fresh one)
      requireDataDir(c.dataDir)
      const db = openDb(join(c.dataDir, 'arbiter.db'))
      let out
      try {
        out = fn(db, c)
      } catch (err) {
        db.$client.close()
        throw err
      }
      // an async fn: closed once its promise settles, not while it still uses the database
      if (out instanceof Promise) return out.finally(() => db.$client.close()) as typeof out
      db.$client.close()
      return out
    },
  }
  return ctx
}

async function main(argv: string[]): Promise<number> {
  // Sub-commands may be two words ("clients create"): take the longest name that matches.
  // Only the area that serves it is loaded (cli-areas.ts); the usage text loads them all.
  const two = argv.slice(0, 2).join(' ')
  const name = areaOf(two) ? two : argv[0]
  const area = name ? areaOf(name) : undefined
  const command = area ? (await area.load())[name!] : undefined
  if (!command) {
    const lines = Object.entries(await allCommands()).map(([n, c]) => `  ${n.padEnd(20)} ${c.summary}`)
    process.stderr.write(`usage: npm run -s cli -- <command>\n${lines.join('\n')}\n`)
    return name === 'help' || name === undefined ? 0 : 1
  }
  const rest = argv.slice(name.split(' ').length)
  const { values, positionals } = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true })
  let out: unknown
  try {
    out = await command.run({ values, positionals }, cliContext())
  } finally {
    // run as root on the service's data: leave no root-owned database side files behind
    repairOwnership(dataDirFromEnv())
  }
  // a command that printed its own output says only how to exit
  if (out instanceof CliExit) return out.code
  if (out !== undefined) process.stdout.write(JSON.stringify(out, null, 2) + '\n')
  return exitCodeOf(out)
}

/** 1 for a report that says it failed (`ok: false`), else 0. */
function exitCodeOf(out: unknown): number {
  return typeof out === 'object' && out !== null && (out as { ok?: unknown }).ok === false ? 1 : 0
}

/**
 * Exits once stdout and stderr have handed everything to the OS: on a pipe, writes are asynchronous,
 * and process.exit() right after a large write would cut the output (`cli run … | jq` saw 64 KB).
 */
async function exitAfterFlush(code: number): Promise<never> {
  const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()))
  await Promise.all([flushed(process.stdout), flushed(process.stderr)])
  process.exit(code)
}

main(process.argv.slice(2)).then(
  (code) => exitAfterFlush(code),
  (err: Error) => {
    process.stderr.write(`error: ${err.message}\n`)
    return exitAfterFlush(1)
  }
)
