// Interview e-mails end to end: the real server sends through a real SMTP server on loopback (smtp-server).
// Invites on create and update, cancellations on delete, each to exactly the right people with their own
// link and an .ics; the inform flags; an SMTP outage delays mail without losing it; with no SMTP server
// configured the mail waits in the outbox, readable through the CLI.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { waitUntil } from '../testing/harness.ts'
import { startServer, type Server } from '../testing/interview-harness.ts'
import { decodedOf, icsOf, linksIn, startSmtpSink, textOf, type Mail, type SmtpSink } from '../testing/smtp-sink.ts'

const P = '/partner/service/interviews'
const DAY = 86_400_000

type Creds = { client_id: string; client_secret: string }

let s: Server
let sink: SmtpSink
let admin: Creds

async function account(server: Server): Promise<Creds> {
  const company = await server.cli('companies', 'create', '--name', 'Acme', '--credits', '20', '--json')
  return server.cli('users', 'create', '--company', String(company.id), '--email', 'boss@acme.test', '--super-admin', '--json')
}

const interview = (creds: Creds, over: Record<string, unknown> = {}) => ({
  ...creds,
  title: 'Backend interview',
  start_datetime: new Date(Date.now() + DAY).toISOString(),
  candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com' },
  interviewers: [
    { full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test' },
    { full_name: 'Olga Other', email_id: 'olga@acme.test' },
  ],
  ...over,
})

const emailRows = (server: Server, interviewId: string) =>
  server.sql<{ id: number; target: string; state: string; attempts: number; last_error: string | null }>(
    `select id, target, state, attempts, last_error from outbox where kind = 'email' and group_key like ? order by id`,
    `mail:${interviewId}:%`
  )

/** Waits until every e-mail row is delivered and the SMTP server holds `total` messages; returns the new ones. */
async function delivered(total: number, since: number): Promise<Mail[]> {
  await waitUntil(
    () => sink.received.length >= total && s.sql(`select count(*) n from outbox where kind = 'email' and state <> 'delivered'`)[0].n === 0,
    30_000,
    `${total} delivered e-mails`
  )
  expect(sink.received).toHaveLength(total)
  return sink.received.slice(since)
}

const only = (mails: Mail[], address: string): Mail => {
  const found = mails.filter((m) => m.to.includes(address))
  expect(found, address).toHaveLength(1)
  return found[0]
}

beforeAll(async () => {
  sink = await startSmtpSink()
  s = await startServer({
    smtp: { host: '127.0.0.1', port: sink.port, from: 'Acme Interviews <interviews@acme.test>', timeout_ms: 3000 },
    outbox: { backoff_ms: 200, backoff_max_ms: 1000 },
  })
  admin = await account(s)
}, 120_000)

afterAll(async () => {
  await s?.stop()
  await sink?.stop()
})

describe('with an SMTP server', () => {
  let id: string
  let first: { candidate_interview_link: string; interviewer_interview_links: Record<string, string> }

  test('create: an invitation to each participant, with their own link and an .ics', { timeout: 60_000 }, async () => {
    const r = await s.call('POST', `${P}/`, interview(admin))
    expect(r.status).toBe(201)
    id = r.json.interview_id
    first = r.json
    const mails = await delivered(3, 0)
    const own: Record<string, string> = { 'cara@example.com': first.candidate_interview_link, ...first.interviewer_interview_links }
    for (const [address, link] of Object.entries(own)) {
      const m = only(mails, address)
      expect(m.to).toEqual([address])
      expect(m.from).toBe('interviews@acme.test')
      expect(m.headers.subject).toBe('Interview invitation: Backend interview')
      expect(m.headers.from).toBe('Acme Interviews <interviews@acme.test>')
      // their own link, and nobody else's
      expect(linksIn(textOf(m))).toEqual([link])
      expect(new Set(linksIn(decodedOf(m)))).toEqual(new Set([link]))
      const ics = icsOf(m)!
      expect(ics).toContain('METHOD:REQUEST')
      expect(ics).toContain(`UID:${id}@127.0.0.1`)
      expect(ics).toContain('SEQUENCE:0')
      expect(ics).toContain(`URL:${link}`)
      expect(ics).toContain(`:mailto:${address}`)
    }
    expect(textOf(only(mails, 'cara@example.com'))).toContain('as the candidate')
    expect(textOf(only(mails, 'ivan@acme.test'))).toContain('as an interviewer')
  })

  test('update: the candidate is not told (inform_candidate false); kept, added and removed interviewers are', { timeout: 60_000 }, async () => {
    const before = sink.received.length
    const r = await s.call(
      'PUT',
      `${P}/${id}/`,
      interview(admin, {
        title: 'Backend interview (moved)',
        inform_candidate: false,
        interviewers: [
          { full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test' },
          { full_name: 'Pete Panel', email_id: 'pete@acme.test' },
        ],
      })
    )
    expect(r.status).toBe(200)
    const mails = await delivered(before + 3, before)
    expect(mails.flatMap((m) => m.to).sort()).toEqual(['ivan@acme.test', 'olga@acme.test', 'pete@acme.test'])

    const ivan = only(mails, 'ivan@acme.test')
    expect(ivan.headers.subject).toBe('Interview updated: Backend interview (moved)')
    expect(linksIn(textOf(ivan))).toEqual([r.json.interviewer_interview_links['ivan@acme.test']])
    expect(r.json.interviewer_interview_links['ivan@acme.test']).not.toBe(first.interviewer_interview_links['ivan@acme.test'])
    expect(icsOf(ivan)).toContain('SEQUENCE:1')

    const pete = only(mails, 'pete@acme.test')
    expect(pete.headers.subject).toBe('Interview invitation: Backend interview (moved)')
    expect(linksIn(textOf(pete))).toEqual([r.json.interviewer_interview_links['pete@acme.test']])

    const olga = only(mails, 'olga@acme.test')
    expect(olga.headers.subject).toBe('Interview cancelled: Backend interview (moved)')
    expect(linksIn(decodedOf(olga))).toEqual([])
    expect(icsOf(olga)).toContain('METHOD:CANCEL')
    expect(icsOf(olga)).toContain('STATUS:CANCELLED')
  })

  test('delete: a cancellation to the candidate only (inform_interviewers false), without any link', { timeout: 60_000 }, async () => {
    const before = sink.received.length
    const r = await s.call('POST', `${P}/delete/`, { ...admin, interview_id: id, inform_interviewers: false })
    expect(r.status).toBe(200)
    const [cara, ...more] = await delivered(before + 1, before)
    expect(more).toEqual([])
    expect(cara.to).toEqual(['cara@example.com'])
    expect(cara.headers.subject).toBe('Interview cancelled: Backend interview (moved)')
    expect(linksIn(decodedOf(cara))).toEqual([])
    const ics = icsOf(cara)!
    expect(ics).toContain('METHOD:CANCEL')
    expect(ics).toContain(`UID:${id}@127.0.0.1`)
    expect(ics).toContain('SEQUENCE:2')
  })

  test('inform flags off: no mail at all; interviewers only: the candidate gets none', { timeout: 60_000 }, async () => {
    const before = sink.received.length
    const silent = await s.call('POST', `${P}/`, interview(admin, { inform_candidate: false, inform_interviewers: false }))
    expect(silent.status).toBe(201)
    const staff = await s.call('POST', `${P}/`, interview(admin, { inform_candidate: false }))
    expect(staff.status).toBe(201)
    const mails = await delivered(before + 2, before)
    expect(mails.flatMap((m) => m.to).sort()).toEqual(['ivan@acme.test', 'olga@acme.test'])
    expect(emailRows(s, silent.json.interview_id)).toEqual([])
    expect(emailRows(s, staff.json.interview_id).map((r) => r.target).sort()).toEqual(['ivan@acme.test', 'olga@acme.test'])
  })

  // a second interview, the default inform flags throughout unless a test says otherwise
  let id2: string
  let created: { candidate_interview_link: string; interviewer_interview_links: Record<string, string> }

  test('update with the default flags: the candidate and every interviewer are told, each with their new link', { timeout: 60_000 }, async () => {
    let before = sink.received.length
    const c = await s.call('POST', `${P}/`, interview(admin, { title: 'Frontend interview' }))
    expect(c.status).toBe(201)
    id2 = c.json.interview_id
    created = c.json
    await delivered(before + 3, before)

    before = sink.received.length
    const r = await s.call('PUT', `${P}/${id2}/`, interview(admin, { title: 'Frontend interview (moved)' }))
    expect(r.status).toBe(200)
    const mails = await delivered(before + 3, before)
    expect(mails.flatMap((m) => m.to).sort()).toEqual(['cara@example.com', 'ivan@acme.test', 'olga@acme.test'])
    const own: Record<string, [string, string]> = {
      'cara@example.com': [r.json.candidate_interview_link, created.candidate_interview_link],
      ...Object.fromEntries(
        Object.entries(r.json.interviewer_interview_links as Record<string, string>).map(([a, link]) => [a, [link, created.interviewer_interview_links[a]]])
      ),
    }
    expect(Object.keys(own).sort()).toEqual(['cara@example.com', 'ivan@acme.test', 'olga@acme.test'])
    for (const [address, [link, old]] of Object.entries(own)) {
      expect(link, address).not.toBe(old)
      const m = only(mails, address)
      expect(m.to).toEqual([address])
      expect(m.headers.subject).toBe('Interview updated: Frontend interview (moved)')
      // the new link, and neither the old one nor anybody else's
      expect(linksIn(textOf(m))).toEqual([link])
      expect(new Set(linksIn(decodedOf(m)))).toEqual(new Set([link]))
      expect(decodedOf(m)).not.toContain(old)
      const ics = icsOf(m)!
      expect(ics).toContain('METHOD:REQUEST')
      expect(ics).toContain(`UID:${id2}@127.0.0.1`)
      expect(ics).toContain('SEQUENCE:1')
      expect(ics).toContain(`URL:${link}`)
      expect(textOf(m)).toContain('Links sent earlier no longer work')
    }
  })

  test('update with inform_interviewers false: only the candidate is told; kept, added and removed interviewers get nothing', { timeout: 60_000 }, async () => {
    const before = sink.received.length
    const rowsBefore = emailRows(s, id2).length
    const r = await s.call(
      'PUT',
      `${P}/${id2}/`,
      interview(admin, {
        title: 'Frontend interview (again)',
        inform_interviewers: false,
        interviewers: [
          { full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test' },
          { full_name: 'Pete Panel', email_id: 'pete@acme.test' },
        ],
      })
    )
    expect(r.status).toBe(200)
    const mails = await delivered(before + 1, before)
    expect(mails.flatMap((m) => m.to)).toEqual(['cara@example.com'])
    // no mail was even queued for ivan (kept), pete (added) or olga (removed, otherwise a cancellation)
    expect(emailRows(s, id2).slice(rowsBefore).map((row) => row.target)).toEqual(['cara@example.com'])
    const [cara] = mails
    expect(cara.headers.subject).toBe('Interview updated: Frontend interview (again)')
    expect(linksIn(textOf(cara))).toEqual([r.json.candidate_interview_link])
    expect(new Set(linksIn(decodedOf(cara)))).toEqual(new Set([r.json.candidate_interview_link]))
    expect(icsOf(cara)).toContain('SEQUENCE:2')
  })

  test('delete with the default flags: a cancellation to the candidate and every current interviewer, nobody else', { timeout: 60_000 }, async () => {
    const before = sink.received.length
    const r = await s.call('POST', `${P}/delete/`, { ...admin, interview_id: id2 })
    expect(r.status).toBe(200)
    const mails = await delivered(before + 3, before)
    // olga was removed by the last update: she is not told again
    expect(mails.flatMap((m) => m.to).sort()).toEqual(['cara@example.com', 'ivan@acme.test', 'pete@acme.test'])
    for (const address of ['cara@example.com', 'ivan@acme.test', 'pete@acme.test']) {
      const m = only(mails, address)
      expect(m.to).toEqual([address])
      expect(m.headers.subject).toBe('Interview cancelled: Frontend interview (again)')
      expect(linksIn(decodedOf(m))).toEqual([])
      const ics = icsOf(m)!
      expect(ics).toContain('METHOD:CANCEL')
      expect(ics).toContain('STATUS:CANCELLED')
      expect(ics).toContain(`UID:${id2}@127.0.0.1`)
      expect(ics).toContain('SEQUENCE:3')
    }
  })

  test('delete with inform_candidate false: cancellations to the interviewers only', { timeout: 60_000 }, async () => {
    let before = sink.received.length
    const c = await s.call('POST', `${P}/`, interview(admin, { title: 'Data interview' }))
    expect(c.status).toBe(201)
    const id3 = c.json.interview_id
    // the candidate was invited, so leaving them out of the cancellation is the flag's doing
    expect((await delivered(before + 3, before)).flatMap((m) => m.to).sort()).toEqual(['cara@example.com', 'ivan@acme.test', 'olga@acme.test'])

    before = sink.received.length
    const r = await s.call('POST', `${P}/delete/`, { ...admin, interview_id: id3, inform_candidate: false })
    expect(r.status).toBe(200)
    const mails = await delivered(before + 2, before)
    expect(mails.flatMap((m) => m.to).sort()).toEqual(['ivan@acme.test', 'olga@acme.test'])
    expect(emailRows(s, id3).filter((row) => row.target === 'cara@example.com')).toHaveLength(1)
    for (const address of ['ivan@acme.test', 'olga@acme.test']) {
      const m = only(mails, address)
      expect(m.headers.subject).toBe('Interview cancelled: Data interview')
      expect(linksIn(decodedOf(m))).toEqual([])
      expect(icsOf(m)).toContain('METHOD:CANCEL')
    }
  })

  test('SMTP server down: the mail waits in the outbox, retried, and goes out once it is back', { timeout: 60_000 }, async () => {
    const before = sink.received.length
    await sink.stop()
    const r = await s.call('POST', `${P}/`, interview(admin, { inform_interviewers: false }))
    expect(r.status).toBe(201)
    const id = r.json.interview_id
    await waitUntil(() => (emailRows(s, id)[0]?.attempts ?? 0) >= 2, 30_000, 'two failed attempts')
    const [waiting] = emailRows(s, id)
    expect(waiting).toMatchObject({ target: 'cara@example.com', state: 'pending' })
    expect(waiting.last_error).toMatch(/ECONNREFUSED/)
    expect(sink.received).toHaveLength(before)

    await sink.start()
    const [mail] = await delivered(before + 1, before)
    expect(mail.to).toEqual(['cara@example.com'])
    expect(linksIn(textOf(mail))).toEqual([r.json.candidate_interview_link])
    // every attempt is recorded: the failures with their error, the last one without
    const attempts = s.sql<{ attempt: number; error: string | null }>('select attempt, error from outbox_attempts where outbox_id = ? order by id', waiting.id)
    expect(attempts.length).toBeGreaterThanOrEqual(3)
    expect(attempts.at(-1)).toEqual({ attempt: attempts.length, error: null })
    expect(attempts.slice(0, -1).every((a) => /ECONNREFUSED/.test(a.error ?? ''))).toBe(true)
  })
})

describe('without an SMTP server', () => {
  let bare: Server
  beforeAll(async () => {
    bare = await startServer()
  }, 120_000)
  afterAll(() => bare?.stop())

  test('the mail is kept in the outbox and readable with `cli outbox`', { timeout: 60_000 }, async () => {
    const creds = await account(bare)
    const r = await bare.call('POST', `${P}/`, interview(creds))
    expect(r.status).toBe(201)
    const list: any[] = await bare.cli('outbox', '--kind', 'email')
    expect(list.map((m) => m.target).sort()).toEqual(['cara@example.com', 'ivan@acme.test', 'olga@acme.test'])
    for (const m of list) {
      expect(m).toMatchObject({ kind: 'email', state: 'pending', attempts: 0, waiting_for: 'smtp.host', subject: 'Interview invitation: Backend interview' })
    }
    const cara = list.find((m) => m.target === 'cara@example.com')
    const shown = await bare.cli('outbox', 'show', '--id', String(cara.id))
    expect(linksIn(shown.body.text)).toEqual([r.json.candidate_interview_link])
    expect(shown.body.ics.content).toContain('METHOD:REQUEST')
    expect(shown.attempt_log).toEqual([])
  })
})
