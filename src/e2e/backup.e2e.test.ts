// `cli backup` while the real server takes a stream of submissions, then `cli restore`: refused while the
// server runs, accepted once it is stopped; the restored server answers for what was backed up.
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { execa } from 'execa'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startServer, type RunningServer } from '../testing/harness.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const PATH = '/v4/partner/code-evaluation/submissions/'

let server: RunningServer
let work: string
let secret: string

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'arbiter-backup-'))
  server = await startServer({ configToml: '[pool]\nsize = 1\n' })
  secret = await server.createClient('backup')
}, 60_000)

afterAll(async () => {
  await server?.stop()
  server?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

const cli = (dataDir: string, args: string[]) =>
  execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ARBITER_DATA: dataDir }, reject: false })

test('backup under concurrent writes is consistent; restore is refused while the server runs, then brings the data back', { timeout: 180_000 }, async () => {
  const http = api(server.url)
  const submit = async (i: number) =>
    (await json(await http.post(PATH, JSON.stringify({ lang: 'PYTHON3', source: `print(${i})`, context: `c${i}` }), { 'client-secret': secret, 'content-type': 'application/json' }))).he_id as string
  // a stored file beside the database
  mkdirSync(join(server.dataDir, 'resumes'), { recursive: true })
  writeFileSync(join(server.dataDir, 'resumes', `${'a'.repeat(32)}.pdf`), '%PDF-1.4 test')
  for (let i = 0; i < 20; i++) await submit(i)

  // writers keep going for the whole backup
  let writing = true
  let written = 0
  const writers = Array.from({ length: 4 }, async (_, w) => {
    while (writing) {
      await submit(1000 + w * 10_000 + written++)
    }
  })
  const archive = join(work, 'arbiter.tar.gz')
  const countBefore = server.query<{ n: number }>('select count(*) n from submissions')[0].n
  const backup = await cli(server.dataDir, ['backup', '--to', archive])
  const countAfter = server.query<{ n: number }>('select count(*) n from submissions')[0].n
  writing = false
  await Promise.all(writers)
  expect(backup.exitCode, backup.stderr).toBe(0)
  expect(JSON.parse(backup.stdout)).toMatchObject({ file: archive })
  expect(countAfter).toBeGreaterThan(countBefore) // the writes really overlapped the backup

  // restoring over the running server's data is refused, and changes nothing
  const refused = await cli(server.dataDir, ['restore', '--from', archive])
  expect(refused.exitCode).toBe(1)
  expect(refused.stderr).toMatch(/refusing to restore: a server \(pid \d+/)
  expect(server.query<{ n: number }>('select count(*) n from submissions')[0].n).toBeGreaterThanOrEqual(countAfter)

  // into a fresh directory: a consistent snapshot from within the backup's window
  // (owned by another uid, as the service's data directory is: the restored files become that uid's,
  // config.toml keeps root:<group> 0640)
  const fresh = join(work, 'restored')
  mkdirSync(fresh)
  chownSync(fresh, 61_000, 61_000)
  writeFileSync(join(fresh, 'config.toml'), '# the old one\n', { mode: 0o640 })
  chownSync(join(fresh, 'config.toml'), 0, 61_000)
  const restored = await cli(fresh, ['restore', '--from', archive])
  expect(restored.exitCode, restored.stderr).toBe(0)
  const db = new Database(join(fresh, 'arbiter.db'), { readonly: true })
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
  expect(db.pragma('foreign_key_check')).toEqual([])
  const rows = db.prepare('select id, he_id publicId, source from submissions order by id').all() as { id: number; publicId: string; source: string }[]
  db.close()
  expect(rows.length).toBeGreaterThanOrEqual(countBefore)
  expect(rows.length).toBeLessThanOrEqual(countAfter)
  // a prefix of the live table, row for row (ids are dense: nothing in the middle is missing)
  const live = server.query<{ id: number; publicId: string; source: string }>('select id, he_id publicId, source from submissions order by id limit ?', rows.length)
  expect(rows).toEqual(live)
  expect(readFileSync(join(fresh, 'resumes', `${'a'.repeat(32)}.pdf`), 'utf8')).toBe('%PDF-1.4 test')
  for (const f of ['arbiter.db', 'resumes', `resumes/${'a'.repeat(32)}.pdf`]) expect(statSync(join(fresh, f)).uid, f).toBe(61_000)
  const cfg = statSync(join(fresh, 'config.toml'))
  expect([cfg.uid, cfg.gid, cfg.mode & 0o777]).toEqual([0, 61_000, 0o640])
  expect(readFileSync(join(fresh, 'config.toml'), 'utf8')).toMatch(/host = "127.0.0.1"/) // the archived one
  const aside = JSON.parse(restored.stdout) as { previous: string }
  expect(readFileSync(join(aside.previous, 'config.toml'), 'utf8')).toBe('# the old one\n')

  // over the stopped server's own data: allowed; the old data is kept aside; the server comes back with the snapshot
  await server.stop()
  const over = await cli(server.dataDir, ['restore', '--from', archive])
  expect(over.exitCode, over.stderr).toBe(0)
  const report = JSON.parse(over.stdout) as { previous: string }
  expect(report.previous).toMatch(/before-restore/)
  rmSync(report.previous, { recursive: true, force: true })
  await server.restart()
  expect(server.query<{ n: number }>('select count(*) n from submissions')[0].n).toBe(rows.length)
  const first = await json(await http.get(`${PATH}${rows[0].publicId}/`, { 'client-secret': secret }))
  expect(first.he_id).toBe(rows[0].publicId)
})

test('restore refuses an archive with a link or a path outside the data directory', { timeout: 60_000 }, async () => {
  const evil = join(work, 'evil')
  mkdirSync(evil, { recursive: true })
  writeFileSync(join(evil, 'arbiter-backup.json'), '{}')
  writeFileSync(join(evil, 'arbiter.db'), '')
  await execa('ln', ['-s', '/etc/shadow', join(evil, 'config.toml')])
  await execa('tar', ['-czf', join(work, 'evil.tar.gz'), '-C', evil, '.'])
  const target = join(work, 'target')
  const r = await cli(target, ['restore', '--from', join(work, 'evil.tar.gz')])
  expect(r.exitCode).toBe(1)
  expect(r.stderr).toMatch(/not a plain file or folder/)

  rmSync(join(evil, 'config.toml'))
  await execa('tar', ['-czf', join(work, 'dots.tar.gz'), '-C', evil, '.', '--transform', 's|^\\./arbiter.db$|../escaped.db|', '--show-transformed-names'])
  const dots = await cli(target, ['restore', '--from', join(work, 'dots.tar.gz')])
  expect(dots.exitCode).toBe(1)
  expect(dots.stderr).toMatch(/unsafe path|is missing/)
})
