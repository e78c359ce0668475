// The dashboard's health table, through the signed-in page: what it shows when the database, the disk
// and the jail daemon are healthy, and when each fails in turn — a probe file that lands on /dev/full
// (a real ENOSPC), a free-space floor above what the file system has, nothing answering on the jail
// socket — and the last storage fault under it.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createApp } from '../app.ts'
import { silentLog } from '../log.ts'
import { noteStorageFault } from '../storage/faults.ts'
import { createTestDeps, testConfig } from '../testing/evaluation.ts'
import { createAdmin } from './admins.ts'
import { ADMIN_COOKIE } from './session.ts'

let dataDir: string
let socket: string
let daemon: Server | undefined

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'arbiter-health-table-'))
  writeFileSync(join(dataDir, 'arbiter.db'), '')
  socket = join(dataDir, 'jail.sock')
  // a listener stands in for the jail daemon: /health only asks whether something accepts on the socket
  daemon = createServer((c) => c.destroy())
  await new Promise<void>((r) => daemon!.listen(socket, r))
})
afterEach(async () => {
  if (daemon?.listening) await new Promise((r) => daemon!.close(r))
  rmSync(dataDir, { recursive: true, force: true })
})

interface Row {
  part: string
  state: string
  detail: string
}

/** The dashboard's status line and health rows, from a fresh app (each probe is kept 2 s). */
async function healthTable(minFreeMb = 1): Promise<{ status: string; rows: Record<string, Omit<Row, 'part'>>; lastFault?: string }> {
  const config = { ...testConfig({ server: { min_free_disk_mb: minFreeMb }, pool: { jail_socket: socket } }), dataDir }
  const deps = createTestDeps({ config, start: false })
  try {
    const app = createApp(deps)
    const { token } = createAdmin(deps.db, deps.now(), 'ada')
    const login = await app.request('/admin/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() })
    const cookie = new RegExp(`${ADMIN_COOKIE}=([^;]*)`).exec(login.headers.get('set-cookie') ?? '')![1]
    const page = await (await app.request('/admin', { headers: { cookie: `${ADMIN_COOKIE}=${cookie}` } })).text()
    const table = /<table id="health">([\s\S]*?)<\/table>/.exec(page)![1]
    const rows = Object.fromEntries(
      [...table.matchAll(/<tr><td>([^<]*)<\/td><td class="(ok|bad)">([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)].map(([, part, cls, state, detail]) => [part, { state: `${cls}:${state}`, detail }])
    )
    const status = /<p id="health-status" class="[^"]*">([^<]*)<\/p>/.exec(page)![1]
    const lastFault = /<p class="muted" id="last-storage-fault">([^<]*)<\/p>/.exec(page)?.[1]
    return { status, rows, ...(lastFault !== undefined && { lastFault }) }
  } finally {
    await deps.stop()
  }
}

describe('the dashboard health table', () => {
  it('healthy: every part ok, jobs can run', async () => {
    const t = await healthTable()
    expect(t.status).toBe('Jobs can run.')
    expect(t.rows).toEqual({
      database: { state: 'ok:ok', detail: 'writable' },
      disk: { state: 'ok:ok', detail: 'above the floor' },
      jail: { state: 'ok:ok', detail: `the jail daemon answers at ${socket}` },
    })
  })

  it('the data directory cannot be written (a full disk): the database row fails and names the directory and the cause', async () => {
    // the probe's write lands on /dev/full: the kernel's own ENOSPC
    symlinkSync('/dev/full', join(dataDir, '.health-probe'))
    const t = await healthTable()
    expect(t.status).toBe('Jobs cannot run now (/health answers 503).')
    expect(t.rows.database).toEqual({ state: 'bad:failing', detail: `cannot write to ${dataDir}: disk_full (ENOSPC)` })
    expect(t.rows.disk.state).toBe('ok:ok')
    expect(t.rows.jail.state).toBe('ok:ok')
  })

  it('the disk under its floor: its row fails with the free space and the floor', async () => {
    const t = await healthTable(100_000_000)
    expect(t.status).toBe('Jobs cannot run now (/health answers 503).')
    expect(t.rows.disk.state).toBe('bad:failing')
    expect(t.rows.disk.detail).toMatch(/^\d+ MB free, under the floor of 100000000 MB \(server\.min_free_disk_mb\)$/)
    expect(t.rows.database.state).toBe('ok:ok')
    expect(t.rows.jail.state).toBe('ok:ok')
  })

  it('the jail daemon down: its row fails and names the socket', async () => {
    await new Promise((r) => daemon!.close(r))
    const t = await healthTable()
    expect(t.status).toBe('Jobs cannot run now (/health answers 503).')
    expect(t.rows.jail).toEqual({ state: 'bad:failing', detail: `no jail daemon answers at ${socket}` })
    expect(t.rows.database.state).toBe('ok:ok')
    expect(t.rows.disk.state).toBe('ok:ok')
  })

  it('a storage fault since the start is named under the table, with its file', async () => {
    noteStorageFault({ cause: 'disk_full', code: 'SQLITE_FULL', path: join(dataDir, 'arbiter.db') }, silentLog())
    const t = await healthTable()
    expect(t.lastFault).toMatch(new RegExp(`^Last storage fault: disk_full \\(SQLITE_FULL on ${join(dataDir, 'arbiter.db').replaceAll('/', '\\/').replaceAll('.', '\\.')}\\) at \\d{4}-\\d\\d-\\d\\dT`))
  })
})
