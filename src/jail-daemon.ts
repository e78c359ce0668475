// The root jail daemon's composition root (`node --import tsx src/jail-daemon.ts`, as root): the
// root-owned config → the local pool → the socket (jobs/jail-daemon.ts). SIGHUP re-reads the config;
// SIGTERM/SIGINT stop it. The HTTP server runs elsewhere, unprivileged, with pool.jail_socket set.
import { loadRootOwnedConfig } from './config.ts'
import { startJailDaemon } from './jobs/jail-daemon.ts'
import { SOCKET_TAKEN_EXIT, SocketTaken } from './jobs/jail-socket-owner.ts'
import { createPool } from './jobs/pool.ts'
import { compileOverridesByCode, loadLanguages } from './languages.ts'
import { createLog } from './log.ts'
import { onReload, onStop } from './process-signals.ts'

async function main() {
  const log = createLog({ svc: 'arbiter-jail' })
  if (process.getuid?.() !== 0) throw new Error('the jail daemon runs as root (nsjail needs it)')
  const config = loadRootOwnedConfig()
  compileOverridesByCode(loadLanguages(), config.languages.compile_overrides)
  if (config.pool.size === 0) {
    // an API host whose jobs all go to sandbox hosts: nothing to run here. It stays up, idle, because
    // systemd restarts a unit that exits; a restart after pool.size changes brings the pool
    log.info('pool.size is 0: every job goes to sandbox hosts (queue.redis_url); the jail daemon idles')
    const timer = setInterval(() => {}, 1 << 30)
    onReload(log, () => log.info('config reload: pool.size 0, nothing to run; restart to apply a new size'))
    onStop(log, () => clearInterval(timer))
    return
  }
  const daemon = await startJailDaemon(config, createPool(config), log)
  onReload(log, () => {
    const next = loadRootOwnedConfig()
    compileOverridesByCode(loadLanguages(), next.languages.compile_overrides)
    daemon.reconfigure(next)
    log.info('config reloaded')
  })
  onStop(log, () => daemon.close())
}

main().catch((err: Error) => {
  process.stderr.write(`arbiter-jail: ${err.message}\n`)
  // another installation's socket: restarting would not help (run-service.sh and the unit stop here)
  process.exit(err instanceof SocketTaken ? SOCKET_TAKEN_EXIT : 1)
})
