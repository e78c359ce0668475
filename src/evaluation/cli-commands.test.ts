// `npm run -s cli -- clients …` for real (a child process on a temporary ARBITER_DATA): the secret is
// printed once as 40 hex characters, only its SHA-256 is stored, list and revoke work by name or id.
import Database from 'better-sqlite3'
import { execa } from 'execa'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openDb } from '../storage/db.ts'
import { findClientBySecret, hashSecret } from '../clients/clients.ts'

const ROOT = join(import.meta.dirname, '..', '..')
let data: string

beforeAll(() => {
  data = mkdtempSync(join(tmpdir(), 'arbiter-clients-'))
})
afterAll(() => rmSync(data, { recursive: true, force: true }))

const cli = (...args: string[]) => execa('npm', ['run', '-s', 'cli', '--', ...args], { cwd: ROOT, env: { ARBITER_DATA: data }, reject: false })
const rows = () => {
  const db = new Database(join(data, 'arbiter.db'), { readonly: true })
  try {
    return db.prepare('select * from clients order by id').all() as Record<string, unknown>[]
  } finally {
    db.close()
  }
}

describe('clients create | list | revoke', { timeout: 60_000 }, () => {
  let first: { client_secret: string; id: number }
  let second: { client_secret: string; id: number; quota: number }

  test('create --name N --quota Q --json prints {"client_secret": <40 hex>} and the client', async () => {
    const r = await cli('clients', 'create', '--name', 'grader', '--quota', '3', '--json')
    expect(r.exitCode).toBe(0)
    first = JSON.parse(r.stdout)
    expect(first.client_secret).toMatch(/^[0-9a-f]{40}$/)
    expect(first).toMatchObject({ name: 'grader', quota: 3, current_count: 0, revoked_at: null })
    second = JSON.parse((await cli('clients', 'create', '--name', 'other')).stdout)
    expect(second.client_secret).toMatch(/^[0-9a-f]{40}$/)
    expect(second.client_secret).not.toBe(first.client_secret)
    expect(second.quota).toBe(0) // evaluation.default_quota: unlimited
  })

  test('only the SHA-256 of a secret is stored, nowhere the secret itself', () => {
    const stored = rows()
    expect(stored.map((r) => r.secret_hash)).toEqual([hashSecret(first.client_secret), hashSecret(second.client_secret)])
    const files = ['arbiter.db', 'arbiter.db-wal'].filter((f) => existsSync(join(data, f))).map((f) => readFileSync(join(data, f)))
    for (const s of [first.client_secret, second.client_secret]) for (const file of files) expect(file.includes(Buffer.from(s))).toBe(false)
    const db = openDb(join(data, 'arbiter.db'))
    try {
      expect(findClientBySecret(db, first.client_secret)?.name).toBe('grader')
    } finally {
      db.$client.close()
    }
  })

  test('list: every client with its quota and count, never a secret', async () => {
    const r = await cli('clients', 'list')
    expect(r.exitCode).toBe(0)
    const list = JSON.parse(r.stdout) as Record<string, unknown>[]
    expect(list.map((c) => [c.name, c.quota, c.current_count])).toEqual([
      ['grader', 3, 0],
      ['other', 0, 0],
    ])
    expect(r.stdout).not.toContain(first.client_secret)
    expect(list.every((c) => !('client_secret' in c))).toBe(true)
  })

  test('revoke by name or id: the secret stops working; revoking again is an error', async () => {
    expect((await cli('clients', 'revoke', 'grader')).exitCode).toBe(0)
    expect((await cli('clients', 'revoke', String(second.id))).exitCode).toBe(0)
    const db = openDb(join(data, 'arbiter.db'))
    try {
      expect(findClientBySecret(db, first.client_secret)).toBeUndefined()
      expect(findClientBySecret(db, second.client_secret)).toBeUndefined()
    } finally {
      db.$client.close()
    }
    const again = await cli('clients', 'revoke', 'grader')
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain('no active client grader')
  })

  test.each([
    [['clients', 'create'], '--name is required'],
    [['clients', 'create', '--name', 'x', '--quota', 'many'], '--quota must be a whole number >= 0'],
    [['clients', 'revoke'], 'usage: clients revoke ID|NAME'],
  ])('%j fails with a clear message', async (args, message) => {
    const r = await cli(...args)
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(message)
    expect(r.stdout).toBe('')
  })
})
