// A private Redis for tests: Debian's redis-server (scripts/test.sh installs it) on a free loopback
// port with a temporary directory, no persistence, an ACL user with a password and the default user
// switched off (as docs/admin/sandbox-hosts.md asks of a real deployment). stop() ends it and removes the directory;
// kill() SIGKILLs it (a Redis crash); restart() starts it again on the same port.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { freePort } from './harness.ts'

export interface TestRedis {
  url: string
  port: number
  user: string
  password: string
  stop(): Promise<void>
  kill(): Promise<void>
  restart(): Promise<void>
  /** Stops it (SIGTERM) and keeps it stopped until up(). */
  down(): Promise<void>
  /** Starts it again on the same port after down() or kill(). */
  up(): Promise<void>
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-redis-'))
  const port = await freePort()
  const user = 'arbiter'
  const password = `pw-${process.pid}-${port}`
  let child: ChildProcess | undefined

  const launch = async (): Promise<void> => {
    const args = [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
      '--daemonize', 'no', '--logfile', '', '--loglevel', 'warning',
      '--user', 'default', 'off',
      '--user', user, 'on', `>${password}`, '~*', '&*', '+@all',
    ]
    const c = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    c.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
    child = c
    const deadline = Date.now() + 10_000
    for (;;) {
      if (c.exitCode !== null) throw new Error(`redis-server exited ${c.exitCode}: ${stderr}`)
      const probe = new Redis({ port, host: '127.0.0.1', username: user, password, lazyConnect: true,
        maxRetriesPerRequest: 0, retryStrategy: () => null })
      probe.on('error', () => {})
      try {
        await probe.connect()
        if ((await probe.ping()) === 'PONG') return
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server did not answer: ${stderr}`)
        await new Promise((r) => setTimeout(r, 50))
      } finally {
        probe.disconnect()
      }
    }
  }

  const end = async (signal: NodeJS.Signals): Promise<void> => {
    const c = child
    child = undefined
    if (!c || c.exitCode !== null || c.signalCode !== null) return
    const gone = new Promise((r) => c.once('exit', r))
    c.kill(signal)
    await gone
  }

  await launch()
  return {
    url: `redis://${user}:${password}@127.0.0.1:${port}`,
    port,
    user,
    password,
    kill: () => end('SIGKILL'),
    down: () => end('SIGTERM'),
    up: () => launch(),
    restart: async () => {
      await end('SIGTERM')
      await launch()
    },
    stop: async () => {
      await end('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
