// The jail daemon as a privilege boundary: whatever connects to its socket cannot grow its memory
// without bound or keep the real server's jobs out (idle connections, unfinished huge lines).
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../config.ts'
import { silentLog } from '../log.ts'
import { createFakePool } from '../testing/fake-pool.ts'
import { startJailDaemon, type RequestLimits } from './jail-daemon.ts'
import { createJailPool } from './jail-pool.ts'

const base = mkdtempSync(join(tmpdir(), 'arbiter-daemon-'))
const socketPath = join(base, 'run', 'jail.sock')
const config = parseConfig({ pool: { size: 2, jail_socket: socketPath, jail_group: '0' } }, {}, join(base, 'data'))
const LIMITS: RequestLimits = { lineBytes: 4 << 20, bufferBytes: 8 << 20, timeoutMs: 2000, waiting: 24 }
const sockets: Socket[] = []
afterAll(() => {
  for (const s of sockets) s.destroy()
  rmSync(base, { recursive: true, force: true })
})

const open = () => {
  const s = connect(socketPath)
  s.on('error', () => {})
  s.resume() // read, so that the daemon's close is seen
  sockets.push(s)
  return s
}
const closed = (s: Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())))

describe('the jail daemon under junk connections', () => {
  it('24 idle connections and 8 endless lines: the real job still completes, buffered bytes stay under the budget, idle ones time out', { timeout: 60_000 }, async () => {
    const daemon = await startJailDaemon(config, createFakePool(), silentLog(), () => LIMITS)
    try {
      const idle = Array.from({ length: 24 }, open)
      await new Promise((r) => setTimeout(r, 100))
      // 8 connections that send megabytes without ever ending their line
      const chunk = Buffer.alloc(256 << 10, 'x'.charCodeAt(0))
      let most = 0
      const junk = Array.from({ length: 8 }, () => {
        const s = open()
        let sent = 0
        const pump = () => {
          while (!s.destroyed && sent < 64 << 20) {
            sent += chunk.length
            most = Math.max(most, daemon.bufferedBytes)
            if (!s.write(chunk)) return void s.once('drain', pump)
          }
        }
        s.on('connect', pump)
        return s
      })
      const sampler = setInterval(() => (most = Math.max(most, daemon.bufferedBytes)), 5)
      await new Promise((r) => setTimeout(r, 300))

      // the real server's job, while all of that sits there
      const started = Date.now()
      const result = await createJailPool(config).run({ language: 'C', source: 'x', input: 'real job\n', timeLimitSec: 1, memoryLimitKb: 65536 })
      expect(result.run?.stdout).toBe('real job\n')
      expect(Date.now() - started).toBeLessThan(5000)

      // the endless lines were cut off, and never held more than the budget together
      await Promise.all(junk.map(closed))
      clearInterval(sampler)
      expect(most).toBeLessThanOrEqual(LIMITS.bufferBytes)
      expect(daemon.bufferedBytes).toBe(0)
      // idle connections are closed: displaced by newer ones, or at the request timeout
      await Promise.all(idle.map(closed))
    } finally {
      await daemon.close()
    }
  })

  it('a request line over the cap is refused at the cap, not buffered whole', { timeout: 30_000 }, async () => {
    const daemon = await startJailDaemon(config, createFakePool(), silentLog(), () => LIMITS)
    try {
      const s = open()
      let reply = ''
      s.on('data', (d) => (reply += d))
      let most = 0
      await new Promise<void>((r) => s.on('connect', r))
      for (let i = 0; i < 40 && !s.destroyed; i++) {
        s.write(Buffer.alloc(256 << 10, 'y'.charCodeAt(0)))
        most = Math.max(most, daemon.bufferedBytes)
        await new Promise((r) => setImmediate(r))
      }
      await closed(s)
      expect(most).toBeLessThanOrEqual(LIMITS.lineBytes)
      expect(reply).toMatch(/request too large/)
    } finally {
      await daemon.close()
    }
  })

  it('a request that does not arrive in time is refused and its connection closed', { timeout: 30_000 }, async () => {
    const daemon = await startJailDaemon(config, createFakePool(), silentLog(), () => ({ ...LIMITS, timeoutMs: 300 }))
    try {
      const s = open()
      let reply = ''
      s.on('data', (d) => (reply += d))
      s.write('{"job":')
      const t = Date.now()
      await closed(s)
      expect(Date.now() - t).toBeLessThan(5000)
      expect(reply).toMatch(/no whole request within 300 ms/)
    } finally {
      await daemon.close()
    }
  })
})
