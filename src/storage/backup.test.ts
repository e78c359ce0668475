// A backup taken while jobs complete: every job the archived database has as waiting comes back with
// its files (storage/payloads.ts removes a job's folder when it completes, which tar could find gone).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, expect, test } from 'vitest'
import { backupDataDir } from './backup.ts'

let work: string
afterEach(() => rmSync(work, { recursive: true, force: true }))

test('jobs completing while the backup runs: each waiting job in the archive has its files, done ones none', { timeout: 60_000 }, async () => {
  work = mkdtempSync(join(tmpdir(), 'arbiter-backup-unit-'))
  const data = join(work, 'data')
  mkdirSync(join(data, 'payloads'), { recursive: true })
  const db = new Database(join(data, 'arbiter.db'))
  db.pragma('journal_mode = WAL')
  db.exec(`create table submissions (he_id text primary key, state text not null)`)
  const ids = Array.from({ length: 400 }, (_, i) => `job-${String(i).padStart(4, '0')}`)
  for (const id of ids) {
    db.prepare('insert into submissions values (?, ?)').run(id, 'queued')
    mkdirSync(join(data, 'payloads', id))
    writeFileSync(join(data, 'payloads', id, '0'), `files of ${id}`)
  }
  // a completion, as the dispatcher does it: the row first, then its folder
  const complete = (id: string) => {
    db.prepare(`update submissions set state = 'completed' where he_id = ?`).run(id)
    rmSync(join(data, 'payloads', id), { recursive: true, force: true })
  }

  let finished = false
  const backup = backupDataDir(data, join(work, 'backup.tar.gz')).finally(() => (finished = true))
  const order = [...ids].sort(() => Math.random() - 0.5)
  while (!finished && order.length) {
    complete(order.pop()!)
    await new Promise((r) => setTimeout(r, 0))
  }
  await backup
  db.close()
  // some completed before the snapshot, some after: both kinds are what the test is about
  expect(order.length).toBeGreaterThan(0)

  const out = join(work, 'out')
  mkdirSync(out)
  execFileSync('tar', ['-xzf', join(work, 'backup.tar.gz'), '-C', out])
  const archived = new Database(join(out, 'arbiter.db'), { readonly: true })
  const rows = archived.prepare('select he_id as id, state from submissions').all() as { id: string; state: string }[]
  archived.close()
  const waiting = rows.filter((r) => r.state !== 'completed')
  const done = rows.filter((r) => r.state === 'completed')
  expect(waiting.length).toBeGreaterThan(0)
  expect(done.length).toBeGreaterThan(0)
  for (const r of waiting) expect(readFileSync(join(out, 'payloads', r.id, '0'), 'utf8'), r.id).toBe(`files of ${r.id}`)
  for (const r of done) expect(existsSync(join(out, 'payloads', r.id)), r.id).toBe(false)
  // nothing half-taken is left in the archive
  expect(execFileSync('tar', ['-tzf', join(work, 'backup.tar.gz')], { encoding: 'utf8' })).not.toContain('.taking')
})
