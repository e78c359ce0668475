// `npm start` is the service: as root it serves HTTP from the compiled build (dist/, built first when
// stale) through the privilege split — the server as another user with every capability set empty and
// no_new_privs, the jail daemon as root; SIGHUP to the process npm starts applies a changed limit
// without a restart; SIGTERM to it stops everything.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { execa } from 'execa'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, waitUntil } from '../testing/harness.ts'
import { healthy as isHealthy, procStatusField as field, servedPid, serviceDir, startService, type ServiceProcess } from '../testing/service.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const SERVER_ID = 61_002
const PATH = '/v4/partner/code-evaluation/submissions/'

let base: string
let dataDir: string
let url: string
let env: NodeJS.ProcessEnv
let npm: ServiceProcess

const serverPid = () => servedPid(dataDir)
const gone = (pid: number) => {
  try {
    process.kill(pid, 0)
    return false
  } catch {
    return true
  }
}
const healthy = () => isHealthy(url)
/** The process npm started for `start` (its only child). */
const startedPid = async () => Number((await execa('pgrep', ['-P', String(npm.child.pid)])).stdout.trim().split('\n')[0])

beforeAll(async () => {
  ;({ base, dataDir, url, env } = await serviceDir(SERVER_ID, 'arbiter-npm-start-'))
  npm = startService('npm', ['start'], env)
  // the first start may build dist/ (about a minute on two cores)
  await waitUntil(healthy, 240_000, 'npm start to answer /health')
}, 300_000)

afterAll(async () => {
  await npm?.stop()
  rmSync(base, { recursive: true, force: true })
})

test('the process serving HTTP runs the build, as the service user, with no capabilities', async () => {
  const pid = serverPid()
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
  expect(cmdline).toContain('dist/main.js')
  expect(cmdline.join(' ')).not.toMatch(/tsx/)
  expect(field(pid, 'Uid').split(/\s+/).map(Number)).toEqual([SERVER_ID, SERVER_ID, SERVER_ID, SERVER_ID])
  for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(field(pid, set), set).toBe('0000000000000000')
  expect(field(pid, 'NoNewPrivs')).toBe('1')
  // and the jail daemon beside it is root, from the build too
  const daemon = Number((await execa('pgrep', ['-f', '-P', String(await startedPid()), 'jail-daemon'])).stdout.trim())
  expect(field(daemon, 'Uid').split(/\s+/)[0]).toBe('0')
  expect(readFileSync(`/proc/${daemon}/cmdline`, 'utf8')).toContain('dist/jail-daemon.js')
}, 60_000)

test('a job runs through the jail daemon; SIGHUP to the started process applies a changed limit without a restart', async () => {
  const cli = await execa(process.execPath, ['dist/cli.js', 'clients', 'create', '--name', 'npm-start', '--json'], { cwd: ROOT, env })
  const secret = (JSON.parse(cli.stdout) as { client_secret: string }).client_secret
  const http = api(url)
  const submit = async (time_limit: number) => (await json(await http.post(PATH, JSON.stringify({ lang: 'PYTHON3', source: 'print(input())', input: 'hi', time_limit }), { 'client-secret': secret, 'content-type': 'application/json' }))).he_id as string
  const db = new Database(join(dataDir, 'arbiter.db'), { readonly: true })
  const limitOf = (publicId: string) => (db.prepare('select time_limit_sec t from submissions where he_id = ?').get(publicId) as { t: number }).t
  const first = await submit(5)
  expect(limitOf(first)).toBe(5)
  let r: { request_status: { code: string }; result: { run_status: { status: string } } }
  await waitUntil(async () => (r = await json(await http.get(`${PATH}${first}/`, { 'client-secret': secret }))).request_status.code === 'REQUEST_COMPLETED', 60_000, 'the job')
  expect(r!.result.run_status.status).toBe('AC')

  const before = serverPid()
  const config = readFileSync(join(dataDir, 'config.toml'), 'utf8')
  writeFileSync(join(dataDir, 'config.toml'), `${config}[limits]\nmax_time_sec = 2\n`)
  const logged = npm.output().length
  process.kill(await startedPid(), 'SIGHUP')
  await waitUntil(() => (npm.output().slice(logged).match(/config reloaded/g) ?? []).length >= 2, 20_000, 'both processes to reload')
  expect(limitOf(await submit(5))).toBe(2)
  expect(serverPid()).toBe(before) // no restart
  db.close()
}, 120_000)

test('SIGTERM to the started process stops the server and the jail daemon', async () => {
  const server = serverPid()
  const started = await startedPid()
  const daemon = Number((await execa('pgrep', ['-f', '-P', String(started), 'jail-daemon'])).stdout.trim())
  process.kill(started, 'SIGTERM')
  await waitUntil(() => gone(server) && gone(daemon), 30_000, 'both to stop')
  await npm.stop() // npm itself ends once its child has
  expect(await healthy()).toBe(false)
}, 60_000)
