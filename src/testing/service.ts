// A data directory laid out as the service's (owned by the server's uid, a config with the jail
// daemon's socket and group), the service started on it, and what its processes are, for the tests of
// the privilege split (run-service.sh, npm start).
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './harness.ts'

export interface ServiceDir {
  /** The temporary folder holding data/ and run/ (remove it when done). */
  base: string
  dataDir: string
  url: string
  /** The environment that starts the service on it, with the server as serverUid. */
  env: NodeJS.ProcessEnv
}

export async function serviceDir(serverUid: number, prefix: string): Promise<ServiceDir> {
  const base = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(base, 0o755)
  const dataDir = join(base, 'data')
  mkdirSync(dataDir, { mode: 0o750 })
  chownSync(dataDir, serverUid, serverUid)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  writeFileSync(join(dataDir, 'config.toml'), `[server]\nhost = "127.0.0.1"\n[pool]\nsize = 1\njail_socket = "${join(base, 'run', 'jail.sock')}"\njail_group = "${serverUid}"\n`)
  const env = { ...process.env, ARBITER_DATA: dataDir, ARBITER_USER: String(serverUid), PORT: String(port), ARBITER_PUBLIC_URL: url }
  return { base, dataDir, url, env }
}

/** GET /health answers 200 within a second. */
export async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) })).ok
  } catch {
    return false
  }
}

/** A field of /proc/<pid>/status ("Uid", "CapEff", "NoNewPrivs" …), trimmed. */
export function procStatusField(pid: number, name: string): string {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return status.match(new RegExp(`^${name}:[ \\t]*(.*)$`, 'm'))![1]!.trim()
}

/** The pid of the server serving dataDir (its pid file). */
export const servedPid = (dataDir: string): number => (JSON.parse(readFileSync(join(dataDir, 'arbiter.pid'), 'utf8')) as { pid: number }).pid

export interface ServiceProcess {
  child: ChildProcess
  /** Everything it wrote so far, stdout and stderr together. */
  output(): string
  /** SIGTERM (unless it already exited) and its exit. */
  stop(): Promise<void>
}

/** Starts `command args` in the project (npm start, scripts/run-service.sh …) with env, collecting its output. */
export function startService(command: string, args: string[], env: NodeJS.ProcessEnv): ServiceProcess {
  const child = spawn(command, args, { cwd: join(import.meta.dirname, '..', '..'), env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = () => new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())))
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited()
    },
  }
}
