// One jail daemon per data directory. A second daemon whose config names a live socket (a restored
// backup's config.toml beside the live service) refuses to start and leaves the socket alone; a server
// whose data directory is not the one the daemon serves refuses to start; a second server on the same
// data directory too; with {data_id} in pool.jail_socket the two installations get sockets of their own
// and run side by side, and stopping one leaves the other running jobs.
import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { dataDirId } from '../config.ts'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const PATH = '/v4/partner/code-evaluation/submissions/'
let base: string
const daemons: ChildProcess[] = []
const servers: RunningServer[] = []

interface Daemon {
  child: ChildProcess
  output(): string
  exited: Promise<number | null>
}
function startDaemon(dataDir: string): Daemon {
  let out = ''
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/jail-daemon.ts'], { cwd: ROOT, env: { ...process.env, ARBITER_DATA: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  daemons.push(child)
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  return { child, output: () => out, exited }
}
const stopDaemon = async (d: Daemon) => {
  if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGTERM')
  await d.exited
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'arbiter-socket-'))
})
afterAll(async () => {
  for (const s of servers) await s.stop()
  for (const d of daemons) if (d.exitCode === null && d.signalCode === null) d.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 500))
  rmSync(base, { recursive: true, force: true })
})

async function runsOne(server: RunningServer, secret: string, n: number): Promise<void> {
  const http = api(server.url)
  const q = await json(await http.post(PATH, JSON.stringify({ lang: 'PYTHON3', source: `print(${n})` }), { 'client-secret': secret, 'content-type': 'application/json' }))
  let body: any
  await waitUntil(async () => (body = await json(await http.get(`${PATH}${q.he_id}/`, { 'client-secret': secret }))).request_status.code === 'REQUEST_COMPLETED', 60_000, 'the job')
  expect(body.result.run_status.status).toBe('AC')
}

test('a second installation naming the live socket refuses to start; with {data_id} both run side by side', { timeout: 300_000 }, async () => {
  const live = join(base, 'live')
  const restored = join(base, 'restored')
  mkdirSync(live)
  mkdirSync(restored)
  const shared = join(base, 'run', 'jail.sock')
  const toml = (socket: string) => `[pool]\nsize = 1\njail_socket = "${socket}"\njail_group = "0"\n`

  // the live service: its daemon, its server, a job through the socket
  const firstServer = await startServer({ dataDir: live, configToml: toml(shared) })
  // no jail daemon yet: /health says jobs cannot run, and which part fails
  const down = await fetch(`${firstServer.url}/health`)
  expect(down.status).toBe(503)
  expect((await json(down)).parts.jail).toEqual({ ok: false, detail: `no jail daemon answers at ${shared}` })
  await firstServer.stop()
  const serverUp = startServer({ dataDir: live, configToml: toml(shared) })
  const liveDaemon = startDaemon(live)
  await waitUntil(() => existsSync(shared) || liveDaemon.child.exitCode !== null, 30_000, 'the live socket')
  const liveServer = await serverUp
  servers.push(liveServer)
  await waitUntil(async () => (await fetch(`${liveServer.url}/health`)).status === 200, 10_000, '/health 200 with the daemon up')
  const secret = await liveServer.createClient('live')
  await runsOne(liveServer, secret, 1)
  const inode = statSync(shared).ino
  expect(JSON.parse(readFileSync(`${shared}.owner`, 'utf8'))).toEqual({ pid: liveDaemon.child.pid, data_dir: live })

  // a backup restored beside it: the same config.toml, so the same socket
  copyFileSync(join(live, 'config.toml'), join(restored, 'config.toml'))
  const second = startDaemon(restored)
  expect(await second.exited).toBe(3)
  expect(second.output()).toContain(`another jail daemon serves ${shared} (pid ${liveDaemon.child.pid}, data directory ${live})`)
  expect(statSync(shared).ino).toBe(inode)
  // its server refuses to hand its jobs to the live daemon
  await expect(startServer({ dataDir: restored, configToml: toml(shared) })).rejects.toThrow(`serves the data directory ${live}, not ${restored}`)
  // and a second server on the live data directory refuses too, with the exit code systemd does not restart
  await expect(startServer({ dataDir: live, configToml: toml(shared) })).rejects.toThrow(
    new RegExp(`server exited with 3:[\\s\\S]*another server \\(pid ${liveServer.pid}, port ${liveServer.port}\\) serves the data directory ${live}; not starting a second one`)
  )
  // the same without the jail daemon (the pool in the server's process, as `npm run dev` runs it)
  await expect(startServer({ dataDir: live, configToml: '[pool]\nsize = 1\n' })).rejects.toThrow(/server exited with 3:[\s\S]*another server \(pid \d+, port \d+\) serves the data directory/)
  // neither took anything of the live one's: its config is back, its jobs run
  writeFileSync(join(live, 'config.toml'), `[server]\nhost = "127.0.0.1"\n${toml(shared)}\n`)
  await runsOne(liveServer, secret, 2)

  // {data_id}: the restored copy derives a socket of its own
  const own = join(base, 'run', 'jail-{data_id}.sock')
  const restoredSocket = own.replace('{data_id}', dataDirId(restored))
  const restoredServerUp = startServer({ dataDir: restored, configToml: toml(own) })
  await waitUntil(() => existsSync(join(restored, 'config.toml')), 10_000, 'config.toml')
  const restoredDaemon = startDaemon(restored)
  await waitUntil(() => existsSync(restoredSocket) || restoredDaemon.child.exitCode !== null, 30_000, 'the restored socket')
  const restoredServer = await restoredServerUp
  const other = await restoredServer.createClient('restored')
  await runsOne(restoredServer, other, 3)
  // stopping the copy leaves the live service's socket and jobs alone
  await restoredServer.stop()
  await stopDaemon(restoredDaemon)
  expect(existsSync(restoredSocket)).toBe(false)
  expect(statSync(shared).ino).toBe(inode)
  await runsOne(liveServer, secret, 4)

  // a killed daemon's socket is dead: the next daemon of the same data directory takes its place
  liveDaemon.child.kill('SIGKILL')
  await liveDaemon.exited
  await waitUntil(async () => (await fetch(`${liveServer.url}/health`)).status === 503, 10_000, '/health 503 with the daemon killed')
  const again = startDaemon(live)
  await waitUntil(() => again.output().includes('jail daemon listening') || again.child.exitCode !== null, 30_000, 'the restarted daemon')
  expect(again.child.exitCode).toBe(null)
  await runsOne(liveServer, secret, 5)
  await stopDaemon(again)
  expect(existsSync(shared)).toBe(false)
})
