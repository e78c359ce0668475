// A data directory that is not there (a volume that failed to mount) stops the server and the CLI with
// a message naming it, and nothing is created in its place; `cli init` makes a fresh one on purpose.
// And, with no public URL configured, the links the server hands out follow its port.
import { execa } from 'execa'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { api, json, startServer, type RunningServer } from '../testing/harness.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const base = mkdtempSync(join(tmpdir(), 'arbiter-datadir-'))
let server: RunningServer | undefined
afterAll(async () => {
  await server?.stop()
  rmSync(base, { recursive: true, force: true })
})

const node = (entry: string, args: string[], env: Record<string, string>) =>
  execa(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env: { ...process.env, ...env }, reject: false, timeout: 60_000 })

test('a missing data directory: the server exits non-zero naming it, and creates nothing', { timeout: 90_000 }, async () => {
  const missing = join(base, 'not-mounted', 'data')
  const r = await node('src/main.ts', [], { ARBITER_DATA: missing, PORT: '0' })
  expect(r.exitCode).not.toBe(0)
  expect(r.stderr).toContain(`the data directory ${missing} does not exist`)
  expect(r.stdout).not.toContain('listening')
  expect(existsSync(join(base, 'not-mounted'))).toBe(false)
})

test('the CLI refuses it too (no empty database made), and `cli init` makes a fresh one on purpose', { timeout: 90_000 }, async () => {
  const dir = join(base, 'fresh')
  const refused = await node('src/cli.ts', ['clients', 'create', '--name', 'x', '--json'], { ARBITER_DATA: dir })
  expect(refused.exitCode).toBe(1)
  expect(refused.stderr).toContain(`the data directory ${dir} does not exist`)
  expect(existsSync(dir)).toBe(false)

  const init = await node('src/cli.ts', ['init'], { ARBITER_DATA: dir })
  expect(init.exitCode).toBe(0)
  expect(JSON.parse(init.stdout)).toEqual({ data_dir: dir, created: true })
  expect(existsSync(join(dir, 'config.toml'))).toBe(true)
  // a second init leaves it as it is
  expect(JSON.parse((await node('src/cli.ts', ['init'], { ARBITER_DATA: dir })).stdout)).toEqual({ data_dir: dir, created: false })

  // the initialised directory serves; without a public URL the links follow the port (not localhost:8080)
  server = await startServer({ dataDir: dir, env: { ARBITER_PUBLIC_URL: '' } })
  expect(server.output()).toContain(`"public_url":"http://localhost:${server.port}"`)
  const secret = await server.createClient('links')
  const r = await api(server.url).post('/v4/partner/code-evaluation/submissions/', JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }), {
    'client-secret': secret,
    'content-type': 'application/json',
  })
  const body = await json(r)
  expect(body.status_update_url).toBe(`http://localhost:${server.port}/v4/partner/code-evaluation/submissions/${body.he_id}/`)
})
