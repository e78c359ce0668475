// loadRootOwnedConfig: the root jail daemon takes its config (and so the binaries it runs) only from a
// file the unprivileged server could not have written.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { loadRootOwnedConfig } from './config.ts'

const base = mkdtempSync(join(tmpdir(), 'arbiter-rootcfg-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))
let n = 0
/** A data directory owned by the server's uid holding config.toml as `setup` leaves it. */
function dataDir(setup: (file: string) => void): NodeJS.ProcessEnv {
  const dir = join(base, String(n++))
  mkdirSync(dir)
  chownSync(dir, 61_000, 61_000)
  setup(join(dir, 'config.toml'))
  return { ARBITER_DATA: dir }
}
const toml = '[paths]\nnsjail = "/tmp/evil"\n'

it.skipIf(process.getuid?.() !== 0)('reads a root-owned file that only root may write', () => {
  const env = dataDir((f) => {
    writeFileSync(f, toml, { mode: 0o640 })
    chownSync(f, 0, 61_000)
  })
  expect(loadRootOwnedConfig(env).paths.nsjail).toBe('/tmp/evil')
})

it.skipIf(process.getuid?.() !== 0).each([
  ['owned by the server', (f: string) => (writeFileSync(f, toml), chownSync(f, 61_000, 61_000))],
  ['group-writable', (f: string) => (writeFileSync(f, toml), chownSync(f, 0, 61_000), chmodSync(f, 0o660))],
  ['world-writable', (f: string) => (writeFileSync(f, toml), chmodSync(f, 0o646))],
  ['a link to a root-owned file', (f: string) => (writeFileSync(`${f}.real`, toml, { mode: 0o600 }), symlinkSync(`${f}.real`, f))],
  ['missing', () => {}],
])('refuses a config.toml %s', (_, setup) => {
  expect(() => loadRootOwnedConfig(dataDir(setup))).toThrow(/config\.toml/)
})
