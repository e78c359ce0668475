// The interview API end to end: the real server on loopback, accounts made with the real CLI, resumes
// served by a local HTTP server. Every row of the spec's error table, with the envelope and its status.
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type Reply, type Server } from '../testing/interview-harness.ts'

const P = '/partner/service/interviews'
const MB2 = 2 * 1024 * 1024
const HOUR = 3_600_000

type Creds = { client_id: string; client_secret: string }

/** The spec's emessage of each ecode (ACCESSERROR names the support address, ARGMISSING the argument). */
const EMESSAGE: Record<string, string> = {
  AUTHFAILED: 'Authentication Failed',
  ACCESSERROR: 'You are not authorized to access this feature. Please contact support@example.com.',
  ARGMISSING: "Request argument missing: 'title'",
  BADDATA: 'Invalid request data.',
  FEATURENOTAVAILABLE: 'Interview feature is not available for your company.',
  INTERVIEWNOTFOUND: 'Interview not found.',
  RATELIMITEXCEEDED: 'The rate at which the API requests are made has reached. Please try again after some time.',
  INVALIDEMAIL: 'Invalid email(s) exist.',
  BUYCREDITS: 'You do not have sufficient credits to create interviews, please purchase more credits.',
  INTERVIEWERCANDIDATECONFLICT: 'Interviewer and candidate cannot be the same.',
  DUPLICATEINTERVIEWER: 'Multiple interviewers cannot have the same email ID.',
  MINONEINTERVIEWERREQUIRED: 'You must add at least one interviewer.',
  MAXINTERVIEWERSLIMITCROSSED: 'Maximum interviewers limit crossed.',
  MAXEVALPARAMSLIMITCROSSED: 'Maximum eval params limit crossed.',
  INVALIDRESUMEURL: 'Provided resume url is invalid.',
  INVALIDFILETYPEERROR: 'Resume is not a PDF file.',
  INVALIDSIZEERROR: 'Invalid resume size.',
  UPLOADERROR: 'Error in downloading and uploading resume.',
  INVALIDPHONENUMBER: 'Invalid phone number.',
  INVALIDCOUNTRYCODE: 'Invalid country code.',
  INVALIDURL: 'Invalid URL.',
  ENDEDINTERVIEWUPDATIONDENIED: 'You cannot update an interview that has ended.',
  INVALIDINTERVIEWSTARTTIME: 'You cannot schedule the interview before the current time.',
  CANDIDATEEMAILUPDATENOTALLOWED: "You cannot update the candidate's email ID.",
  ENDEDINTERVIEWDELETIONDENIED: 'You cannot delete an interview that has ended.',
}

const failed = (ecode: string) => ({ mcode: 'FAILED', message: 'Request failed', ecode: [ecode], emessage: [EMESSAGE[ecode]] })
const ok = { mcode: 'success', message: 'success', ecode: [], emessage: [] }
const iso = (ms: number) => new Date(ms).toISOString()

function body(creds: Creds, over: Record<string, unknown> = {}) {
  return {
    ...creds,
    title: 'Backend interview',
    start_datetime: iso(Date.now() + 24 * HOUR),
    candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com', contact_number: '+91 98765 43210' },
    interviewers: [
      { full_name: 'Ivan', email_id: 'ivan@acme.test', feedback_redirect_url: 'https://acme.test/done' },
      { full_name: 'Olga', email_id: 'olga@acme.test' },
    ],
    eval_params: ['Problem solving'],
    ...over,
  }
}

const candidate = (over: Record<string, unknown>) => ({
  candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com', ...over },
})

let s: Server
let files: HttpServer
let filesBase: string
let closedPort: number
const acct: Record<string, { company: number; admin: Creds; member: Creds }> = {}

async function company(name: string, credits: number, interviews = true) {
  const c = await s.cli('companies', 'create', '--name', name, '--credits', String(credits), ...(interviews ? [] : ['--no-interviews']), '--json')
  const [admin, member] = await Promise.all([
    s.cli('users', 'create', '--company', String(c.id), '--email', `admin@${name}.test`, '--super-admin', '--json'),
    s.cli('users', 'create', '--company', String(c.id), '--email', `ivan@${name}.test`, '--json'),
  ])
  acct[name] = { company: c.id, admin, member }
}

const create = (creds: Creds, over: Record<string, unknown> = {}) => s.call('POST', `${P}/`, body(creds, over))
const read = (id: string, creds: Creds, prefix = P) => s.call('GET', `${prefix}/${id}/?${new URLSearchParams(creds)}`)
const update = (id: string, creds: Creds, over: Record<string, unknown> = {}) => s.call('PUT', `${P}/${id}/`, body(creds, over))
const report = (id: string, creds: Creds, over: Record<string, unknown> = {}) =>
  s.call('POST', `${P}/report/`, { ...creds, interview_id: id, ...over })
const remove = (id: string, creds: Creds) => s.call('POST', `${P}/delete/`, { ...creds, interview_id: id })
const countInterviews = (companyId: number) => s.sql<{ n: number }>('select count(*) n from interviews where company_id = ?', companyId)[0].n
const credits = (companyId: number) => s.sql<{ credits: number }>('select credits from companies where id = ?', companyId)[0].credits

beforeAll(async () => {
  files = createServer((req, res) => {
    const pdf = (n: number) => Buffer.concat([Buffer.from('%PDF-1.5\n'), Buffer.alloc(n - 9, 0x41)])
    if (req.url === '/cv.pdf') return res.end(pdf(50_000))
    if (req.url === '/exact.pdf') return res.end(pdf(MB2))
    if (req.url === '/big.pdf') return res.end(pdf(MB2 + 1))
    if (req.url === '/cv.docx') return res.end(Buffer.from('PK\x03\x04 word document'))
    if (req.url === '/reset.pdf') {
      res.setHeader('content-length', '100000')
      res.write('%PDF-1.5\n')
      return void setTimeout(() => res.socket?.destroy(), 20)
    }
    res.statusCode = 404
    res.end()
  })
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r))
  filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`
  const closed = createServer()
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
  closedPort = (closed.address() as AddressInfo).port
  await new Promise((r) => closed.close(r))

  s = await startServer({
    interviews: { allow_private_resume_hosts: true, rate_per_minute: 100_000, rate_per_day: 1_000_000, resume_timeout_ms: 5000 },
  })
  await Promise.all([company('acme', 1000), company('other', 10), company('off', 10, false), company('poor', 0), company('race', 7)])
}, 120_000)

afterAll(async () => {
  await s?.stop()
  files?.close()
})

describe('accounts (CLI)', () => {
  it('prints a 67-character client_id with a suffix from the public host and a 40-character secret', () => {
    const { client_id, client_secret } = acct.acme.admin
    expect(Object.keys(acct.acme.admin)).toEqual(['client_id', 'client_secret'])
    expect(client_id).toHaveLength(67)
    expect(client_id).toMatch(/^[0-9a-f]+\.api\.127-0-0-1\.arbiter$/)
    expect(client_secret).toMatch(/^[0-9a-f]{40}$/)
    const stored = JSON.stringify(s.sql('select * from users'))
    expect(stored).not.toContain(client_id)
    expect(stored).not.toContain(client_secret)
  })

  it('adds credits and lists users', async () => {
    const c = await s.cli('companies', 'credits', '--company', String(acct.other.company), '--add', '5')
    expect(c.credits).toBe(15)
    const users = await s.cli('users', 'list', '--company', String(acct.acme.company))
    // the two users were created concurrently: compare without their order
    expect(users.map((u: { email: string; role: string }) => [u.email, u.role]).sort()).toEqual([
      ['admin@acme.test', 'super_admin'],
      ['ivan@acme.test', 'member'],
    ])
  }, 30_000)
})

describe('B1–B5 happy path', () => {
  it('creates, reads, updates, reports and deletes with the envelope on every reply', async () => {
    const admin = acct.acme.admin
    const created = await create(admin)
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject(ok)
    const id = created.json.interview_id
    expect(id).toMatch(/^[0-9a-f]{32}$/)
    expect(created.json.candidate_interview_link.startsWith(`${s.base}/interviews/join/`)).toBe(true)
    expect(Object.keys(created.json.interviewer_interview_links)).toEqual(['ivan@acme.test', 'olga@acme.test'])

    const got = await read(id, admin)
    expect(got.status).toBe(200)
    expect(got.json).toMatchObject({
      ...ok,
      title: 'Backend interview',
      candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com', resume_url: null },
      interviewers: [
        { full_name: 'Ivan', email_id: 'ivan@acme.test', feedback_redirect_url: 'https://acme.test/done' },
        { full_name: 'Olga', email_id: 'olga@acme.test', feedback_redirect_url: null },
      ],
      eval_params: ['Problem solving'],
    })
    // hyphenated id and HackerEarth's production prefix
    const hyphen = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`
    expect((await read(hyphen, admin, '/partner/hackerearth/interviews')).json.interview_id).toBe(id)

    const updated = await update(id, admin, { title: 'Moved', start_datetime: '2099-03-04T10:00:00+05:30' })
    expect(updated.status).toBe(200)
    expect(updated.json).toMatchObject({ ...ok, interview_id: id })
    expect(updated.json.candidate_interview_link).not.toBe(created.json.candidate_interview_link)
    expect((await read(id, admin)).json).toMatchObject({ title: 'Moved', start_datetime: '2099-03-04T10:00:00+05:30' })

    const rep = await report(id, admin)
    expect([rep.status, rep.json]).toEqual([
      200,
      { ...ok, interview_id: id, start_datetime: '2099-03-04T10:00:00+05:30', end_datetime: '2099-03-04T12:00:00+05:30', status: 'upcoming', interviewer_feedbacks: null },
    ])

    // a current link signs its holder in and lands in the room; the replaced ones are gone
    const landing = await fetch(updated.json.interviewer_interview_links['olga@acme.test'], { redirect: 'manual' })
    expect(landing.status).toBe(303)
    const cookie = (landing.headers.get('set-cookie') ?? '').split(';')[0]
    const page = await fetch(new URL(landing.headers.get('location')!, updated.json.candidate_interview_link), { headers: { cookie } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Moved')
    expect((await fetch(created.json.candidate_interview_link)).status).toBe(404)

    const del = await remove(id, admin)
    expect([del.status, del.json]).toEqual([200, ok])
    for (const r of [await read(id, admin), await update(id, admin), await report(id, admin), await remove(id, admin)]) {
      expect([r.status, r.json]).toEqual([404, failed('INTERVIEWNOTFOUND')])
    }
  }, 30_000)

  it('keeps another company out: its interview is INTERVIEWNOTFOUND, never its data', async () => {
    const id = (await create(acct.acme.admin, { title: 'Secret title' })).json.interview_id
    for (const r of [
      await read(id, acct.other.admin),
      await update(id, acct.other.admin),
      await report(id, acct.other.admin),
      await remove(id, acct.other.admin),
    ]) {
      expect([r.status, r.json]).toEqual([404, failed('INTERVIEWNOTFOUND')])
      expect(r.text).not.toContain('Secret')
    }
    expect((await read(id, acct.acme.member)).status).toBe(200)
  }, 30_000)
})

describe('every row of the error table', () => {
  let revoked: Creds
  let ended: string
  let upcoming: string
  beforeAll(async () => {
    revoked = await s.cli('users', 'create', '--company', String(acct.acme.company), '--email', 'gone@acme.test', '--json')
    await s.cli('users', 'revoke', '--client-id', revoked.client_id)
    ended = (await create(acct.acme.admin, { start_datetime: iso(Date.now() - 5 * HOUR) })).json.interview_id
    upcoming = (await create(acct.acme.admin)).json.interview_id
  }, 30_000)

  const admin = () => acct.acme.admin
  const rows: [string, number, () => Promise<Reply>][] = [
    ['AUTHFAILED', 401, () => create({ ...admin(), client_secret: '0'.repeat(40) })],
    ['ACCESSERROR', 403, () => read(upcoming, revoked)],
    ['ARGMISSING', 400, () => create(admin(), { title: undefined })],
    ['BADDATA', 400, () => s.call('POST', `${P}/`, '{"client_id": "x", ')],
    ['FEATURENOTAVAILABLE', 403, () => create(acct.off.admin)],
    ['INTERVIEWNOTFOUND', 404, () => read('0123456789abcdef0123456789abcdef', admin())],
    ['INVALIDEMAIL', 400, () => create(admin(), candidate({ email_id: 'cara.example.com' }))],
    ['BUYCREDITS', 402, () => create(acct.poor.admin)],
    ['INTERVIEWERCANDIDATECONFLICT', 400, () => create(admin(), { interviewers: [{ full_name: 'C', email_id: 'Cara@Example.com' }] })],
    ['DUPLICATEINTERVIEWER', 400, () => create(admin(), { interviewers: [{ full_name: 'A', email_id: 'a@x.io' }, { full_name: 'B', email_id: 'a@x.io' }] })],
    ['MINONEINTERVIEWERREQUIRED', 400, () => create(admin(), { interviewers: [] })],
    ['MAXINTERVIEWERSLIMITCROSSED', 400, () => create(admin(), { interviewers: [1, 2, 3, 4, 5, 6].map((n) => ({ full_name: `I${n}`, email_id: `i${n}@x.io` })) })],
    ['MAXEVALPARAMSLIMITCROSSED', 400, () => create(admin(), { eval_params: Array.from({ length: 11 }, (_, n) => `p${n}`) })],
    ['INVALIDRESUMEURL', 400, () => create(admin(), candidate({ resume_url: `http://127.0.0.1:${closedPort}/cv.pdf` }))],
    ['INVALIDFILETYPEERROR', 400, () => create(admin(), candidate({ resume_url: `${filesBase}/cv.docx` }))],
    ['INVALIDSIZEERROR', 400, () => create(admin(), candidate({ resume_url: `${filesBase}/big.pdf` }))],
    ['UPLOADERROR', 502, () => create(admin(), candidate({ resume_url: `${filesBase}/reset.pdf` }))],
    ['INVALIDPHONENUMBER', 400, () => update(upcoming, admin(), candidate({ contact_number: '+91 12345' }))],
    ['INVALIDCOUNTRYCODE', 400, () => update(upcoming, admin(), candidate({ contact_number: '98765 43210' }))],
    ['INVALIDURL', 400, () => update(upcoming, admin(), { interviewers: [{ full_name: 'I', email_id: 'i@x.io', feedback_redirect_url: 'not a url' }] })],
    ['ENDEDINTERVIEWUPDATIONDENIED', 409, () => update(ended, admin())],
    ['INVALIDINTERVIEWSTARTTIME', 400, () => update(upcoming, admin(), { start_datetime: iso(Date.now() - HOUR) })],
    ['CANDIDATEEMAILUPDATENOTALLOWED', 409, () => update(upcoming, admin(), candidate({ email_id: 'someone.else@example.com' }))],
    ['ENDEDINTERVIEWDELETIONDENIED', 409, () => remove(ended, admin())],
  ]

  it.each(rows)('%s → HTTP %i with the envelope, nothing stored', async (ecode, status, send) => {
    const before = { interviews: countInterviews(acct.acme.company), credits: credits(acct.acme.company), resumes: resumeFiles() }
    const beforeUpcoming = s.sql('select * from interviews where id = ?', upcoming)
    const res = await send()
    expect([res.status, res.json]).toEqual([status, failed(ecode)])
    expect(countInterviews(acct.acme.company)).toBe(before.interviews)
    expect(credits(acct.acme.company)).toBe(before.credits)
    expect(resumeFiles()).toEqual(before.resumes)
    expect(s.sql('select * from interviews where id = ?', upcoming)).toEqual(beforeUpcoming)
  }, 20_000)

  // RATELIMITEXCEEDED has its own server with the default limits: see "rate limits" below
})

const resumeFiles = () => {
  try {
    return readdirSync(join(s.dataDir, 'resumes')).sort()
  } catch {
    return []
  }
}

describe('validation rules', () => {
  const admin = () => acct.acme.admin
  it.each([
    ['5 interviewers are allowed', { interviewers: [1, 2, 3, 4, 5].map((n) => ({ full_name: `I${n}`, email_id: `i${n}@x.io` })) }, 201, null],
    ['10 eval_params are allowed', { eval_params: Array.from({ length: 10 }, (_, n) => `p${n}`) }, 201, null],
    ['an interviewer e-mail must be valid', { interviewers: [{ full_name: 'I', email_id: 'i@x' }] }, 400, 'INVALIDEMAIL'],
    ['a date-time needs an offset', { start_datetime: '2099-01-01T10:00:00' }, 400, 'BADDATA'],
    ['a date-time must exist', { start_datetime: '2099-02-30T10:00:00Z' }, 400, 'BADDATA'],
    ['a phone needs its country code on create too', candidate({ contact_number: '9876543210' }), 400, 'INVALIDCOUNTRYCODE'],
    ['callback_url must be a URL', { callback_url: 'mailto:x@y.z' }, 400, 'INVALIDURL'],
    ['interviewers must be a list', { interviewers: { full_name: 'I' } }, 400, 'BADDATA'],
    ['inform flags are booleans', { inform_candidate: 'no' }, 400, 'BADDATA'],
  ] as const)('%s', async (_name, over, status, ecode) => {
    const res = await create(admin(), over as Record<string, unknown>)
    expect(res.status).toBe(status)
    expect(res.json).toEqual(ecode ? failed(ecode) : expect.objectContaining(ok))
  })

  it('ARGMISSING names the missing argument, nested ones with their path', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ client_id: undefined }, 'client_id'],
      [{ client_secret: '' }, 'client_secret'],
      [{ start_datetime: null }, 'start_datetime'],
      [{ candidate_details: undefined }, 'candidate_details'],
      [candidate({ email_id: undefined }), 'candidate_details.email_id'],
      [{ interviewers: [{ email_id: 'i@x.io' }] }, 'interviewers[0].full_name'],
      [{ interviewers: undefined }, 'interviewers'],
    ]
    for (const [over, name] of cases) {
      const res = await create(admin(), over)
      expect([res.status, res.json], name).toEqual([400, { ...failed('ARGMISSING'), emessage: [`Request argument missing: '${name}'`] }])
    }
    const rep = await s.call('POST', `${P}/report/`, { ...admin() })
    expect(rep.json.emessage).toEqual(["Request argument missing: 'interview_id'"])
  }, 20_000)
})

describe('credits', () => {
  it('20 concurrent creates against 7 credits: 7 created, 13 BUYCREDITS, none spent twice or lost', async () => {
    // each with a resume, so that the downloads interleave with the credit checks
    const resumesBefore = resumeFiles().length
    const results = await Promise.all(Array.from({ length: 20 }, () => create(acct.race.admin, candidate({ resume_url: `${filesBase}/cv.pdf` }))))
    expect(results.filter((r) => r.status === 201)).toHaveLength(7)
    expect(results.filter((r) => r.status === 402).every((r) => r.json.ecode[0] === 'BUYCREDITS')).toBe(true)
    expect(results.filter((r) => r.status === 402)).toHaveLength(13)
    expect(credits(acct.race.company)).toBe(0)
    expect(countInterviews(acct.race.company)).toBe(7)
    expect(new Set(results.filter((r) => r.status === 201).map((r) => r.json.interview_id)).size).toBe(7)
    expect(resumeFiles().length).toBe(resumesBefore + 7)
  }, 30_000)
})

describe('resumes', () => {
  it('downloads a PDF of exactly 2 MB, stores it under data/resumes and serves it through B1’s resume_url', async () => {
    const res = await create(acct.acme.admin, candidate({ resume_url: `${filesBase}/exact.pdf` }))
    expect(res.status).toBe(201)
    const url = (await read(res.json.interview_id, acct.acme.admin)).json.candidate_details.resume_url
    expect(url.startsWith(`${s.base}/partner/service/interviews/${res.json.interview_id}/resume/`)).toBe(true)
    const file = await fetch(url)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('application/pdf')
    const bytes = Buffer.from(await file.arrayBuffer())
    expect(bytes.length).toBe(MB2)
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-')
    // no signature: refused
    expect((await fetch(url.split('?')[0])).status).toBe(404)
    expect(resumeFiles().filter((f) => f.startsWith('.tmp'))).toEqual([])
  }, 20_000)

  it('a small PDF works too, and deleting the interview removes the file', async () => {
    const before = resumeFiles()
    const res = await create(acct.acme.admin, candidate({ resume_url: `${filesBase}/cv.pdf` }))
    expect(res.status).toBe(201)
    expect(resumeFiles()).toHaveLength(before.length + 1)
    await remove(res.json.interview_id, acct.acme.admin)
    expect(resumeFiles()).toEqual(before)
  }, 20_000)
})

describe('report views', () => {
  let id: string
  beforeAll(async () => {
    // started 5 h ago: completed by the 2 h maximum duration
    id = (
      await create(acct.acme.admin, {
        start_datetime: iso(Date.now() - 5 * HOUR),
        eval_params: ['Problem solving', 'Communication'],
      })
    ).json.interview_id
    // the row the room's feedback form writes (the browser test submits it for real)
    s.exec(
      `insert into interview_feedback (interview_id, interviewer_email, result, ratings, eval_params_ratings, submitted_at) values (?, ?, ?, ?, ?, ?)`,
      id,
      'ivan@acme.test',
      'STRONG_YES',
      JSON.stringify({ CODE_QUALITY: { rating: 4, comment: 'clean' } }),
      JSON.stringify({ 'Problem solving': { rating: 5, comment: 'fast' } }),
      Date.now()
    )
  }, 20_000)

  it('a super-admin sees every interviewer; unsubmitted feedback is all null', async () => {
    const res = await report(id, acct.acme.admin)
    expect(res.status).toBe(200)
    expect(res.json.status).toBe('completed')
    expect(Object.keys(res.json.interviewer_feedbacks)).toEqual(['ivan@acme.test', 'olga@acme.test'])
    expect(res.json.interviewer_feedbacks['olga@acme.test']).toEqual({ result: null, ratings: null, eval_params_ratings: null })
    const ivan = res.json.interviewer_feedbacks['ivan@acme.test']
    expect(ivan.result).toBe('STRONG_YES')
    expect(ivan.ratings.CODE_QUALITY).toEqual({ rating: '4', comment: 'clean', verbose_name: 'Code quality', rating_message: 'Reusable and readable' })
    expect(ivan.eval_params_ratings['Problem solving']).toMatchObject({ rating: '5', rating_message: 'Excellent' })
    expect(ivan.eval_params_ratings.Communication).toMatchObject({ rating: null })
  })

  it('a member sees only their own feedback', async () => {
    const res = await report(id, acct.acme.member)
    expect(Object.keys(res.json.interviewer_feedbacks)).toEqual(['ivan@acme.test'])
    expect(res.json.interviewer_feedbacks['ivan@acme.test'].result).toBe('STRONG_YES')
  })

  it('the interviewer_emails filter narrows the view', async () => {
    const res = await report(id, acct.acme.admin, { filters: { interviewer_emails: ['olga@acme.test'] } })
    expect(Object.keys(res.json.interviewer_feedbacks)).toEqual(['olga@acme.test'])
  })

  it('an ongoing interview reports null feedback', async () => {
    const ongoing = (await create(acct.acme.admin, { start_datetime: iso(Date.now() - 10 * 60_000) })).json.interview_id
    const res = await report(ongoing, acct.acme.admin)
    expect(res.json).toMatchObject({ status: 'ongoing', interviewer_feedbacks: null })
  })
})

describe('rate limits (default config: 60 per minute)', () => {
  let r: Server
  let user: Creds
  beforeAll(async () => {
    r = await startServer({ interviews: { allow_private_resume_hosts: true } })
    const c = await r.cli('companies', 'create', '--name', 'rl', '--credits', '100', '--json')
    user = await r.cli('users', 'create', '--company', String(c.id), '--email', 'rl@rl.test', '--super-admin', '--json')
  }, 60_000)
  afterAll(async () => {
    await r?.stop()
  })

  it('refuses the 61st call of a minute across all endpoints, also after a restart', async () => {
    const id = (await r.call('POST', `${P}/`, body(user))).json.interview_id
    const calls = [
      () => r.call('GET', `${P}/${id}/?${new URLSearchParams(user)}`),
      () => r.call('POST', `${P}/report/`, { ...user, interview_id: id }),
      () => r.call('PUT', `${P}/${id}/`, body(user)),
      () => r.call('POST', `${P}/delete/`, { ...user, interview_id: 'f'.repeat(32) }),
    ]
    for (let n = 2; n <= 60; n++) {
      const res = await calls[n % calls.length]()
      expect(res.json.ecode, `call ${n}`).not.toContain('RATELIMITEXCEEDED')
    }
    const refused = await r.call('POST', `${P}/`, body(user))
    expect([refused.status, refused.json]).toEqual([429, failed('RATELIMITEXCEEDED')])
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    await r.restart()
    const again = await calls[0]()
    expect([again.status, again.json]).toEqual([429, failed('RATELIMITEXCEEDED')])
  }, 60_000)
})
