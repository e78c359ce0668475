// scripts/run-service.sh, the service without systemd (what setup.sh starts in a container or CI): the
// jail daemon as root, the server dropped to another uid; a `kill -9` of the server is survived (it is
// started again and the job it was running completes), and so is one of the jail daemon; SIGHUP
// reaches both; SIGTERM stops everything.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { execa } from 'execa'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, waitUntil } from '../testing/harness.ts'
import { healthy as isHealthy, procStatusField, servedPid, serviceDir, startService, type ServiceProcess } from '../testing/service.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const SERVER_ID = 61_000
const PATH = '/v4/partner/code-evaluation/submissions/'

let base: string
let dataDir: string
let url: string
let env: NodeJS.ProcessEnv
let service: ServiceProcess

const pidOf = () => servedPid(dataDir)
const uidOf = (pid: number) => Number(procStatusField(pid, 'Uid').split(/\s+/)[0])
const healthy = () => isHealthy(url)

beforeAll(async () => {
  ;({ base, dataDir, url, env } = await serviceDir(SERVER_ID, 'arbiter-service-'))
  service = startService('bash', ['scripts/run-service.sh'], env)
  await waitUntil(healthy, 60_000, 'the service to answer /health')
}, 120_000)

afterAll(async () => {
  await service?.stop()
  rmSync(base, { recursive: true, force: true })
})

test('kill -9 of the server: it is started again, unprivileged, and the job it was running completes', { timeout: 120_000 }, async () => {
  const cli = await execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'clients', 'create', '--name', 'svc', '--json'], { cwd: ROOT, env })
  const secret = (JSON.parse(cli.stdout) as { client_secret: string }).client_secret
  const http = api(url)
  const q = await json(await http.post(PATH, JSON.stringify({ lang: 'PYTHON3', source: 'import time\ntime.sleep(2)\nprint(input())', input: 'survived' }), { 'client-secret': secret, 'content-type': 'application/json' }))
  const db = new Database(join(dataDir, 'arbiter.db'), { readonly: true })
  const state = () => (db.prepare('select state from submissions where he_id = ?').get(q.he_id) as { state: string }).state
  await waitUntil(() => state() === 'running' || state() === 'compiled', 30_000, 'the job to run')

  const first = pidOf()
  expect(uidOf(first)).toBe(SERVER_ID)
  process.kill(first, 'SIGKILL')
  await waitUntil(async () => (await healthy()) && pidOf() !== first, 60_000, 'a new server')
  const second = pidOf()
  expect(uidOf(second)).toBe(SERVER_ID)
  expect(service.output()).toMatch(/the server exited; starting it again/)

  let r: { request_status: { code: string }; result: { run_status: { status: string; output: string } } }
  await waitUntil(async () => (r = await json(await http.get(`${PATH}${q.he_id}/`, { 'client-secret': secret }))).request_status.code === 'REQUEST_COMPLETED', 60_000, 'the job to complete')
  expect(r!.result.run_status.status).toBe('AC')
  expect(await (await fetch(r!.result.run_status.output)).text()).toBe('survived\n')
  db.close()
})

test('kill -9 of the jail daemon mid-job: it is started again and the job is run again to completion', { timeout: 120_000 }, async () => {
  const cli = await execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'clients', 'create', '--name', 'svc2', '--json'], { cwd: ROOT, env })
  const secret = (JSON.parse(cli.stdout) as { client_secret: string }).client_secret
  const http = api(url)
  const q = await json(await http.post(PATH, JSON.stringify({ lang: 'PYTHON3', source: 'import time\ntime.sleep(2)\nprint(input())', input: 'again' }), { 'client-secret': secret, 'content-type': 'application/json' }))
  const db = new Database(join(dataDir, 'arbiter.db'), { readonly: true })
  const state = () => (db.prepare('select state from submissions where he_id = ?').get(q.he_id) as { state: string }).state
  await waitUntil(() => state() === 'running' || state() === 'compiled', 30_000, 'the job to run')
  // run-service.sh's own child (we started it): the jail daemon, as root
  const daemonPid = Number((await execa('pgrep', ['-P', String(service.child.pid), '-f', 'jail-daemon'])).stdout.trim())
  expect(uidOf(daemonPid)).toBe(0)
  process.kill(daemonPid, 'SIGKILL')
  await waitUntil(() => /the jail daemon exited; starting it again/.test(service.output()), 20_000, 'the restart')
  let r: { request_status: { code: string }; result: { run_status: { status: string; output: string } } }
  await waitUntil(async () => (r = await json(await http.get(`${PATH}${q.he_id}/`, { 'client-secret': secret }))).request_status.code === 'REQUEST_COMPLETED', 90_000, 'the job to complete')
  expect(r!.result.run_status.status).toBe('AC')
  expect(await (await fetch(r!.result.run_status.output)).text()).toBe('again\n')
  db.close()
})

test('SIGHUP reaches the server and the jail daemon; SIGTERM stops both', { timeout: 60_000 }, async () => {
  const before = service.output().length
  service.child.kill('SIGHUP')
  await waitUntil(() => (service.output().slice(before).match(/config reloaded/g) ?? []).length >= 2, 20_000, 'both to reload')
  expect(service.output().slice(before)).toMatch(/"svc":"arbiter-jail".*"msg":"config reloaded"|"msg":"config reloaded".*"svc":"arbiter-jail"/)

  const server = pidOf()
  await service.stop()
  const gone = (pid: number) => {
    try {
      process.kill(pid, 0)
      return false
    } catch {
      return true
    }
  }
  await waitUntil(() => gone(server), 20_000, 'the server to stop')
  expect(await healthy()).toBe(false)
})
