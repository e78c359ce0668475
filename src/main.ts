// Composition root: config → database → languages → pool → dispatcher, outbox, schedule → HTTP server;
// graceful stop on signals.
import { serve } from '@hono/node-server'
import type { Server as HttpServer } from 'node:http'
import { join } from 'node:path'
import { dataDirFromEnv, loadConfig, requireDataDir } from './config.ts'
import { applyLiveConfig } from './config-reload.ts'
import type { Deps } from './deps.ts'
import { createDispatcher } from './evaluation/dispatcher.ts'
import { resumeVerifies } from './evaluation/package-verifies.ts'
import { createProtocols } from './protocols.ts'
import { createApp } from './app.ts'
import { guardConnections } from './http/connection-guard.ts'
import { reportSecret } from './interviews/report.ts'
import { emailSender, smtpConfigured } from './jobs/mailer.ts'
import { callbackSender, createOutbox } from './jobs/outbox.ts'
import { createJailPool } from './jobs/jail-pool.ts'
import { createPool } from './jobs/pool.ts'
import { createMetrics } from './metrics/metrics.ts'
import { storedMetricsToken } from './metrics/token.ts'
import { signedCallbackSender } from './jobs/signature.ts'
import { compileOverridesByCode, isProvisionedCached, loadLanguages, resolveLanguage, type Language } from './languages.ts'
import type { Config } from './config.ts'
import { createLog } from './log.ts'
import { onReload, onStop } from './process-signals.ts'
import { startSchedule } from './schedule.ts'
import { createSimilarityQueue } from './similarity/queue.ts'
import { openDb } from './storage/db.ts'
import { combinePools } from './sandbox-hosts/combined-pool.ts'
import { createRemotePool } from './sandbox-hosts/remote-pool.ts'
import { releasePidFile, runningServer, writePidFile } from './storage/pid-file.ts'
import { checkSocketServes, SOCKET_TAKEN_EXIT, SocketTaken } from './jobs/jail-socket-owner.ts'

async function main() {
  requireDataDir(dataDirFromEnv())
  const config = loadConfig()
  // one server per data directory, and one data directory per jail daemon
  const other = runningServer(config.dataDir)
  if (other && other.pid !== process.pid)
    throw new SocketTaken(`another server (pid ${other.pid}, port ${other.port}) serves the data directory ${config.dataDir}; not starting a second one`)
  if (config.pool.size > 0 && config.pool.jail_socket) checkSocketServes(config.pool.jail_socket, config.dataDir)
  const log = createLog({ svc: 'arbiter' })
  const db = openDb(join(config.dataDir, 'arbiter.db'))
  const languages = loadLanguages()
  // a misspelt code in languages.compile_overrides stops the start here, not in a worker thread
  compileOverridesByCode(languages, config.languages.compile_overrides)
  // with a jail daemon the jobs run in a root process and this one needs no privileges (docs/admin/service.md)
  const now = () => new Date()
  const local = config.pool.size === 0 ? undefined : config.pool.jail_socket ? createJailPool(config) : createPool(config)
  // with queue.redis_url, jobs (all of them when pool.size is 0) go to sandbox hosts through BullMQ
  const remote = config.queue.redis_url ? createRemotePool(config, log) : undefined
  const jobs = remote ? (local ? combinePools(local, remote, (code) => runsHere(config, languages, code)) : remote) : local!
  // the pool the queue sees is timed for /metrics (compile and run durations)
  const metrics = createMetrics({ config, db, pool: jobs, now, ...(remote && { sandboxHosts: remote }) })
  // /metrics is closed from the first start: its token is made now if the config sets none
  if (!config.metrics.open && !config.metrics.token) {
    storedMetricsToken(db, now())
    log.info('GET /metrics needs its bearer token: see `npm run -s cli -- metrics token`')
  }
  const pool = metrics.instrument(jobs)
  const base = { config, db, log, languages, pool, metrics, now, protocols: createProtocols() }
  // one sender per outbox kind; without an SMTP server e-mails wait in the outbox (`cli outbox`)
  const mail = smtpConfigured(config)
  const outbox = createOutbox(
    base,
    {
      callback: callbackSender(config),
      interview_report: signedCallbackSender(config, (row) => reportSecret(base, row)),
      email: mail ? emailSender(config) : undefined,
    },
    { paused: mail ? [] : ['email'], maxAttempts: { email: config.smtp.max_attempts } }
  )
  const dispatcher = createDispatcher({ ...base, outbox })
  // similarity reports: one at a time in a child process, never in the sandbox's pool, stopped while this
  // machine's own jails have work (a report never slows the queue)
  const similarity = createSimilarityQueue({ ...base, outbox, sandboxBusy: () => (local?.busy ?? 0) > 0 })
  const deps: Deps = { ...base, dispatcher, outbox, similarity, ...(remote && { sandboxHosts: remote }) }
  dispatcher.start()
  // package verifies a stop left running resume (their runs are in the queue), those waiting start
  const verifies = resumeVerifies(deps)
  if (verifies) log.info('package verifies resumed', { clients: verifies })
  similarity.start()
  // results are read once what was out has been resumed (a result with no claim waiting is dropped as stale)
  remote?.start()
  outbox.start()
  const schedule = startSchedule(deps)

  const app = createApp(deps)
  const server = serve({ fetch: app.fetch, hostname: config.server.host, port: config.server.port }, (info) => {
    log.info('listening', { port: info.port, public_url: config.server.public_url, data: config.dataDir, uid: process.getuid?.() })
  })
  // connections that send no request closed, and a cap on one address's connections (http/connection-guard.ts)
  guardConnections(server as HttpServer, () => config.server)
  // `cli restore` refuses to replace the data of a running server
  writePidFile(config.dataDir, config.server.port)

  // SIGHUP: re-read config.toml; live keys apply now, the others are logged as needing a restart
  onReload(log, () => {
    const report = applyLiveConfig(config, loadConfig())
    if (report.applied.some((k) => k.startsWith('limits.') || k === 'pool.size')) pool.reconfigure(config)
    log.info('config reloaded', { applied: report.applied, needs_restart: report.needsRestart })
    if (report.needsRestart.length) log.warn('config keys changed that apply only after a restart', { keys: report.needsRestart })
  })
  onStop(log, async () => {
    server.close()
    await schedule.stop()
    await dispatcher.stop()
    await similarity.stop()
    await outbox.stop()
    await pool.close()
    db.$client.close()
    releasePidFile(config.dataDir)
  })
}

/** Whether this machine's own pool can run a code (provisioned here). */
function runsHere(config: Config, languages: Map<string, Language>, code: string): boolean {
  const lang = resolveLanguage(languages, code)
  return !!lang && isProvisionedCached(config.paths.toolchains, lang)
}

main().catch((err: Error) => {
  process.stderr.write(`arbiter: ${err.message}\n`)
  process.exit(err instanceof SocketTaken ? SOCKET_TAKEN_EXIT : 1)
})
