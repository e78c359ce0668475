// The privilege split, end to end: the jail daemon as root, the HTTP server dropped to an unprivileged
// uid with every capability set empty (setpriv, as scripts/run-service.sh does), real jobs through the
// socket with their verdicts; the socket refuses another uid and any request that is not a plain job.
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'
import { parseConfig } from '../config.ts'
import { maxSourceBytes, requestCap } from '../jobs/jail-protocol.ts'
import { procStatusField } from '../testing/service.ts'

const ROOT = join(import.meta.dirname, '..', '..')
/** A small grading cap, so the daemon's request cap (which grows with it) is quick to exceed. */
const SMALL_TOTAL = 1 << 20
// numeric ids with no passwd entry: nothing on this machine may share them
const SERVER_ID = 61_000
const OTHER_ID = 61_001
const PATH = '/v4/partner/code-evaluation/submissions/'

const dropTo = (id: number) => ['setpriv', `--reuid=${id}`, `--regid=${id}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--']

let base: string
let socketPath: string
let daemon: ChildProcess
let daemonOut = ''
let server: RunningServer
let secret: string

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'arbiter-split-'))
  chmodSync(base, 0o755)
  const dataDir = join(base, 'data')
  mkdirSync(dataDir, { mode: 0o750 })
  chownSync(dataDir, SERVER_ID, SERVER_ID)
  socketPath = join(base, 'run', 'jail.sock')
  const configToml = `[pool]\nsize = 2\njail_socket = "${socketPath}"\njail_group = "${SERVER_ID}"\n[grading]\ntotal_max_bytes = ${SMALL_TOTAL}\n`
  // the server starts first (it writes config.toml as root, as setup.sh does); jobs wait for the daemon
  const serverUp = startServer({ dataDir, configToml, launcher: dropTo(SERVER_ID) })
  await waitUntil(() => existsSync(join(dataDir, 'config.toml')), 10_000, 'config.toml')
  daemon = spawn(process.execPath, ['--import', 'tsx', 'src/jail-daemon.ts'], { cwd: ROOT, env: { ...process.env, ARBITER_DATA: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] })
  daemon.stdout!.on('data', (d) => (daemonOut += d))
  daemon.stderr!.on('data', (d) => (daemonOut += d))
  await waitUntil(() => existsSync(socketPath) || daemon.exitCode !== null, 30_000, 'the jail socket')
  if (daemon.exitCode !== null) throw new Error(`jail daemon exited:\n${daemonOut}`)
  server = await serverUp
  secret = await server.createClient('split')
}, 120_000)

afterAll(async () => {
  await server?.stop()
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGTERM')
    await new Promise((r) => daemon.once('exit', r))
  }
  rmSync(base, { recursive: true, force: true })
})

/** Uid and capability lines of /proc/<pid>/status. */
function credentials(pid: number) {
  const field = (name: string) => procStatusField(pid, name)
  return {
    uids: field('Uid').split(/\s+/).map(Number),
    gids: field('Gid').split(/\s+/).map(Number),
    groups: field('Groups'),
    caps: Object.fromEntries(['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'].map((k) => [k, field(k)])),
    noNewPrivs: field('NoNewPrivs'),
  }
}

describe('privilege split', () => {
  test('the server runs without uid 0 or any capability while its jobs run in the root daemon, with correct verdicts', { timeout: 120_000 }, async () => {
    const http = api(server.url)
    const submit = async (body: object) => (await json(await http.post(PATH, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' }))).he_id as string
    const jobs = {
      ok: await submit({ lang: 'PYTHON3', source: 'import time\ntime.sleep(1.5)\nprint(input()[::-1])', input: 'olleh' }),
      tle: await submit({ lang: 'C', source: 'int main(){for(;;);}', time_limit: 1 }),
      ce: await submit({ lang: 'C', source: 'int main(){ return }' }),
      re: await submit({ lang: 'PYTHON3', source: 'raise SystemExit(3)' }),
      // the data directory (database, config) must stay out of the jail's view with the daemon too
      peek: await submit({ lang: 'PYTHON3', source: `import os\nprint([os.path.exists(p) for p in ${JSON.stringify([server.dataDir, join(server.dataDir, 'arbiter.db'), base])}])` }),
    }
    // while jobs are running, look at the server process itself
    await waitUntil(() => server.query<{ n: number }>(`select count(*) n from submissions where state in ('running','compiled')`)[0].n > 0, 30_000, 'a running job')
    const creds = credentials(server.pid)
    expect(creds.uids.every((u) => u === SERVER_ID)).toBe(true)
    expect(creds.gids.every((g) => g === SERVER_ID)).toBe(true)
    expect(creds.groups).toBe('')
    for (const [name, value] of Object.entries(creds.caps)) expect(value, name).toBe('0000000000000000')
    expect(creds.noNewPrivs).toBe('1')
    // and the daemon really is the one running them, as root
    expect(credentials(daemon.pid!).uids[0]).toBe(0)

    const done = async (he: string) => {
      let r: { request_status: { code: string }; result: { compile_status: string; run_status: { status: string; output?: string } } }
      await waitUntil(async () => (r = await json(await http.get(`${PATH}${he}/`, { 'client-secret': secret }))).request_status.code === 'REQUEST_COMPLETED', 60_000, he)
      return r!
    }
    const ok = await done(jobs.ok)
    expect(ok.result.run_status.status).toBe('AC')
    expect(await (await fetch(ok.result.run_status.output!)).text()).toBe('hello\n')
    expect((await done(jobs.tle)).result.run_status.status).toBe('TLE')
    expect((await done(jobs.ce)).result.compile_status).not.toBe('OK')
    expect((await done(jobs.re)).result.run_status.status).toBe('RE')
    const peek = await done(jobs.peek)
    expect(peek.result.run_status.status).toBe('AC')
    expect(await (await fetch(peek.result.run_status.output!)).text()).toBe('[False, False, False]\n')

    // what the server stores belongs to it, not to root
    expect(statSync(join(server.dataDir, 'arbiter.db')).uid).toBe(SERVER_ID)
  })

  test('another unprivileged uid cannot reach the socket', async () => {
    const probe = `require('net').connect(${JSON.stringify(socketPath)}).on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(0)})`
    const other = await promisify(execFile)(dropTo(OTHER_ID)[0], [...dropTo(OTHER_ID).slice(1), process.execPath, '-e', probe])
    expect(other.stdout.trim()).toBe('EACCES')
    // the server's uid can (the same probe, as a control)
    const mine = await promisify(execFile)(dropTo(SERVER_ID)[0], [...dropTo(SERVER_ID).slice(1), process.execPath, '-e', probe])
    expect(mine.stdout.trim()).toBe('CONNECTED')
    const dir = statSync(join(base, 'run'))
    expect([dir.uid, dir.gid, dir.mode & 0o777]).toEqual([0, SERVER_ID, 0o750])
    const sock = statSync(socketPath)
    expect([sock.uid, sock.gid, sock.mode & 0o777]).toEqual([0, SERVER_ID, 0o660])
  })

  /** One raw request line to the daemon; its reply lines. */
  const ask = (line: string) =>
    new Promise<string[]>((resolve) => {
      let out = ''
      const s = connect(socketPath)
      s.on('connect', () => s.write(line))
      s.on('data', (d) => (out += d))
      // a refused oversized request may be cut off with a reset while we are still writing
      s.on('error', () => {})
      s.on('close', () => resolve(out.split('\n').filter(Boolean)))
      s.on('end', () => s.destroy())
    })
  const job = { language: 'PYTHON3', source: 'print(1)', input: '', timeLimitSec: 1, memoryLimitKb: 65536 }

  test.each([
    ['not JSON', 'hello\n'],
    ['an extra top-level field', JSON.stringify({ job, exec: '/bin/sh' }) + '\n'],
    ['an extra job field', JSON.stringify({ job: { ...job, argv: ['/bin/sh'] } }) + '\n'],
    ['a time limit above the limits', JSON.stringify({ job: { ...job, timeLimitSec: 3600 } }) + '\n'],
    ['a memory limit above the limits', JSON.stringify({ job: { ...job, memoryLimitKb: 64 << 20 } }) + '\n'],
    ['a language that is a path', JSON.stringify({ job: { ...job, language: '../../bin/sh' } }) + '\n'],
    // one byte past the largest source any face may send (the Jobe face's request cap raised it past 300 KB)
    ['a source over the cap', JSON.stringify({ job: { ...job, source: 'x'.repeat(maxSourceBytes(parseConfig({}, {}, tmpdir())) + 1) } }) + '\n'],
  ])('refuses %s', async (_, line) => {
    const replies = await ask(line)
    expect(replies).toHaveLength(1)
    const m = JSON.parse(replies[0]) as { type: string; message: string }
    expect(m.type).toBe('error')
    expect(m.message).toMatch(/request refused/)
  })

  test('ends a request line larger than its cap without waiting for its end', { timeout: 30_000 }, async () => {
    // no newline and the connection left open: only the cap makes the daemon answer and close
    const replies = await ask('x'.repeat(requestCap(parseConfig({ grading: { total_max_bytes: SMALL_TOTAL } }, {}, tmpdir())) + 4096))
    if (replies.length) expect(JSON.parse(replies[0])).toMatchObject({ type: 'error', message: expect.stringMatching(/too large/) })
    expect(daemonOut).toMatch(/request too large/)
  })

  type Reply = { type: string; result?: { compile: { ok: boolean }; run?: { stdout: string } } }
  test('a well-formed job gets its result, its compile step in it when the run is short', { timeout: 60_000 }, async () => {
    const replies = (await ask(JSON.stringify({ job }) + '\n')).map((l) => JSON.parse(l) as Reply)
    expect(replies.map((r) => r.type)).toEqual(['result'])
    expect(replies[0].result?.compile.ok).toBe(true)
    expect(replies[0].result?.run?.stdout).toBe('1\n')
  })

  test('a job that runs on past its compile step gets progress, then its result', { timeout: 60_000 }, async () => {
    const slow = { ...job, source: 'import time\ntime.sleep(0.6)\nprint(2)' }
    const replies = (await ask(JSON.stringify({ job: slow }) + '\n')).map((l) => JSON.parse(l) as Reply)
    expect(replies.map((r) => r.type)).toEqual(['compiled', 'result'])
    expect(replies[1].result?.run?.stdout).toBe('2\n')
  })
})
