// `npm run build` and the server it builds: node dist/main.js starts with no tsx or esbuild loaded, and
// runs a job end to end (the Piscina worker, migrations and the language manifest found from dist/).
import { execa } from 'execa'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
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

test('the build holds no test code: no test file, no src/testing, nothing that imports vitest', () => {
  const files: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name))
      else files.push(join(d, e.name))
    }
  }
  walk(join(ROOT, 'dist'))
  const rel = files.map((f) => relative(join(ROOT, 'dist'), f))
  expect(rel.filter((f) => /\.test\.js$|^testing\/|^e2e\//.test(f))).toEqual([])
  expect(rel.filter((f) => f.endsWith('.js') && /from 'vitest'|require\('vitest'\)/.test(readFileSync(join(ROOT, 'dist', f), 'utf8')))).toEqual([])
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
