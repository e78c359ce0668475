// `npm run build` and the server it builds: node dist/main.js starts with no tsx or esbuild loaded, and
// runs a job end to end (the Piscina worker, migrations and the language manifest found from dist/).
import { execa } from 'execa'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startServer, type RunningServer } from '../testing/harness.ts'

const ROOT = join(import.meta.dirname, '..', '..')
let server: RunningServer

beforeAll(async () => {
  await execa('npm', ['run', '-s', 'build'], { cwd: ROOT })
  server = await startServer({ fromBuild: true })
}, 300_000)

afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

test('the build holds every entry and the migrations; nothing in it imports a .ts file', () => {
  for (const f of ['main.js', 'cli.js', 'jail-daemon.js', 'jobs/worker.js', 'storage/migrations/meta/_journal.json']) {
    expect(existsSync(join(ROOT, 'dist', f)), f).toBe(true)
  }
  expect(readFileSync(join(ROOT, 'dist', 'main.js'), 'utf8')).not.toMatch(/from '\.[^']*\.ts'/)
})

test('node dist/main.js serves and runs a submission, without tsx loaded', async () => {
  const cmdline = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')
  expect(cmdline).toContain('dist/main.js')
  expect(cmdline.join(' ')).not.toMatch(/tsx|esbuild/)
  const maps = readFileSync(`/proc/${server.pid}/maps`, 'utf8')
  expect(maps).not.toMatch(/esbuild/)
  const secret = await server.createClient('build-e2e')
  const r = await api(server.url).post('/code/run/', new URLSearchParams({ client_secret: secret, source: 'print(input())', lang: 'PYTHON3', input: 'built\n' }))
  const body = await json(r)
  expect(body.run_status).toMatchObject({ status: 'AC', output: 'built\n' })
}, 120_000)
