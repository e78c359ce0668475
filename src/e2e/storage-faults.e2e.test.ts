// A full data disk, on purpose: the data directory is a small tmpfs (mounted here, as root) filled to
// the last byte while jobs run. Every face answers its own "try later" naming the cause (never a bare
// 500), the log and /metrics name it, jobs whose results could not be stored are stored once space
// returns (never left `compiled`), and so are those a stop cut off (the next start runs them again):
// nothing accepted is lost, counted by id. Twice: with the pool in the server's process, and through
// the service's privilege split (the server as an unprivileged uid with no capabilities, the jobs in
// the root jail daemon, which never writes the data directory: the results travel back to the server,
// which must keep them until it can store them).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'
import { procStatusField } from '../testing/service.ts'
import { fillDisk as fillDiskAt, freeDisk as freeDiskAt } from '../testing/fill-disk.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const PATH = '/v4/partner/code-evaluation/submissions/'
// a numeric id with no passwd entry for the server of the split (privilege-split.e2e uses 61000/61001)
const SERVER_ID = 61_002
const dropTo = (id: number) => ['setpriv', `--reuid=${id}`, `--regid=${id}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--']
let base: string
let dataDir: string
let server: RunningServer
let secret: string
let daemon: ChildProcess | undefined
let daemonOut = ''

/** A 48 MB tmpfs data directory and the server on it; with split, the server unprivileged and a root jail daemon. */
async function start(split: boolean): Promise<void> {
  base = mkdtempSync(join(tmpdir(), 'arbiter-full-'))
  chmodSync(base, 0o755)
  dataDir = join(base, 'data')
  mkdirSync(dataDir)
  const owner = split ? `,mode=0750,uid=${SERVER_ID},gid=${SERVER_ID}` : ''
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=48m${owner}`, 'tmpfs', dataDir])
  const configToml = 'min_free_disk_mb = 4\n[pool]\nsize = 2\n'
  if (!split) {
    server = await startServer({ dataDir, configToml })
  } else {
    const socket = join(base, 'run', 'jail.sock')
    // the server starts first (config.toml is written as root, as setup.sh does); jobs wait for the daemon
    const serverUp = startServer({ dataDir, configToml: `${configToml}jail_socket = "${socket}"\njail_group = "${SERVER_ID}"\n`, launcher: dropTo(SERVER_ID) })
    await waitUntil(() => existsSync(join(dataDir, 'config.toml')), 10_000, 'config.toml')
    daemonOut = ''
    daemon = spawn(process.execPath, ['--import', 'tsx', 'src/jail-daemon.ts'], { cwd: ROOT, env: { ...process.env, ARBITER_DATA: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] })
    daemon.stdout!.on('data', (d) => (daemonOut += d))
    daemon.stderr!.on('data', (d) => (daemonOut += d))
    await waitUntil(() => existsSync(socket) || daemon!.exitCode !== null, 30_000, 'the jail socket')
    if (daemon.exitCode !== null) throw new Error(`jail daemon exited:\n${daemonOut}`)
    server = await serverUp
    await waitUntil(async () => (await fetch(`${server.url}/health`)).status === 200, 10_000, '/health 200 with the daemon up')
  }
  secret = await server.createClient('full-disk')
}

async function stop(): Promise<void> {
  await server?.stop()
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGTERM')
    await new Promise((r) => daemon!.once('exit', r))
  }
  daemon = undefined
  try {
    execFileSync('umount', [dataDir])
  } catch {
    // not mounted
  }
  rmSync(base, { recursive: true, force: true })
}

const filler = () => join(dataDir, 'filler')
const fillDisk = () => fillDiskAt(filler())
const freeDisk = () => freeDiskAt(filler())

const submit = async (n: number) => {
  const r = await api(server.url).post(PATH, JSON.stringify({ lang: 'PYTHON3', source: `import time\ntime.sleep(2)\nprint(${n})` }), { 'client-secret': secret, 'content-type': 'application/json' })
  expect(r.status).toBe(200)
  return (await json(r)).he_id as string
}
const rows = (ids: string[]) => server.query<{ he_id: string; state: string; output: string | null }>(`select he_id, state, stdout as output from submissions where he_id in (${ids.map(() => '?').join(',')})`, ...ids)
const storageFaults = () => server.output().split('\n').filter((l) => l.includes('"storage fault"'))

describe.each([
  { name: 'the pool in the server', split: false },
  { name: 'the privilege split (an unprivileged server, the root jail daemon)', split: true },
])('$name', ({ split }) => {
  beforeAll(() => start(split), 120_000)
  afterAll(stop)

  test('a full disk: every face says "try later" naming the cause; results wait for space and are all stored', { timeout: 240_000 }, async () => {
    const health = async () => {
      const r = await fetch(`${server.url}/health`)
      return { status: r.status, body: await json(r) }
    }
    expect((await health()).status).toBe(200)
    // /metrics is closed by default: its token from the CLI, read while the disk has room
    const { token } = (await server.cli(['metrics', 'token'])) as { token: string }
    const ids = await Promise.all([1, 2, 3, 4].map(submit))
    await waitUntil(() => rows(ids).some((r) => r.state === 'running' || r.state === 'compiled'), 30_000, 'a job to start')
    fillDisk()
    const before = storageFaults().length
    // /health: jobs cannot run, the database and the disk parts say why (its probes are kept 2 s)
    await waitUntil(async () => (await health()).status === 503, 10_000, '/health to answer 503')
    const report = (await health()).body
    expect(report).toMatchObject({ status: 'unavailable', can_run: false, parts: { database: { ok: false }, disk: { ok: false }, jail: { ok: true } } })
    expect(report.parts.database.detail).toMatch(/disk_full \(ENOSPC\)/)
    if (split) {
      // the server that answers is the unprivileged one; the root daemon, which writes nothing there, runs on
      expect(procStatusField(server.pid, 'Uid').split(/\s+/).map(Number)).toEqual([SERVER_ID, SERVER_ID, SERVER_ID, SERVER_ID])
      expect(procStatusField(server.pid, 'CapEff')).toBe('0000000000000000')
      expect(report.parts.jail.detail).toMatch(/^the jail daemon answers at /)
    }

    // v3, v4, Judge0, Piston: 503 + Retry-After, the message names the full disk
    const h = { 'content-type': 'application/json' }
    const answers = {
      v3: await fetch(`${server.url}/code/run/`, { method: 'POST', body: new URLSearchParams({ client_secret: secret, lang: 'PYTHON3', source: 'print(1)' }) }),
      v4: await fetch(`${server.url}${PATH}`, { method: 'POST', headers: { ...h, 'client-secret': secret }, body: JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }) }),
      judge0: await fetch(`${server.url}/judge0/submissions`, { method: 'POST', headers: { ...h, 'X-Auth-Token': secret }, body: JSON.stringify({ language_id: 71, source_code: 'print(1)' }) }),
      judge0wait: await fetch(`${server.url}/judge0/submissions?wait=true`, { method: 'POST', headers: { ...h, 'X-Auth-Token': secret }, body: JSON.stringify({ language_id: 71, source_code: 'print(1)' }) }),
      piston: await fetch(`${server.url}/piston/api/v2/execute`, { method: 'POST', headers: { ...h, authorization: secret }, body: JSON.stringify({ language: 'python', version: '*', files: [{ content: 'print(1)' }] }) }),
    }
    for (const [face, r] of Object.entries(answers)) {
      const text = await r.text()
      expect(r.status, `${face}: ${text}`).toBe(503)
      expect(r.headers.get('retry-after'), face).toBe('30')
      expect(text, face).toMatch(/data disk is full \((SQLITE_FULL|ENOSPC)\)/)
    }
    // Jobe: its overload outcome (21), the cause in stderr
    const jobe = await fetch(`${server.url}/jobe/index.php/restapi/runs`, { method: 'POST', headers: { ...h, 'X-API-KEY': secret }, body: JSON.stringify({ run_spec: { language_id: 'python3', sourcecode: 'print(1)' } }) })
    const jobeBody = await json(jobe)
    expect(jobe.status).toBe(200)
    expect(jobeBody.outcome).toBe(21)
    expect(jobeBody.stderr).toMatch(/data disk is full/)

    // the running jobs end while the disk is full: their results cannot be stored yet
    await waitUntil(() => storageFaults().slice(before).some((l) => l.includes('storing a result')), 60_000, 'a result that could not be stored')
    expect(rows(ids).every((r) => r.state !== 'completed' || r.output !== null)).toBe(true)
    // the log and /metrics name the cause
    expect(storageFaults().some((l) => l.includes('"cause":"disk_full"'))).toBe(true)
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
    expect(Number(/arbiter_storage_faults_total\{cause="disk_full"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0)

    freeDisk()
    await waitUntil(async () => (await health()).status === 200, 10_000, '/health to answer 200 again')
    expect((await health()).body.last_storage_fault).toMatchObject({ cause: 'disk_full' })
    // every accepted job completes with its own output once space returns, without a restart
    await waitUntil(() => rows(ids).every((r) => r.state === 'completed'), 90_000, 'every job stored after space returned')
    expect(rows(ids).map((r) => [r.he_id, r.output?.trim()]).sort()).toEqual(ids.map((id, i) => [id, String(i + 1)]).sort())
    if (split) {
      // the daemon never saw the fault: it ran the jobs once each and handed the results back
      expect(daemon!.exitCode).toBe(null)
      expect(daemonOut).not.toContain('storage fault')
    }
  })

  test('results still waiting for space at a stop are run again by the next start: nothing accepted is lost', { timeout: 240_000 }, async () => {
    const ids = await Promise.all([11, 12, 13].map(submit))
    await waitUntil(() => rows(ids).some((r) => r.state === 'running' || r.state === 'compiled'), 30_000, 'a job to start')
    fillDisk()
    const before = storageFaults().length
    await waitUntil(() => storageFaults().slice(before).some((l) => l.includes('storing a result')), 60_000, 'a result that could not be stored')
    await server.stop()
    expect(rows(ids).some((r) => r.state !== 'completed')).toBe(true)
    freeDisk()
    await server.restart()
    await waitUntil(() => rows(ids).every((r) => r.state === 'completed'), 90_000, 'every job completed after the restart')
    expect(rows(ids).map((r) => [r.he_id, r.output?.trim()]).sort()).toEqual(ids.map((id, i) => [id, String(i + 11)]).sort())
  })
})
