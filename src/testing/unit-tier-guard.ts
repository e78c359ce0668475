// The unit tier's setup file (vitest.config.ts): a test there must not start the jail, the server, the
// CLI or provisioning — those belong to the jail/e2e tiers, which run them one file at a time with long
// timeouts. A test added without being listed in its tier fails here at once, naming what it started,
// rather than making `npm run test:unit` slow or flaky. (Private Redis servers are fine: unit tests use them.)
import childProcess from 'node:child_process'
import { syncBuiltinESMExports } from 'node:module'

const JAIL_OR_SERVER = /arbiter-supervisor|nsjail|arbiter-jail-init|src\/(cli|main|jail-daemon)\.ts|dist\/(cli|main|jail-daemon)\.js|scripts\/(provision|setup|run-service|start)\.|\bchromium\b/

function refuseIn<F extends (...args: any[]) => unknown>(name: string, original: F): F {
  return function (this: unknown, file: unknown, args?: unknown, ...rest: unknown[]) {
    const argv = [file, ...(Array.isArray(args) ? args : [])].map(String).join(' ')
    if (JAIL_OR_SERVER.test(argv)) {
      throw new Error(`a unit test started "${argv.slice(0, 200)}" (${name}): list the file in the jail or e2e tier of vitest.config.ts`)
    }
    return original.call(this, file, args, ...rest)
  } as F
}

for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync'] as const) {
  ;(childProcess as any)[name] = refuseIn(name, (childProcess as any)[name])
}
syncBuiltinESMExports()
