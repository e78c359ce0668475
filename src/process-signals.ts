// The signals a long-running process of Arbiter answers (the HTTP server, the jail daemon): SIGHUP
// re-reads the configuration — a reload that fails keeps the running one and says why — and SIGTERM or
// SIGINT stop it once, however many arrive, then exit 0.
import type { Log } from './log.ts'

/** On SIGHUP, `reload()`; its error is logged and the running configuration kept. */
export function onReload(log: Log, reload: () => void): void {
  process.on('SIGHUP', () => {
    try {
      reload()
    } catch (err) {
      log.error('config reload failed; keeping the running config', { err: (err as Error).message })
    }
  })
}

/** On the first SIGTERM or SIGINT, logs it, awaits `stop()` and exits 0; later ones are ignored. */
export function onStop(log: Log, stop: () => Promise<void> | void): void {
  let stopping = false
  const handle = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('stopping', { signal })
    await stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void handle('SIGTERM'))
  process.on('SIGINT', () => void handle('SIGINT'))
}
