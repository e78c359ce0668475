// Nothing is left behind: a finished `cli run` leaves no slot folder, and a server killed with SIGKILL
// mid-job (its supervisors killed too, as a whole process group would be) leaves slot folders, a
// mounted work directory and slot cgroups that the next start removes, while the slots of processes
// still alive are kept; a graceful stop leaves nothing at all, and neither does a reload for the
// threads it retires.
import { execa } from 'execa'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { loadConfig } from '../config.ts'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const runs = loadConfig({ ARBITER_DATA: tmpdir() }).paths.runs
let server: RunningServer

beforeAll(async () => {
  server = await startServer({ configToml: '[pool]\nsize = 2\n' })
}, 60_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

const slotsOf = (pid: number) => readdirSync(runs).filter((n) => n.startsWith(`w${pid}-`))
const mountsOf = (pid: number) => readFileSync('/proc/mounts', 'utf8').split('\n').filter((l) => l.includes(`${runs}/w${pid}-`))
const cgroupsOf = (pid: number) =>
  ['/sys/fs/cgroup/arbiter', '/sys/fs/cgroup/memory/arbiter', '/sys/fs/cgroup/pids/arbiter', '/sys/fs/cgroup/cpuacct/arbiter']
    .filter(existsSync)
    .flatMap((d) => readdirSync(d).filter((n) => n.startsWith(`w${pid}-`)).map((n) => `${d}/${n}`))
/** What of the named slots (`w<pid>-<thread>`) is still there: folders, mounts, cgroups. */
const leftOf = (pid: number, slots: string[]) => {
  const ours = (path: string) => slots.some((slot) => path.includes(`/${slot}/`) || path.endsWith(`/${slot}`) || path.includes(`/${slot} `))
  return { slots: slotsOf(pid).filter((n) => slots.includes(n)), mounts: mountsOf(pid).filter(ours), cgroups: cgroupsOf(pid).filter(ours) }
}

/** The supervisors a server started (children of its process). */
function supervisorsOf(pid: number): number[] {
  const all = readdirSync('/proc').filter((p) => /^\d+$/.test(p))
  return all
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8')
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('arbiter-supervisor')
      } catch {
        return false
      }
    })
    .map(Number)
}

test('cli run leaves no slot folder behind', { timeout: 120_000 }, async () => {
  const src = join(tmpdir(), `leftovers-${process.pid}.py`)
  writeFileSync(src, 'print(1)\n')
  const child = execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'run', '--lang', 'PYTHON3', '--source', src], { cwd: ROOT })
  const pid = child.pid!
  const r = await child
  expect(JSON.parse(r.stdout).status).toBe('AC')
  expect(readdirSync(runs).filter((n) => n === `cli-${pid}`)).toEqual([])
})

test('a server killed mid-job: the next start removes its slot folders, mounted boxes and cgroups', { timeout: 180_000 }, async () => {
  const secret = await server.createClient('leftovers')
  const http = api(server.url)
  // two jobs in the jail at the kill, each holding its box mounted
  for (let i = 0; i < 2; i++) {
    await http.post('/v4/partner/code-evaluation/submissions/', JSON.stringify({ lang: 'PYTHON3', source: 'import time\ntime.sleep(4)' }), { 'client-secret': secret, 'content-type': 'application/json' })
  }
  const old = server.pid
  // both jobs running (an idle thread keeps an empty box mounted for its next job: a count of mounts
  // alone would be met by those), and their boxes mounted
  const running = () => Number(server.query<{ n: number }>("select count(*) n from submissions where state in ('running', 'compiled')")[0].n)
  await waitUntil(() => running() === 2 && mountsOf(old).length >= 2, 30_000, 'both jobs running in their boxes')
  await new Promise((r) => setTimeout(r, 300))
  const supervisors = supervisorsOf(old)
  expect(supervisors.length).toBeGreaterThan(0)
  await server.kill()
  for (const s of supervisors) {
    try {
      process.kill(s, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  await new Promise((r) => setTimeout(r, 500))
  // what the kill left: the two running jobs' boxes (an idle supervisor unmounts its empty one when
  // its server goes)
  expect(slotsOf(old).length).toBeGreaterThan(0)
  expect(mountsOf(old).length).toBeGreaterThanOrEqual(2)
  expect(cgroupsOf(old).length).toBeGreaterThan(0)

  await server.restart()
  // the next start's slots clean up before their first step; the re-queued jobs run through them
  await waitUntil(() => Number(server.query<{ n: number }>("select count(*) n from submissions where state = 'completed'")[0].n) === 2, 60_000, 'jobs completed')
  await waitUntil(() => slotsOf(old).length === 0 && mountsOf(old).length === 0 && cgroupsOf(old).length === 0, 20_000, 'leftovers removed').catch((err) => {
    throw new Error(`${err.message}: ${JSON.stringify({ slots: slotsOf(old), mounts: mountsOf(old), cgroups: cgroupsOf(old) })}`)
  })
  // the new server's own slots are alive and kept
  expect(slotsOf(server.pid).length).toBeGreaterThan(0)
  const r = await json(await http.post('/code/run/', new URLSearchParams({ client_secret: secret, source: 'print(2)', lang: 'PYTHON3' })))
  expect(r.run_status.status).toBe('AC')
})

test('a graceful stop removes its own slot folders, mounted boxes and cgroups', { timeout: 180_000 }, async () => {
  const own = await startServer({ configToml: '[pool]\nsize = 2\n' })
  try {
    const secret = await own.createClient('graceful')
    const r = await json(await api(own.url).post('/code/run/', new URLSearchParams({ client_secret: secret, source: 'print(3)', lang: 'PYTHON3' })))
    expect(r.run_status.status).toBe('AC')
    const pid = own.pid
    expect(slotsOf(pid).length).toBeGreaterThan(0)
    await own.stop()
    expect({ slots: slotsOf(pid), mounts: mountsOf(pid), cgroups: cgroupsOf(pid) }).toEqual({ slots: [], mounts: [], cgroups: [] })
  } finally {
    await own.stop()
    own.cleanup()
  }
})

test('a reload with a new pool size removes the retired threads\' slot folders, mounted boxes and cgroups while the server runs on', { timeout: 180_000 }, async () => {
  const own = await startServer({ configToml: '[pool]\nsize = 2\n' })
  try {
    const secret = await own.createClient('reload')
    const http = api(own.url)
    const run = async (n: number) => {
      const r = await json(await http.post('/code/run/', new URLSearchParams({ client_secret: secret, source: `print(${n})`, lang: 'PYTHON3' })))
      expect(r.run_status.status).toBe('AC')
    }
    // both threads busy at once, so both have opened their slots
    await Promise.all([run(1), run(2)])
    const pid = own.pid
    const retired = slotsOf(pid)
    expect(retired.length).toBe(2)
    expect(cgroupsOf(pid).length).toBeGreaterThan(0)
    // the reload's new pool size takes a fresh set of threads; the old ones are retired in the background
    writeFileSync(join(own.dataDir, 'config.toml'), '[server]\nhost = "127.0.0.1"\n[pool]\nsize = 1\n')
    process.kill(pid, 'SIGHUP')
    await waitUntil(() => own.output().includes('config reloaded'), 20_000, 'the reload')
    await run(3)
    // the owner is alive, so no sweep of dead owners would touch these: only the pool's own removal does
    await waitUntil(() => JSON.stringify(leftOf(pid, retired)) === JSON.stringify({ slots: [], mounts: [], cgroups: [] }), 20_000, 'the retired slots removed').catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(leftOf(pid, retired))}`)
    })
    // the new thread's slot is there and works
    const fresh = slotsOf(pid).filter((n) => !retired.includes(n))
    expect(fresh.length).toBe(1)
    await run(4)
  } finally {
    await own.stop()
    own.cleanup()
  }
})
