// `cli backup` / `cli restore`: one .tar.gz of the data directory. The database is copied with SQLite's
// online backup (better-sqlite3 `backup()`), a consistent snapshot taken while the server keeps writing;
// the stored files (config.toml, resumes/, …) are added after it, so every file the snapshot names is
// there. Restore refuses to touch the data of a running server, checks the archive before extracting
// (plain files and folders only, no absolute or `..` paths) and keeps the replaced data aside.
import { chmodSync, copyFileSync, existsSync, lchownSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { execa } from 'execa'
import { runningServer } from './pid-file.ts'

const DB = 'arbiter.db'
const MANIFEST = 'arbiter-backup.json'
/** A waiting job's files (storage/payloads.ts): taken by the backup itself, around the snapshot. */
const PAYLOADS = 'payloads'
/** Never archived: the live database (copied by the backup API instead), its side files, our pid file, temp files. */
const EXCLUDE = [`./${DB}`, `./${DB}-wal`, `./${DB}-shm`, `./${DB}-journal`, './arbiter.pid', '.tmp-*', `./${MANIFEST}`, `./${PAYLOADS}`]

export interface BackupReport {
  file: string
  bytes: number
  db_bytes: number
  /** tar saw a file change or vanish while it read it (a resume written or swept meanwhile). */
  files_changed_meanwhile: boolean
}

/**
 * A root-run CLI must not leave root-owned files in a data directory that belongs to the server's user
 * (SQLite's -wal/-shm especially: the server could no longer open the database).
 */
export function repairOwnership(dataDir: string): void {
  if (process.getuid?.() !== 0 || !existsSync(dataDir)) return
  const { uid, gid } = statSync(dataDir)
  if (uid === 0) return
  // the whole tree: a folder the CLI made (problems/blobs/<xx>/, a graded run's files) is written into
  // by the server later, which could not if root kept it
  const walk = (dir: string, top: boolean) => {
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return // removed meanwhile
    }
    for (const e of entries) {
      if (top && e.name === 'config.toml') continue // root:<group> on purpose (the jail daemon reads it)
      const p = join(dir, e.name)
      try {
        // lchown: the server's user could swap the file for a link to a file of root's meanwhile
        if (lstatSync(p).uid === 0) lchownSync(p, uid, gid)
      } catch {
        continue // removed meanwhile
      }
      // never through a link (isDirectory of a Dirent does not follow it)
      if (e.isDirectory()) walk(p, false)
    }
  }
  walk(dataDir, true)
}

export async function backupDataDir(dataDir: string, to: string): Promise<BackupReport> {
  const target = resolve(to)
  if (!existsSync(join(dataDir, DB))) throw new Error(`no database at ${join(dataDir, DB)}`)
  const staging = mkdtempSync(join(dirname(target), '.arbiter-backup-'))
  try {
    // a job's files leave the data directory when it completes: taken before the snapshot, every job
    // the snapshot could name as waiting keeps them, though it completes while tar reads
    linkPayloads(dataDir, staging, () => true, false)
    const src = new Database(join(dataDir, DB), { fileMustExist: true })
    try {
      // after the first step, copy everything left in one step: one read transaction, one snapshot
      await src.backup(join(staging, DB), { progress: () => 1 << 30 })
    } finally {
      src.close()
      repairOwnership(dataDir)
    }
    // then the snapshot's waiting jobs' again where they are still there (one being written at the
    // first pass is whole now), and none of a job the snapshot has as done
    const waiting = snapshotWaiting(join(staging, DB))
    linkPayloads(dataDir, staging, (publicId) => waiting.has(publicId), true)
    for (const publicId of existsSync(join(staging, PAYLOADS)) ? readdirSync(join(staging, PAYLOADS)) : []) {
      if (!waiting.has(publicId)) rmSync(join(staging, PAYLOADS, publicId), { recursive: true, force: true })
    }
    writeFileSync(join(staging, MANIFEST), JSON.stringify({ format: 1, created_at: new Date().toISOString(), data_dir: dataDir }, null, 2) + '\n')
    const partial = `${target}.partial`
    const tar = await execa(
      'tar',
      ['-czf', partial, '--warning=no-file-changed', '--warning=no-file-removed', ...EXCLUDE.map((e) => `--exclude=${e}`), '-C', staging, MANIFEST, DB, ...(existsSync(join(staging, PAYLOADS)) ? [PAYLOADS] : []), '-C', dataDir, '.'],
      { reject: false }
    )
    // GNU tar: 1 = some file changed while being read (still archived as read), 2 = failure
    if (tar.exitCode !== 0 && tar.exitCode !== 1) {
      rmSync(partial, { force: true })
      throw new Error(`tar failed: ${tar.stderr}`)
    }
    renameSync(partial, target)
    return { file: target, bytes: statSync(target).size, db_bytes: statSync(join(staging, DB)).size, files_changed_meanwhile: tar.exitCode === 1 }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/** The public ids of the submissions a database copy has as not completed (their files must come along). */
function snapshotWaiting(dbFile: string): Set<string> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true })
  try {
    const rows = db.prepare(`select he_id as id from submissions where state != 'completed'`).all() as { id: string }[]
    return new Set(rows.map((r) => r.id))
  } finally {
    db.close()
  }
}

/**
 * Links (or, across file systems, copies) the job file folders `wanted` names from the data directory
 * into staging/payloads/ (`again`: replacing what an earlier pass took), leaving alone folders that go
 * while it reads (their job completed: an earlier pass's copy, if any, stays).
 */
function linkPayloads(dataDir: string, staging: string, wanted: (publicId: string) => boolean, again: boolean): void {
  let folders: string[]
  try {
    folders = readdirSync(join(dataDir, PAYLOADS))
  } catch {
    return // no job ever had files
  }
  for (const publicId of folders) {
    if (!wanted(publicId)) continue
    const from = join(dataDir, PAYLOADS, publicId)
    const to = join(staging, PAYLOADS, publicId)
    const taking = `${to}.taking`
    try {
      rmSync(taking, { recursive: true, force: true })
      mkdirSync(taking, { recursive: true, mode: 0o700 })
      for (const name of readdirSync(from)) {
        try {
          linkSync(join(from, name), join(taking, name))
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err
          copyFileSync(join(from, name), join(taking, name))
        }
      }
    } catch (err) {
      rmSync(taking, { recursive: true, force: true })
      // completed (and removed) meanwhile
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw err
    }
    if (existsSync(to)) {
      if (!again) {
        rmSync(taking, { recursive: true, force: true })
        continue
      }
      rmSync(to, { recursive: true, force: true })
    }
    renameSync(taking, to)
  }
}

/** Entries of the archive; refuses anything but plain files and folders under a relative path. */
async function checkArchive(file: string): Promise<string[]> {
  const listing = await execa('tar', ['-tvzf', file, '--numeric-owner'])
  const names: string[] = []
  for (const line of listing.stdout.split('\n').filter(Boolean)) {
    const type = line[0]
    // `tar -tv`: type, mode, owner/group, size, date, time, name
    const name = line.split(/\s+/).slice(5).join(' ')
    if (type !== '-' && type !== 'd') throw new Error(`refusing the archive: ${name} is not a plain file or folder`)
    const parts = name.replace(/^\.\//, '').split('/')
    if (name.startsWith('/') || parts.includes('..')) throw new Error(`refusing the archive: unsafe path ${name}`)
    names.push(name.replace(/^\.\//, '').replace(/\/$/, ''))
  }
  for (const must of [MANIFEST, DB]) if (!names.includes(must)) throw new Error(`not an Arbiter backup: ${must} is missing`)
  return names
}

export interface RestoreReport {
  restored: string
  /** Where the replaced data went (delete it once the restored server runs well). */
  previous: string | null
  entries: number
}

export async function restoreDataDir(dataDir: string, from: string): Promise<RestoreReport> {
  const live = runningServer(dataDir)
  if (live) throw new Error(`refusing to restore: a server (pid ${live.pid}, port ${live.port}) is running on ${dataDir}; stop it first (systemctl stop arbiter)`)
  const entries = await checkArchive(resolve(from))
  mkdirSync(dataDir, { recursive: true })
  const parent = dirname(resolve(dataDir))
  const staging = mkdtempSync(join(parent, `.${basename(dataDir)}-restore-`))
  try {
    await execa('tar', ['-xzf', resolve(from), '-C', staging, '--no-same-owner', '--no-same-permissions'])
    // the copy must be a healthy database before anything is replaced
    const db = new Database(join(staging, DB), { fileMustExist: true })
    try {
      const check = db.pragma('integrity_check', { simple: true })
      if (check !== 'ok') throw new Error(`the archived database fails its integrity check: ${String(check)}`)
    } finally {
      db.close()
    }
    rmSync(join(staging, MANIFEST))

    // ownership is settled in the staging folder, which only root can enter: inside the data directory
    // the server's user could swap a path for a link while root changes owners
    const owner = statSync(dataDir)
    const oldConfig = existsSync(join(dataDir, 'config.toml')) ? lstatSync(join(dataDir, 'config.toml')) : undefined
    if (process.getuid?.() === 0) {
      const chownTree = (p: string) => {
        lchownSync(p, owner.uid, owner.gid)
        if (lstatSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(join(p, n))
      }
      for (const name of readdirSync(staging)) if (name !== 'config.toml') chownTree(join(staging, name))
      const cfg = join(staging, 'config.toml')
      if (existsSync(cfg)) {
        // config.toml keeps the owner and mode it had here (root:<group> 0640 under the service)
        lchownSync(cfg, oldConfig?.uid ?? 0, oldConfig?.gid ?? owner.gid)
        chmodSync(cfg, (oldConfig?.mode ?? 0o640) & 0o777)
      }
    }

    // the replaced data goes aside entry by entry (the data directory itself may be a mount point)
    let previous: string | null = null
    const current = readdirSync(dataDir)
    if (current.length) {
      previous = join(parent, `${basename(dataDir)}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`)
      mkdirSync(previous, { mode: 0o700 })
      for (const name of current) renameSync(join(dataDir, name), join(previous, name))
    }
    for (const name of readdirSync(staging)) renameSync(join(staging, name), join(dataDir, name))
    return { restored: dataDir, previous, entries: entries.length }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}
