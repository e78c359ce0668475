// The root side of the privilege split: a unix socket that accepts nothing but job requests and runs
// them on the local pool (pool.ts: worker threads, supervisors, nsjail). Only the socket's group (the
// server's) can reach it: the directory is 0750 root:<group>, the socket 0660. Each request is checked
// by a strict zod schema bounded by this daemon's own config; it never touches the data directory.
//
// Whoever reaches the socket is not trusted with the daemon's memory or its slots: a request line is
// capped, all connections still sending theirs share one budget of buffered bytes (past it the one
// holding most is dropped), a request must arrive within a time, and connections that have not sent a
// request yet are a bounded set in which a new one displaces the oldest: idle or endless connections
// never keep the real server out.
import { chmodSync, chownSync, lstatSync, mkdirSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { dirname } from 'node:path'
import { execFileSync } from 'node:child_process'
import type { Config } from '../config.ts'
import type { Log } from '../log.ts'
import { frame, jobRequestSchema, requestCap, type DaemonMessage } from './jail-protocol.ts'
import type { Pool } from './pool-types.ts'
import { sendProgress } from './progress.ts'
import { claimSocketPath, recordSocketOwner, releaseSocket } from './jail-socket-owner.ts'

/** How much a connection may cost before its request is in (defaults from the config: requestLimits). */
export interface RequestLimits {
  /** Longest request line. */
  lineBytes: number
  /** Bytes buffered across every connection still sending its request. */
  bufferBytes: number
  /** How long a connection may take to send its whole request. */
  timeoutMs: number
  /** Connections waiting for their request at once; a new one displaces the oldest. */
  waiting: number
}

/** A request is sent at once by the server (jail-pool.ts): seconds are ample even for the largest. */
export const REQUEST_TIMEOUT_MS = 15_000

export const requestLimits = (config: Config): RequestLimits => ({
  lineBytes: requestCap(config),
  // one largest request's worth, whoever sends it
  bufferBytes: requestCap(config),
  timeoutMs: REQUEST_TIMEOUT_MS,
  waiting: config.pool.size * 4 + 16,
})

export interface JailDaemon {
  readonly server: Server
  /** Bytes held for requests not yet complete, across connections (bounded by RequestLimits.bufferBytes). */
  readonly bufferedBytes: number
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

export async function startJailDaemon(initial: Config, pool: Pool, log: Log, limitsFor: (config: Config) => RequestLimits = requestLimits): Promise<JailDaemon> {
  let config = initial
  let schema = jobRequestSchema(config)
  const socketPath = config.pool.jail_socket
  if (!socketPath) throw new Error('jail daemon: pool.jail_socket is not set')
  const gid = resolveGroup(config.pool.jail_group)
  prepareDirectory(dirname(socketPath), gid)
  // a live socket is another daemon's: refused, never taken over (only a dead one is removed)
  await claimSocketPath(socketPath, config.dataDir)

  const connections = new Set<Socket>()
  // connections whose request is not complete yet, oldest first (a Map keeps insertion order)
  const waiting = new Map<Socket, { chunks: Buffer[]; bytes: number; timer: NodeJS.Timeout }>()
  let buffered = 0
  // enough for every slot plus requests waiting for one; more would only hold memory
  const maxConnections = () => config.pool.size * 4 + 16

  const release = (socket: Socket) => {
    const w = waiting.get(socket)
    if (!w) return
    clearTimeout(w.timer)
    buffered -= w.bytes
    w.chunks = []
    waiting.delete(socket)
  }

  const handle = (socket: Socket) => {
    const limits = limitsFor(config)
    const send = (m: DaemonMessage) => {
      if (!socket.destroyed) socket.write(frame(m))
    }
    const refuseSocket = (s: Socket, why: string) => {
      release(s)
      connections.delete(s)
      log.warn('job request refused', { why })
      // destroyed, not ended: a client still writing an oversized request would keep it open
      s.write(frame({ type: 'error', message: `jail daemon: request refused: ${why}` }), () => s.destroy())
      // a client that reads nothing would keep the write (and the socket) pending
      setTimeout(() => s.destroy(), 1000).unref()
    }
    const refuse = (why: string) => refuseSocket(socket, why)
    socket.on('error', () => {})
    socket.on('close', () => {
      release(socket)
      connections.delete(socket)
    })
    // idle or slow connections make room for new ones: the oldest still without a request goes;
    // only when every connection is a running job is a new one refused
    if (waiting.size >= limits.waiting || connections.size >= maxConnections()) {
      const [oldest] = waiting.keys()
      if (oldest) refuseSocket(oldest, 'displaced by a newer connection before its request arrived')
      else return refuse('too many connections')
    }
    connections.add(socket)
    const timer = setTimeout(() => refuse(`no whole request within ${limits.timeoutMs} ms`), limits.timeoutMs)
    timer.unref()
    waiting.set(socket, { chunks: [], bytes: 0, timer })

    const onData = (data: Buffer) => {
      const w = waiting.get(socket)
      if (!w) return
      const nl = data.indexOf(10)
      const part = nl === -1 ? data : data.subarray(0, nl)
      if (w.bytes + part.length > limits.lineBytes) return refuse('request too large')
      if (nl === -1) {
        w.chunks.push(data)
        w.bytes += data.length
        buffered += data.length
        // over the shared budget: the connection holding most goes (an honest request is sent whole, at once)
        while (buffered > limits.bufferBytes && waiting.size) {
          let largest: Socket | undefined
          let most = -1
          for (const [s, x] of waiting) if (x.bytes > most) (largest = s), (most = x.bytes)
          refuseSocket(largest!, 'the daemon holds too many unfinished requests')
        }
        return
      }
      // one request per connection; anything after it is not read
      socket.off('data', onData)
      socket.pause()
      const line = Buffer.concat([...w.chunks, part]).toString('utf8')
      release(socket)
      take(line)
    }
    socket.on('data', onData)

    const take = (line: string) => {
      let body: unknown
      try {
        body = JSON.parse(line)
      } catch {
        return refuse('not JSON')
      }
      const parsed = schema.safeParse(body)
      if (!parsed.success) return refuse(parsed.error.issues.map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`).join('; '))
      pool
        .run(parsed.data.job, sendProgress(send))
        .then(
          (result) => send({ type: 'result', result }),
          (err: unknown) => send({ type: 'error', message: err instanceof Error ? err.message : String(err) })
        )
        .finally(() => socket.end())
    }
  }

  const server = createServer(handle)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(socketPath, () => resolve())
  }).catch((err: NodeJS.ErrnoException) => {
    // another daemon bound it between our check and our listen
    if (err.code === 'EADDRINUSE') return claimSocketPath(socketPath, config.dataDir).then(() => Promise.reject(err))
    throw err
  })
  const mine = recordSocketOwner(socketPath, config.dataDir, gid)
  // the directory already keeps others out; the socket's own mode says the same
  chownSync(socketPath, 0, gid)
  chmodSync(socketPath, 0o660)
  log.info('jail daemon listening', { socket: socketPath, gid, pool: pool.size })

  return {
    server,
    get bufferedBytes() {
      return buffered
    },
    reconfigure(next) {
      config = next
      schema = jobRequestSchema(next)
      pool.reconfigure(next)
    },
    async close() {
      // jobs in flight are cut off: the server sees a closed connection and its dispatcher retries them
      const closed = new Promise<void>((r) => server.close(() => r()))
      for (const s of connections) s.destroy()
      await closed
      await pool.close()
      releaseSocket(socketPath, mine)
    },
  }
}
