// The command line run as root on the service's data directory (as the docs' examples do) leaves
// nothing the server's user cannot use: a problem stored from the CLI makes problems/blobs/<xx>/, and
// the server, unprivileged, later stores a file of its own in that same folder. A folder that is not
// the server's anyway is a storage fault that names the path in the log, answered "try later", not a
// bare 500.
import { createHash } from 'node:crypto'
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { json, startServer, type RunningServer } from '../testing/harness.ts'

const SERVER_ID = 61_010
const PROBLEMS = '/v4/partner/code-evaluation/problems/'
const dropTo = (id: number) => ['setpriv', `--reuid=${id}`, `--regid=${id}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--']
let base: string
let dataDir: string
let server: RunningServer

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'arbiter-cli-root-'))
  chmodSync(base, 0o755)
  dataDir = join(base, 'data')
  mkdirSync(dataDir, { mode: 0o750 })
  chownSync(dataDir, SERVER_ID, SERVER_ID)
  // no jobs run here: a jail socket nobody serves keeps the server unprivileged
  server = await startServer({ dataDir, configToml: `[pool]\nsize = 1\njail_socket = "${join(base, 'run', 'jail.sock')}"\njail_group = "${SERVER_ID}"\n`, launcher: dropTo(SERVER_ID) })
}, 120_000)
afterAll(async () => {
  await server?.stop()
  rmSync(base, { recursive: true, force: true })
})

/** Every path under dir (links not followed). */
const tree = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    return e.isDirectory() ? [p, ...tree(p)] : [p]
  })
/** A test input whose stored file lands in the blob folder `prefix` (its sha256 starts with it). */
function inputIn(prefix: string, tag: string): string {
  for (let i = 0; ; i++) {
    const text = `${tag} ${i}`
    if (createHash('sha256').update(text).digest('hex').startsWith(prefix)) return text
  }
}
const upload = (secret: string, input: string) =>
  fetch(`${server.url}${PROBLEMS}`, { method: 'POST', headers: { 'client-secret': secret, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'p', test_cases: [{ input, expected_output: 'x' }] }) })

test('files the CLI writes as root are the service user\'s; the server then stores into the same folders', { timeout: 180_000 }, async () => {
  const secret = await server.createClient('cli-root')
  const tests = join(base, 'tests')
  mkdirSync(tests)
  writeFileSync(join(tests, '1.in'), 'from the command line\n')
  writeFileSync(join(tests, '1.out'), 'ok\n')
  await server.cli(['problems', 'create', '--client', 'cli-root', '--name', 'cli', '--tests', tests, '--json'])

  const rootOwned = tree(dataDir).filter((p) => relative(dataDir, p) !== 'config.toml' && lstatSync(p).uid !== SERVER_ID)
  expect(rootOwned).toEqual([])
  // the server (uid SERVER_ID) writes a file of its own into the folder the CLI made
  const folder = createHash('sha256').update('from the command line\n').digest('hex').slice(0, 2)
  const r = await upload(secret, inputIn(folder, 'server'))
  expect(r.status, JSON.stringify(await r.clone().json())).toBe(200)
})

test('a folder the server may not write: a storage fault naming the path in the log, "try later" to the client', { timeout: 120_000 }, async () => {
  const secret = await server.createClient('poisoned')
  // as an older CLI left it: root's, not writable by the server
  const folder = 'ee'
  const poisoned = join(dataDir, 'problems', 'blobs', folder)
  mkdirSync(poisoned, { recursive: true, mode: 0o755 })
  chownSync(poisoned, 0, 0)
  const r = await upload(secret, inputIn(folder, 'poisoned'))
  const body = await json(r)
  expect(r.status).toBe(503)
  expect(r.headers.get('retry-after')).toBe('30')
  expect(body.message).toMatch(/^StorageUnavailable: the server may not write its own data \(permissions\) \(EACCES\)/)
  const logged = server.output().split('\n').find((l) => l.includes('"storage fault"') && l.includes('"cause":"permission"'))
  expect(logged).toContain(poisoned)
})
