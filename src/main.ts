// Composition root: config → database → languages → pool → HTTP server; graceful stop on signals.
import { serve } from '@hono/node-server'
import { join } from 'node:path'
import { loadConfig } from './config.ts'
import type { Deps } from './deps.ts'
import { createApp } from './http/app.ts'
import { createPool } from './jobs/pool.ts'
import { loadLanguages } from './languages.ts'
import { createLog } from './log.ts'
import { openDb } from './storage/db.ts'

async function main() {
  const config = loadConfig()
  const log = createLog({ svc: 'arbiter' })
  const db = openDb(join(config.dataDir, 'arbiter.db'))
  const languages = loadLanguages()
  const pool = createPool(config)
  const deps: Deps = { config, db, log, languages, pool, now: () => new Date() }

  const app = createApp(deps)
  const server = serve({ fetch: app.fetch, hostname: config.server.host, port: config.server.port }, (info) => {
    log.info('listening', { port: info.port, public_url: config.server.public_url, data: config.dataDir })
  })

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('stopping', { signal })
    server.close()
    await pool.close()
    db.$client.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

main().catch((err: Error) => {
  process.stderr.write(`arbiter: ${err.message}\n`)
  process.exit(1)
})
