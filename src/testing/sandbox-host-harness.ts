// Sandbox host processes for end-to-end tests: `cli worker --redis URL` with a data directory of its own
// (its config.toml gives the short lock and stall times the tests wait on). kill() is a SIGKILL: the
// host dies mid-job, as a machine that loses power would.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { waitUntil, type Receiver, type RunningServer } from './harness.ts'
import type { TestRedis } from './redis-server.ts'

const ROOT = join(import.meta.dirname, '..', '..')

/** Short enough that a test sees a killed host's job taken over within seconds. */
export const FAST_QUEUE_TOML = '[queue]\nlock_ms = 3000\nstalled_check_ms = 1000\nreconcile_ms = 1000\nadvert_ttl_ms = 3000\n'

export interface WorkerProcess {
  readonly pid: number
  id: string
  dataDir: string
  output(): string
  stop(): Promise<void>
  kill(): Promise<void>
  cleanup(): void
}

export async function startWorker(opts: { redisUrl: string; id: string; slots?: number; langs?: string[]; configToml?: string }): Promise<WorkerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-worker-'))
  writeFileSync(join(dataDir, 'config.toml'), `${FAST_QUEUE_TOML}${opts.configToml ?? ''}\n`)
  const args = ['--import', 'tsx', 'src/cli.ts', 'worker', '--redis', opts.redisUrl, '--id', opts.id, '--slots', String(opts.slots ?? 2), ...(opts.langs ? ['--langs', opts.langs.join(',')] : [])]
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ARBITER_DATA: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
    })
  await waitUntil(() => {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}:\n${out}`)
    return out.includes('sandbox host taking jobs')
  }, 60_000, `worker ${opts.id} to start`)
  return {
    pid: child.pid!,
    id: opts.id,
    dataDir,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await exited()
      clearTimeout(timer)
    },
    async kill() {
      child.kill('SIGKILL')
      await exited()
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  }
}

/** config.toml of an API host that runs no job itself: every job goes to sandbox hosts on redisUrl. */
export const apiHostToml = (redisUrl: string) =>
  `[pool]\nsize = 0\n${FAST_QUEUE_TOML}redis_url = "${redisUrl}"\n[outbox]\nbackoff_ms = 200\nbackoff_max_ms = 1000\n`

/** Stops whatever a test started (hosts first, so none is left waiting on a gone Redis). */
export async function stopAll(parts: { workers: WorkerProcess[]; receiver?: Receiver; server?: RunningServer; redis?: TestRedis }): Promise<void> {
  await Promise.allSettled(parts.workers.map((w) => w.stop()))
  parts.workers.forEach((w) => w.cleanup())
  await parts.receiver?.close()
  await parts.server?.stop()
  parts.server?.cleanup()
  await parts.redis?.stop()
}
