// A Pool that hands each job to the root jail daemon (jobs/jail-daemon.ts) over its unix socket, so the
// server itself runs unprivileged. One connection per job; progress and the result come back as lines.
import { connect } from 'node:net'
import type { Config } from '../config.ts'
import { frame, readLines, type DaemonMessage } from './jail-protocol.ts'
import { inlineFilesAt } from './job-files.ts'
import type { Pool, RunHooks } from './pool-types.ts'
import { relayProgress } from './progress.ts'
import type { Job, JobResult } from './types.ts'

/** The result line carries stdout and stderr, each capped by the daemon; leave ample room. */
// a graded job's result carries each test's stdout (up to limits.output_cap_bytes each)
const REPLY_CAP = 512 << 20

/** How long to keep trying while the daemon is not there (it restarts under systemd in ~1 s). */
const CONNECT_PATIENCE_MS = 20_000

class Unreachable extends Error {}

function runOnce(socketPath: string, job: Job, hooks: RunHooks): Promise<JobResult> {
  return new Promise((resolve, reject) => {
    let settled = false
    let connected = false
    const socket = connect(socketPath)
    const settle = (fn: () => void) => {
      if (settled) return
      settled = true
      socket.destroy()
      fn()
    }
    socket.on('connect', () => {
      connected = true
      socket.write(frame({ job }))
    })
    readLines(
      socket,
      REPLY_CAP,
      (line) => {
        let m: DaemonMessage
        try {
          m = JSON.parse(line) as DaemonMessage
        } catch {
          return settle(() => reject(new Error('jail daemon: unreadable reply')))
        }
        if (relayProgress(hooks, m)) return
        if (m.type === 'result') settle(() => resolve(m.result))
        else settle(() => reject(new Error(m.message)))
      },
      () => settle(() => reject(new Error('jail daemon: reply too large')))
    )
    socket.on('error', (err: NodeJS.ErrnoException) =>
      settle(() => reject(connected ? new Error(`jail daemon: ${err.message}`) : new Unreachable(`jail daemon unreachable at ${socketPath}: ${err.code ?? err.message}`)))
    )
    socket.on('close', () => settle(() => reject(new Error('jail daemon closed the connection before the result'))))
  })
}

export function createJailPool(config: Config): Pool {
  const socketPath = config.pool.jail_socket
  let size = config.pool.size
  let busy = 0
  return {
    get size() {
      return size
    },
    get busy() {
      return busy
    },
    async run(job, hooks = {}) {
      busy++
      try {
        // root never reads a path the server names: a job's stored files go to the daemon as bytes
        job = await inlineFilesAt(job)
        const giveUp = Date.now() + CONNECT_PATIENCE_MS
        for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
          try {
            return await runOnce(socketPath, job, hooks)
          } catch (err) {
            // only a job that never reached the daemon is safe to send again
            if (!(err instanceof Unreachable) || Date.now() > giveUp) throw err
            await new Promise((r) => setTimeout(r, delay))
          }
        }
      } finally {
        busy--
      }
    },
    // the daemon reads its own (root-owned) config; only how many jobs we hand it at once changes here
    reconfigure(next) {
      size = next.pool.size
    },
    // a fixed number of jobs handed to the daemon: any language while a slot is free, none resumed after a restart
    resumesInFlight: false,
    available: () => undefined,
    onCapacity() {},
    async close() {},
  }
}
