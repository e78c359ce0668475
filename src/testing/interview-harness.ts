// The interview e2e tests' view of the real server (started by harness.ts): config sections as objects,
// JSON calls that return the parsed envelope, and direct reads of the database for "nothing stored" checks.
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { stringify } from 'smol-toml'
import { startServer as startRealServer } from './harness.ts'
import { callJson } from './interviews.ts'

export interface Server {
  base: string
  dataDir: string
  /** The server process (its memory can be read from /proc). */
  readonly pid: number
  /** `npm run cli -- args`, parsed JSON stdout. */
  cli(...args: string[]): Promise<any>
  /** JSON request; returns status, parsed body (undefined if not JSON), raw text and headers. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>
  /** Read-only query (WAL: sees what the server committed). */
  sql<T = any>(query: string, ...params: unknown[]): T[]
  /** A write, for tests that stand in for a later feature (feedback submission). */
  exec(query: string, ...params: unknown[]): void
  /** Graceful stop and start on the same data. */
  restart(): Promise<void>
  /** Stops the server and removes its data. */
  stop(): Promise<void>
}

export interface Reply {
  status: number
  json: any
  text: string
  headers: Headers
}

/** Config sections for data/config.toml, e.g. { interviews: { rate_per_minute: 1000 } }. */
export async function startServer(config: Record<string, Record<string, unknown>> = {}): Promise<Server> {
  const real = await startRealServer({ configToml: stringify(config) })
  const open = (readonly: boolean) => {
    const db = new Database(join(real.dataDir, 'arbiter.db'), { readonly })
    db.pragma('busy_timeout = 5000')
    return db
  }
  return {
    base: real.url,
    dataDir: real.dataDir,
    get pid() {
      return real.pid
    },
    cli: (...args) => real.cli(args) as Promise<any>,
    call: (method, path, body, headers = {}) => callJson((p, init) => fetch(real.url + p, init), method, path, body, headers),
    sql(query, ...params) {
      const db = open(true)
      try {
        return db.prepare(query).all(...params) as never
      } finally {
        db.close()
      }
    },
    exec(query, ...params) {
      const db = open(false)
      try {
        db.prepare(query).run(...params)
      } finally {
        db.close()
      }
    },
    async restart() {
      await real.stop()
      await real.restart()
    },
    async stop() {
      await real.stop()
      real.cleanup()
    },
  }
}
