// /health's parts: whether jobs can run now. The database and the data directory writable (a probe file
// written and removed), the disk's headroom against server.min_free_disk_mb, the jail daemon answering
// on its socket (or the in-process pool), the sandbox hosts and Redis when configured. Each probe is
// kept a few seconds, so a monitor polling often costs next to nothing; the answer is 503 when jobs
// cannot run. The admin's dashboard shows the same parts.
import { constants, accessSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Deps } from './deps.ts'
import { socketAnswers } from './jobs/jail-socket-owner.ts'
import { lastStorageFault, storageFaultOf } from './storage/faults.ts'

export interface HealthPart {
  ok: boolean
  /** What is wrong (or what it is), for the admin. */
  detail: string
}

export interface HealthReport {
  /** Jobs can be accepted, run and stored. */
  can_run: boolean
  parts: {
    database: HealthPart
    disk: HealthPart & { free_bytes: number; floor_bytes: number }
    jail: HealthPart
    sandbox_hosts?: HealthPart & { hosts: number }
    redis?: HealthPart
  }
  last_storage_fault?: ReturnType<typeof lastStorageFault>
}

const PROBE_MS = 2000

export type HealthDeps = Pick<Deps, 'config' | 'db' | 'pool' | 'sandboxHosts'>

export function createHealth(deps: HealthDeps): () => Promise<HealthReport> {
  const { config } = deps
  let last: { at: number; report: Promise<HealthReport> } | undefined

  const database = (): HealthPart => {
    const probe = join(config.dataDir, '.health-probe')
    try {
      // a write that needs a block: a full, read-only or foreign-owned data directory fails it
      writeFileSync(probe, Buffer.alloc(4096))
      rmSync(probe, { force: true })
      accessSync(join(config.dataDir, 'arbiter.db'), constants.R_OK | constants.W_OK)
      return { ok: true, detail: 'writable' }
    } catch (err) {
      const fault = storageFaultOf(err)
      const e = err as NodeJS.ErrnoException
      return { ok: false, detail: `cannot write to ${e.path ?? config.dataDir}: ${fault?.cause ?? 'error'} (${e.code ?? e.message})` }
    }
  }

  const disk = () => {
    const floor = config.server.min_free_disk_mb * 1024 * 1024
    try {
      const fs = statfsSync(config.dataDir)
      const free = fs.bavail * fs.bsize
      const ok = free >= floor
      return { ok, free_bytes: free, floor_bytes: floor, detail: ok ? 'above the floor' : `${Math.floor(free / 1048576)} MB free, under the floor of ${config.server.min_free_disk_mb} MB (server.min_free_disk_mb)` }
    } catch (err) {
      return { ok: false, free_bytes: 0, floor_bytes: floor, detail: `cannot read the file system of ${config.dataDir}: ${(err as Error).message}` }
    }
  }

  const jail = async (): Promise<HealthPart> => {
    if (config.pool.size === 0) return { ok: false, detail: 'no local pool (pool.size 0): jobs go to sandbox hosts' }
    if (!config.pool.jail_socket) return { ok: true, detail: 'in-process pool' }
    return (await socketAnswers(config.pool.jail_socket))
      ? { ok: true, detail: `the jail daemon answers at ${config.pool.jail_socket}` }
      : { ok: false, detail: `no jail daemon answers at ${config.pool.jail_socket}` }
  }

  const measure = async (): Promise<HealthReport> => {
    const parts: HealthReport['parts'] = { database: database(), disk: disk(), jail: await jail() }
    let remote = false
    if (deps.sandboxHosts) {
      const s = deps.sandboxHosts.status()
      parts.redis = s.redis === 'ok' ? { ok: true, detail: `reachable at ${s.url}` } : { ok: false, detail: `unreachable at ${s.url}` }
      parts.sandbox_hosts = { ok: s.hosts.length > 0, hosts: s.hosts.length, detail: s.hosts.length ? `${s.hosts.length} live, ${s.slots} slots` : 'no live sandbox host' }
      remote = parts.redis.ok && parts.sandbox_hosts.ok
    }
    const can_run = parts.database.ok && parts.disk.ok && (parts.jail.ok || remote)
    const fault = lastStorageFault()
    return { can_run, parts, ...(fault && { last_storage_fault: fault }) }
  }

  return () => {
    const now = Date.now()
    if (!last || now - last.at > PROBE_MS) last = { at: now, report: measure() }
    return last.report
  }
}
