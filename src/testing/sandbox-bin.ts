// Tests of a sandbox built into a private prefix (ARBITER_PREFIX=<prefix> bash scripts/install-nsjail.sh):
// with ARBITER_TEST_SANDBOX_BIN=<prefix>/bin, the tests that use these helpers run that supervisor and
// jail init instead of the installed ones (config.ts's paths). Unset, they change nothing.
import { join } from 'node:path'
import type { SandboxPaths } from '../sandbox/run.ts'

const bin = process.env.ARBITER_TEST_SANDBOX_BIN

/** config.toml lines for a CLI or server started by a test (empty without the variable). */
export const testSandboxToml = (): string =>
  bin ? `[paths]\nsupervisor = ${JSON.stringify(join(bin, 'arbiter-supervisor'))}\njail_init = ${JSON.stringify(join(bin, 'arbiter-jail-init'))}\n` : ''

/** Worker settings with the private build's supervisor and jail init (as they are without the variable). */
export function withTestSandbox<T extends { sandbox: SandboxPaths }>(settings: T): T {
  return bin ? { ...settings, sandbox: { ...settings.sandbox, supervisor: join(bin, 'arbiter-supervisor'), jailInit: join(bin, 'arbiter-jail-init') } } : settings
}
