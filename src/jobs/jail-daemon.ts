// The root side of the privilege split: a unix socket that accepts nothing but job requests and runs
// them on the local pool (pool.ts: worker threads, supervisors, nsjail). Only the socket's group (the
// server's) can reach it: the directory is 0750 root:<group>, the socket 0660. Each request is checked
// by a strict zod schema bounded by this daemon's own config; it never touches the data directory.
import { chmodSync, chownSync, lstatSync, mkdirSync, rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { dirname } from 'node:path'
import { execFileSync } from 'node:child_process'
import type { Config } from '../config.ts'
import type { Log } from '../log.ts'
import { frame, jobRequestSchema, readLines, requestCap, type DaemonMessage } from './jail-protocol.ts'
import type { Pool } from './pool-types.ts'

export interface JailDaemon {
  readonly server: Server
  /** A reloaded (root-owned) config: later requests are checked against it and run with its limits. */
  reconfigure(config: Config): void
  close(): Promise<void>
}

/** A group name or number → gid (getent reads NSS, as the rest of the system does). */
export function resolveGroup(group: string): number {
  if (/^\d+$/.test(group)) return Number(group)
  const line = execFileSync('getent', ['group', group], { encoding: 'utf8' }).trim()
  const gid = Number(line.split(':')[2])
  if (!Number.isInteger(gid)) throw new Error(`jail daemon: no group ${group}`)
  return gid
}

/** The socket's directory: ours (root), readable and traversable by the group only; never a link. */
function prepareDirectory(dir: string, gid: number): void {
  mkdirSync(dir, { recursive: true, mode: 0o750 })
  if (!lstatSync(dir).isDirectory()) throw new Error(`jail daemon: ${dir} is not a directory`)
  chownSync(dir, 0, gid)
  chmodSync(dir, 0o750)
}

export async function startJailDaemon(initial: Config, pool: Pool, log: Log): Promise<JailDaemon> {
  let config = initial
  let schema = jobRequestSchema(config)
  const socketPath = config.pool.jail_socket
  if (!socketPath) throw new Error('jail daemon: pool.jail_socket is not set')
  const gid = resolveGroup(config.pool.jail_group)
  prepareDirectory(dirname(socketPath), gid)
  rmSync(socketPath, { force: true })

  const connections = new Set<Socket>()
  // enough for every slot plus requests waiting for one; more would only hold memory
  const maxConnections = () => config.pool.size * 4 + 16

  const handle = (socket: Socket) => {
    let taken = false
    const send = (m: DaemonMessage) => {
      if (!socket.destroyed) socket.write(frame(m))
    }
    const refuse = (why: string) => {
      log.warn('job request refused', { why })
      // destroyed, not ended: a client still writing an oversized request would keep it open
      socket.write(frame({ type: 'error', message: `jail daemon: request refused: ${why}` }), () => socket.destroy())
    }
    socket.on('error', () => {})
    if (connections.size >= maxConnections()) return refuse('too many connections')
    connections.add(socket)
    socket.on('close', () => connections.delete(socket))
    readLines(
      socket,
      requestCap(config),
      (line) => {
        // one request per connection; anything after it is ignored
        if (taken) return
        taken = true
        socket.pause()
        let body: unknown
        try {
          body = JSON.parse(line)
        } catch {
          return refuse('not JSON')
        }
        const parsed = schema.safeParse(body)
        if (!parsed.success) return refuse(parsed.error.issues.map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`).join('; '))
        pool
          .run(parsed.data.job, {
            onCompiled: (outcome) => send({ type: 'compiled', outcome }),
            onTest: (index, outcome) => send({ type: 'test', index, outcome }),
          })
          .then(
            (result) => send({ type: 'result', result }),
            (err: unknown) => send({ type: 'error', message: err instanceof Error ? err.message : String(err) })
          )
          .finally(() => socket.end())
      },
      () => refuse('request too large')
    )
  }

  const server = createServer(handle)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(socketPath, () => resolve())
  })
  // the directory already keeps others out; the socket's own mode says the same
  chownSync(socketPath, 0, gid)
  chmodSync(socketPath, 0o660)
  log.info('jail daemon listening', { socket: socketPath, gid, pool: pool.size })

  return {
    server,
    reconfigure(next) {
      config = next
      schema = jobRequestSchema(next)
      pool.reconfigure?.(next)
    },
    async close() {
      // jobs in flight are cut off: the server sees a closed connection and its dispatcher retries them
      const closed = new Promise<void>((r) => server.close(() => r()))
      for (const s of connections) s.destroy()
      await closed
      await pool.close()
      rmSync(socketPath, { force: true })
    },
  }
}
