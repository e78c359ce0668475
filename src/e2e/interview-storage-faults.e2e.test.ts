// Interviews and the collaborative room on a full data disk, through the real server: the data
// directory is a small tmpfs filled to the last byte. Scheduling or changing an interview answers the
// envelope's 503 (INTERNALERROR, the cause in emessage, Retry-After); the room's writes (language and
// input, feedback, End) answer 503 StorageUnavailable naming the cause. Nothing is half-written (the
// interview tables, the credits, the room's state and the outbox are as they were), and once space
// returns the same calls succeed, each once (one credit spent).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startServer, waitUntil, type RunningServer } from '../testing/harness.ts'
import { callJson } from '../testing/interviews.ts'
import { fillDisk as fillDiskAt, freeDisk as freeDiskAt } from '../testing/fill-disk.ts'

const P = '/partner/service/interviews'
let base: string
let dataDir: string
let server: RunningServer

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'arbiter-full-interviews-'))
  dataDir = join(base, 'data')
  mkdirSync(dataDir)
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', dataDir])
  server = await startServer({ dataDir, configToml: 'min_free_disk_mb = 4\n[pool]\nsize = 1\n' })
}, 120_000)

afterAll(async () => {
  await server?.stop()
  try {
    execFileSync('umount', [dataDir])
  } catch {
    // not mounted
  }
  rmSync(base, { recursive: true, force: true })
})

const filler = () => join(dataDir, 'filler')
const fillDisk = () => fillDiskAt(filler())
const freeDisk = () => freeDiskAt(filler())

const call = (method: string, path: string, body?: unknown) => callJson((p, init) => fetch(server.url + p, init), method, path, body)

/** Opens a participant's link: a room action poster with its session cookie and CSRF token. */
async function enter(link: string) {
  const res = await fetch(link, { redirect: 'manual' })
  const cookie = /^arbiter_room=([^;]+)/.exec(res.headers.get('set-cookie')!)![1]
  const room = new URL(res.headers.get('location')!, server.url).pathname
  const page = await (await fetch(server.url + room, { headers: { cookie: `arbiter_room=${cookie}` } })).text()
  const csrf = JSON.parse(/<script type="application\/json" id="boot">(.*?)<\/script>/.exec(page)![1]).csrf as string
  return async (action: string, body?: unknown) => {
    const r = await fetch(`${server.url}${room}/${action}`, {
      method: 'POST',
      headers: { cookie: `arbiter_room=${cookie}`, 'content-type': 'application/json', 'x-csrf-token': csrf },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    const text = await r.text()
    return { status: r.status, text, json: JSON.parse(text), retryAfter: r.headers.get('retry-after') }
  }
}

/** Everything an interview, its room and its mails write. */
const snapshot = () =>
  JSON.stringify(
    ['companies', 'interviews', 'interview_participants', 'interview_feedback', 'room_states', 'outbox'].map((t) => server.query(`select * from ${t} order by rowid`))
  )

test('a full disk: scheduling answers 503 INTERNALERROR, room writes 503 StorageUnavailable, both naming the cause; nothing half-written; all succeed once space returns', { timeout: 240_000 }, async () => {
  const company = (await server.cli(['companies', 'create', '--name', 'Acme', '--credits', '5', '--json'])) as { id: number }
  const admin = (await server.cli(['users', 'create', '--company', String(company.id), '--email', 'boss@acme.test', '--super-admin', '--json'])) as Record<string, string>
  const creds = { client_id: admin.client_id, client_secret: admin.client_secret }
  const body = (title: string, startMs: number) => ({
    ...creds,
    title,
    start_datetime: new Date(startMs).toISOString(),
    candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com' },
    interviewers: [{ full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test' }],
    eval_params: ['Problem solving'],
  })
  // an interview under way, its room open for both (the sessions are stored before the disk fills)
  const live = await call('POST', `${P}/`, body('Live', Date.now() - 60_000))
  expect(live.status).toBe(201)
  const id = live.json.interview_id as string
  const ivan = await enter(live.json.interviewer_interview_links['ivan@acme.test'])
  const cara = await enter(live.json.candidate_interview_link)
  expect((await cara('code', { code: '', language: 'PYTHON3', input: 'before' })).status).toBe(200)
  // and one for tomorrow, to be changed
  const upcoming = await call('POST', `${P}/`, body('Upcoming', Date.now() + 86_400_000))
  expect(upcoming.status).toBe(201)
  const later = upcoming.json.interview_id as string
  const credits = () => server.query<{ credits: number }>('select credits from companies where id = ?', company.id)[0].credits
  expect(credits()).toBe(3)

  // A write that still fits in room the WAL already holds succeeds on a full disk (whole, as any other);
  // a refused write leaves no such room. So the WAL is emptied first (a TRUNCATE checkpoint, as SQLite
  // may do at any time): every write then needs a block the disk no longer has.
  const db = new Database(join(dataDir, 'arbiter.db'))
  try {
    expect(db.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }])
  } finally {
    db.close()
  }
  fillDisk()
  const before = snapshot()
  const disk = /data disk is full \((SQLITE_FULL|ENOSPC)\); nothing was stored: try again later/

  // the interview API: its envelope, INTERNALERROR with the cause, and when to try again
  const scheduled = await call('POST', `${P}/`, body('Tomorrow', Date.now() + 86_400_000))
  const changed = await call('PUT', `${P}/${later}/`, body('Renamed', Date.now() + 2 * 86_400_000))
  for (const [what, r] of Object.entries({ scheduled, changed })) {
    expect(r.status, `${what}: ${r.text}`).toBe(503)
    expect(r.json, what).toMatchObject({ mcode: 'FAILED', message: 'Request failed', ecode: ['INTERNALERROR'] })
    expect(r.json.emessage[0], what).toMatch(disk)
    expect(r.headers.get('retry-after'), what).toBe('30')
  }
  // the room: every write answers StorageUnavailable naming the cause
  const room = {
    code: await cara('code', { code: '', language: 'C', input: 'during' }),
    feedback: await ivan('feedback', { result: 'YES', ratings: { CODE_QUALITY: { rating: 4, comment: 'tidy' } } }),
    end: await ivan('end'),
  }
  for (const [action, r] of Object.entries(room)) {
    expect(r.status, `${action}: ${r.text}`).toBe(503)
    expect(r.json.error, action).toBe('StorageUnavailable')
    expect(r.json.message, action).toMatch(disk)
    expect(r.retryAfter, action).toBe('30')
  }
  // nothing half-written: no interview, credit, participant, feedback, state or mail changed
  expect(snapshot()).toBe(before)
  expect(server.output()).toMatch(/"storage fault".*"path":"\/partner\/service\/interviews"/)
  expect(server.output()).toMatch(new RegExp(`"storage fault".*"path":"/interviews/room/${id}/end"`))

  // space returns: the same calls succeed, once each
  freeDisk()
  await waitUntil(async () => (await fetch(`${server.url}/health`)).status === 200, 10_000, '/health 200 again')
  const again = await call('POST', `${P}/`, body('Tomorrow', Date.now() + 86_400_000))
  expect(again.status, again.text).toBe(201)
  expect(credits()).toBe(2)
  const renamed = await call('PUT', `${P}/${later}/`, body('Renamed', Date.now() + 2 * 86_400_000))
  expect(renamed.status, renamed.text).toBe(200)
  expect(server.query('select title from interviews where id = ?', later)).toEqual([{ title: 'Renamed' }])
  expect((await cara('code', { code: '', language: 'C', input: 'after' })).status).toBe(200)
  expect((await ivan('feedback', { result: 'YES', ratings: { CODE_QUALITY: { rating: 4, comment: 'tidy' } } })).status).toBe(200)
  expect((await ivan('end')).status).toBe(200)
  expect(server.query('select ended_at is not null ended from interviews where id = ?', id)).toEqual([{ ended: 1 }])
  expect(server.query('select language, input from room_states where interview_id = ?', id)).toEqual([{ language: 'C', input: 'after' }])
  expect(server.query<{ n: number }>('select count(*) n from interview_feedback where interview_id = ?', id)[0].n).toBe(1)
})
