import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { envelopeStatus } from './error-bodies.ts'
import { companies, interviewFeedback, interviewParticipants, interviews } from '../storage/schema.ts'
import { revokeUser } from './accounts.ts'
import { createBody, seedCompany, testApp, testDeps, type Creds } from '../testing/interviews.ts'

const P = '/partner/service/interviews'
const H = 3_600_000

let pdfServer: Server
let pdfBase: string
beforeAll(async () => {
  pdfServer = createServer((req, res) => {
    if (req.url === '/cv.pdf') return res.end('%PDF-1.7\nresume bytes')
    res.end('<html>no</html>')
  })
  await new Promise<void>((r) => pdfServer.listen(0, '127.0.0.1', r))
  pdfBase = `http://127.0.0.1:${(pdfServer.address() as AddressInfo).port}`
})
afterAll(() => {
  pdfServer.close()
})

function setup(interviewsConfig: Record<string, unknown> = {}, credits = 100) {
  const deps = testDeps(interviewsConfig)
  const seed = seedCompany(deps, { credits })
  const { call } = testApp(deps)
  const create = (creds: Creds = seed.admin, over: Record<string, unknown> = {}) => call('POST', `${P}/`, createBody(creds, deps.now(), over))
  const get = (id: string, creds: Creds = seed.admin, prefix = P) =>
    call('GET', `${prefix}/${id}/?client_id=${encodeURIComponent(creds.client_id)}&client_secret=${encodeURIComponent(creds.client_secret)}`)
  const report = (id: string, creds: Creds = seed.admin, over: Record<string, unknown> = {}) =>
    call('POST', `${P}/report/`, { ...creds, interview_id: id, ...over })
  const del = (id: string, creds: Creds = seed.admin) => call('POST', `${P}/delete/`, { ...creds, interview_id: id })
  const update = (id: string, creds: Creds = seed.admin, over: Record<string, unknown> = {}) =>
    call('PUT', `${P}/${id}/`, createBody(creds, deps.now(), over))
  return { deps, seed, call, create, get, report, del, update }
}

const failed = (ecode: string) => ({ mcode: 'FAILED', message: 'Request failed', ecode: [ecode], emessage: [expect.any(String)] })
const ok = { mcode: 'success', message: 'success', ecode: [], emessage: [] }

describe('B2 create', () => {
  it('answers 201 with the envelope, a 32-hex id and one link per participant', async () => {
    const t = setup()
    const res = await t.create()
    expect(res.status).toBe(201)
    expect(res.json).toMatchObject(ok)
    expect(res.json.interview_id).toMatch(/^[0-9a-f]{32}$/)
    expect(res.json.candidate_interview_link).toMatch(/^http:\/\/arbiter\.test\/interviews\/join\/[A-Za-z0-9_-]{43}$/)
    expect(Object.keys(res.json.interviewer_interview_links)).toEqual(['ivan1@acme.test', 'olga@acme.test'])
    expect(new Set([res.json.candidate_interview_link, ...Object.values(res.json.interviewer_interview_links)]).size).toBe(3)
    expect(t.deps.db.select().from(companies).get()!.credits).toBe(99)
  })

  it('is served under the HackerEarth prefix and without the trailing slash too', async () => {
    const t = setup()
    for (const path of ['/partner/hackerearth/interviews/', '/partner/hackerearth/interviews', `${P}`]) {
      const res = await t.call('POST', path, createBody(t.seed.admin, t.deps.now()))
      expect(res.status, path).toBe(201)
    }
    const id = (await t.create()).json.interview_id
    expect((await t.get(id, t.seed.admin, '/partner/hackerearth/interviews')).status).toBe(200)
  })

  it('takes the credentials from the query string when the body has none', async () => {
    const t = setup()
    const { client_id, client_secret, ...rest } = createBody(t.seed.admin, t.deps.now())
    const res = await t.call('POST', `${P}/?${new URLSearchParams({ client_id, client_secret })}`, rest)
    expect(res.status).toBe(201)
  })

  it('spends credits one by one and then answers BUYCREDITS (402) without storing anything', async () => {
    const t = setup({}, 2)
    expect((await t.create()).status).toBe(201)
    expect((await t.create()).status).toBe(201)
    const res = await t.create()
    expect(res.status).toBe(402)
    expect(res.json).toEqual(failed('BUYCREDITS'))
    expect(t.deps.db.select().from(interviews).all()).toHaveLength(2)
    expect(t.deps.db.select().from(interviewParticipants).all()).toHaveLength(6)
  })

  it('never spends a credit twice under 20 concurrent creates (downloads interleave with the checks)', async () => {
    const t = setup({}, 7)
    const withResume = { candidate_details: { full_name: 'Cara', email_id: 'cara@example.com', resume_url: `${pdfBase}/cv.pdf` } }
    const results = await Promise.all(Array.from({ length: 20 }, () => t.create(t.seed.admin, withResume)))
    expect(results.filter((r) => r.status === 201)).toHaveLength(7)
    expect(results.filter((r) => r.status === 402)).toHaveLength(13)
    expect(t.deps.db.select().from(companies).get()!.credits).toBe(0)
    expect(t.deps.db.select().from(interviews).all()).toHaveLength(7)
    // the resumes of the refused creates were removed again
    expect(readdirSync(join(t.deps.config.dataDir, 'resumes'))).toHaveLength(7)
  })

  it('downloads the resume and B1 hands out a signed URL of this server serving it', async () => {
    const t = setup()
    const res = await t.create(t.seed.admin, {
      candidate_details: { full_name: 'Cara', email_id: 'cara@example.com', resume_url: `${pdfBase}/cv.pdf` },
    })
    expect(res.status).toBe(201)
    const read = await t.get(res.json.interview_id)
    const url = new URL(read.json.candidate_details.resume_url)
    expect(url.origin).toBe('http://arbiter.test')
    const file = await t.call('GET', url.pathname + url.search)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('application/pdf')
    expect(file.text).toBe('%PDF-1.7\nresume bytes')
    // with the user's credentials instead of a signature
    const q = `client_id=${t.seed.member.client_id}&client_secret=${t.seed.member.client_secret}`
    expect((await t.call('GET', `${url.pathname}?${q}`)).status).toBe(200)
    // tampered or absent signature, other company (the first character changed: one signature in 64 began with 'A')
    const tampered = url.search.replace(/signature=(.)/, (_, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`)
    expect(tampered).not.toBe(url.search)
    expect((await t.call('GET', url.pathname + tampered)).json).toEqual(failed('INTERVIEWNOTFOUND'))
    expect((await t.call('GET', url.pathname)).status).toBe(404)
    const other = seedCompany(t.deps, { name: 'Other' })
    const q2 = `client_id=${other.admin.client_id}&client_secret=${other.admin.client_secret}`
    expect((await t.call('GET', `${url.pathname}?${q2}`)).status).toBe(404)
  })

  it('refuses a resume that is not a PDF, and keeps the credit', async () => {
    const t = setup({}, 1)
    const res = await t.create(t.seed.admin, {
      candidate_details: { full_name: 'Cara', email_id: 'cara@example.com', resume_url: `${pdfBase}/cv.html` },
    })
    expect(res.status).toBe(400)
    expect(res.json).toEqual(failed('INVALIDFILETYPEERROR'))
    expect(t.deps.db.select().from(companies).get()!.credits).toBe(1)
    expect(t.deps.db.select().from(interviews).all()).toHaveLength(0)
  })

  it('refuses a private resume host when the guard is on (default)', async () => {
    const t = setup({ allow_private_resume_hosts: false })
    const res = await t.create(t.seed.admin, {
      candidate_details: { full_name: 'Cara', email_id: 'cara@example.com', resume_url: `${pdfBase}/cv.pdf` },
    })
    expect(res.json).toEqual(failed('INVALIDRESUMEURL'))
  })
})

describe('errors common to every endpoint', () => {
  const endpoints = (t: ReturnType<typeof setup>, id: string) => ({
    B1: (creds: Record<string, unknown>) => t.call('GET', `${P}/${id}/?${new URLSearchParams(creds as Record<string, string>)}`),
    B2: (creds: Record<string, unknown>) => t.call('POST', `${P}/`, { ...createBody(t.seed.admin, t.deps.now()), client_id: undefined, client_secret: undefined, ...creds }),
    B3: (creds: Record<string, unknown>) => t.call('PUT', `${P}/${id}/`, { ...createBody(t.seed.admin, t.deps.now()), client_id: undefined, client_secret: undefined, ...creds }),
    B4: (creds: Record<string, unknown>) => t.call('POST', `${P}/report/`, { interview_id: id, ...creds }),
    B5: (creds: Record<string, unknown>) => t.call('POST', `${P}/delete/`, { interview_id: id, ...creds }),
  })

  it.each(['B1', 'B2', 'B3', 'B4', 'B5'] as const)('%s: ARGMISSING, AUTHFAILED, ACCESSERROR, FEATURENOTAVAILABLE', async (name) => {
    const t = setup()
    const id = (await t.create()).json.interview_id
    const call = endpoints(t, id)[name]
    let res = await call({ client_secret: t.seed.admin.client_secret })
    expect([res.status, res.json]).toEqual([400, { ...failed('ARGMISSING'), emessage: ["Request argument missing: 'client_id'"] }])
    res = await call({ client_id: t.seed.admin.client_id })
    expect(res.json.emessage).toEqual(["Request argument missing: 'client_secret'"])
    res = await call({ client_id: t.seed.admin.client_id, client_secret: 'f'.repeat(40) })
    expect([res.status, res.json]).toEqual([401, failed('AUTHFAILED')])
    expect(res.json.emessage).toEqual(['Authentication Failed'])

    const other = seedCompany(t.deps, { name: 'Off', interviewsEnabled: false })
    res = await call(other.admin)
    expect([res.status, res.json]).toEqual([403, failed('FEATURENOTAVAILABLE')])

    revokeUser(t.deps, { clientId: t.seed.member.client_id })
    res = await call(t.seed.member)
    expect([res.status, res.json]).toEqual([403, failed('ACCESSERROR')])
    expect(res.json.emessage[0]).toContain('support@example.com')
  })

  it.each(['B2', 'B3', 'B4', 'B5'] as const)('%s: a credential that is not a string is AUTHFAILED (401), not BADDATA', async (name) => {
    const t = setup()
    const id = (await t.create()).json.interview_id
    const before = t.deps.db.select().from(interviews).all()
    const credits = t.deps.db.select().from(companies).get()!.credits
    const call = endpoints(t, id)[name]
    const { client_id, client_secret } = t.seed.admin
    for (const creds of [
      { client_id: 123, client_secret },
      { client_id: [client_id], client_secret },
      { client_id: { $gt: '' }, client_secret },
      { client_id: true, client_secret },
      { client_id, client_secret: 0 },
      { client_id, client_secret: [client_secret] },
    ]) {
      const res = await call(creds)
      expect([res.status, res.json], JSON.stringify(creds)).toEqual([401, failed('AUTHFAILED')])
    }
    expect(t.deps.db.select().from(interviews).all()).toEqual(before)
    expect(t.deps.db.select().from(companies).get()!.credits).toBe(credits)
  })

  it.each(['B1', 'B3', 'B4', 'B5'] as const)('%s: another company’s interview is INTERVIEWNOTFOUND (404)', async (name) => {
    const t = setup()
    const id = (await t.create()).json.interview_id
    const other = seedCompany(t.deps, { name: 'Other' })
    const res = await endpoints(t, id)[name](other.admin)
    expect([res.status, res.json]).toEqual([404, failed('INTERVIEWNOTFOUND')])
    expect(JSON.stringify(res.json)).not.toContain('Backend interview')
  })

  it('RATELIMITEXCEEDED (429 with Retry-After) on the 61st call of a minute, across endpoints', async () => {
    const t = setup()
    const id = (await t.create()).json.interview_id
    for (let i = 1; i < 60; i++) {
      const res = i % 2 ? await t.get(id) : await t.report(id)
      expect(res.status, `call ${i + 1}`).toBe(200)
    }
    const res = await t.report(id)
    expect([res.status, res.json]).toEqual([429, failed('RATELIMITEXCEEDED')])
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await t.get(id, t.seed.member)).status).toBe(200) // per user
    t.deps.advance(60_000)
    expect((await t.get(id)).status).toBe(200)
  })

  it.each([
    ['not JSON', '{"client_id": '],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"x"'],
    ['deeply nested', '['.repeat(100_000)],
  ])('BADDATA (400) for a body that is %s', async (_name, body) => {
    const t = setup()
    const res = await t.call('POST', `${P}/`, body)
    expect([res.status, res.json]).toEqual([400, failed('BADDATA')])
  })

  it('BADDATA (413) for a body over the limit', async () => {
    const t = setup()
    const res = await t.call('POST', `${P}/`, { ...createBody(t.seed.admin, t.deps.now()), title: 'x'.repeat(3_000_000) })
    expect([res.status, res.json]).toEqual([413, failed('BADDATA')])
  })

  it('answers the envelope on unknown methods and paths under the prefix', async () => {
    const t = setup()
    expect((await t.call('DELETE', `${P}/abc/`)).json).toEqual(failed('BADDATA'))
    expect((await t.call('GET', `${P}/`)).json).toEqual({ ...failed('ARGMISSING'), emessage: ["Request argument missing: 'interview_id'"] })
  })
})

describe('B1 read', () => {
  it('returns the record in the offset it was written with; accepts the hyphenated id', async () => {
    const t = setup()
    const id = (await t.create(t.seed.admin, { start_datetime: '2030-01-01T06:30:00+05:30' })).json.interview_id
    const hyphenated = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`.toUpperCase()
    const res = await t.get(hyphenated)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({
      ...ok,
      interview_id: id,
      title: 'Backend interview',
      start_datetime: '2030-01-01T06:30:00+05:30',
      status: 'upcoming',
      candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com', contact_number: '+919876543210', resume_url: null },
      interviewers: [
        { full_name: 'Ivan Interviewer', email_id: 'ivan1@acme.test', feedback_redirect_url: 'https://acme.test/after' },
        { full_name: 'Olga Other', email_id: 'olga@acme.test', feedback_redirect_url: null },
      ],
      eval_params: ['Problem solving', 'Communication'],
    })
    expect((await t.get('not-a-uuid')).json).toEqual(failed('INTERVIEWNOTFOUND'))
    expect((await t.get('0'.repeat(32))).status).toBe(404)
  })
})

describe('B3 update', () => {
  it('replaces the schedule and the interviewers, and re-mints every link', async () => {
    const t = setup()
    const created = (await t.create()).json
    const res = await t.update(created.interview_id, t.seed.admin, {
      title: 'Moved',
      start_datetime: '2030-01-02T09:00:00-05:00',
      interviewers: [{ full_name: 'New', email_id: 'new@acme.test' }],
      eval_params: undefined,
    })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ ...ok, interview_id: created.interview_id })
    expect(Object.keys(res.json.interviewer_interview_links)).toEqual(['new@acme.test'])
    expect(res.json.candidate_interview_link).not.toBe(created.candidate_interview_link)
    const read = (await t.get(created.interview_id)).json
    expect(read).toMatchObject({ title: 'Moved', start_datetime: '2030-01-02T09:00:00-05:00', eval_params: ['Problem solving', 'Communication'] })
    // the old links are revoked, the new ones open the room
    const oldPath = new URL(created.candidate_interview_link).pathname
    expect((await t.call('GET', oldPath)).status).toBe(404)
    const landing = await t.call('GET', new URL(res.json.candidate_interview_link).pathname)
    expect(landing.status).toBe(303)
    expect(landing.headers.get('location')).toBe(`/interviews/room/${created.interview_id}`)
  })

  it.each([
    ['CANDIDATEEMAILUPDATENOTALLOWED', 409, { candidate_details: { full_name: 'C', email_id: 'someone@else.com' } }],
    ['INVALIDINTERVIEWSTARTTIME', 400, { start_datetime: '2029-12-31T23:00:00Z' }],
    ['INTERVIEWERCANDIDATECONFLICT', 400, { interviewers: [{ full_name: 'X', email_id: 'CARA@example.com' }] }],
    ['DUPLICATEINTERVIEWER', 400, { interviewers: [{ full_name: 'X', email_id: 'x@a.io' }, { full_name: 'Y', email_id: 'X@a.io' }] }],
    ['INVALIDPHONENUMBER', 400, { candidate_details: { full_name: 'C', email_id: 'cara@example.com', contact_number: '+91 12' } }],
    ['INVALIDCOUNTRYCODE', 400, { candidate_details: { full_name: 'C', email_id: 'cara@example.com', contact_number: '98765 43210' } }],
    ['INVALIDURL', 400, { interviewers: [{ full_name: 'X', email_id: 'x@a.io', feedback_redirect_url: 'htp:/x' }] }],
  ])('%s (%i)', async (code, status, over) => {
    const t = setup()
    const id = (await t.create()).json.interview_id
    const before = t.deps.db.select().from(interviews).get()
    const res = await t.update(id, t.seed.admin, over)
    expect([res.status, res.json]).toEqual([status, failed(code)])
    expect(t.deps.db.select().from(interviews).get()).toEqual(before)
  })

  it('accepts the case-changed candidate e-mail and a start within the grace period', async () => {
    const t = setup()
    const id = (await t.create()).json.interview_id
    const res = await t.update(id, t.seed.admin, {
      start_datetime: new Date(t.deps.now().getTime() - 30_000).toISOString(),
      candidate_details: { full_name: 'C', email_id: 'Cara@Example.com' },
    })
    expect(res.status).toBe(200)
  })

  it('refuses to update or delete an interview that has ended (409)', async () => {
    const t = setup()
    const id = (await t.create()).json.interview_id
    t.deps.advance(4 * H) // start + 1 h + max duration 2 h has passed
    expect((await t.report(id)).json.status).toBe('completed')
    const res = await t.update(id, t.seed.admin, { start_datetime: new Date(t.deps.now().getTime() + H).toISOString() })
    expect([res.status, res.json]).toEqual([409, failed('ENDEDINTERVIEWUPDATIONDENIED')])
    expect(await t.del(id)).toMatchObject({ status: 409, json: failed('ENDEDINTERVIEWDELETIONDENIED') })
  })

  it('an ongoing interview moved later stays ongoing (status never goes back)', async () => {
    const t = setup()
    const id = (await t.create()).json.interview_id
    t.deps.advance(H + 60_000)
    expect((await t.get(id)).json.status).toBe('ongoing')
    await t.update(id, t.seed.admin, { start_datetime: new Date(t.deps.now().getTime() + 5 * H).toISOString() })
    expect((await t.get(id)).json.status).toBe('ongoing')
  })
})

describe('B5 delete', () => {
  it('deletes: every later call answers INTERVIEWNOTFOUND and the links stop working', async () => {
    const t = setup()
    const created = (await t.create()).json
    const id = created.interview_id
    const res = await t.del(id)
    expect([res.status, res.json]).toEqual([200, ok])
    for (const r of [await t.get(id), await t.report(id), await t.del(id), await t.update(id)]) {
      expect([r.status, r.json]).toEqual([404, failed('INTERVIEWNOTFOUND')])
    }
    expect((await t.call('GET', new URL(created.candidate_interview_link).pathname)).status).toBe(404)
  })
})

describe('B4 report', () => {
  async function completedWithFeedback(evalParams?: string[]) {
    const t = setup()
    const id = (await t.create(t.seed.admin, { eval_params: evalParams })).json.interview_id
    t.deps.db
      .insert(interviewFeedback)
      .values({
        interviewId: id,
        interviewerEmail: 'ivan1@acme.test',
        result: 'STRONG_YES',
        ratings: { QUESTION_UNDERSTANDABILITY: { rating: 4, comment: 'quick' }, CODE_QUALITY: { rating: 2, comment: 'messy' } },
        evalParamsRatings: evalParams?.length ? { [evalParams[0]]: { rating: 5, comment: 'great' } } : {},
        submittedAt: t.deps.now(),
      })
      .run()
    return { t, id }
  }

  it('upcoming and ongoing: interviewer_feedbacks is null; start/end in the client offset', async () => {
    const { t, id } = await completedWithFeedback()
    let res = await t.report(id)
    expect(res.json).toEqual({
      ...ok,
      interview_id: id,
      start_datetime: '2030-01-01T01:00:00Z',
      end_datetime: '2030-01-01T03:00:00Z',
      status: 'upcoming',
      interviewer_feedbacks: null,
    })
    t.deps.advance(H)
    res = await t.report(id)
    expect(res.json).toMatchObject({ status: 'ongoing', interviewer_feedbacks: null })
  })

  it('completed: the super-admin sees every interviewer, unsubmitted feedback all null', async () => {
    const { t, id } = await completedWithFeedback(['Problem solving', 'Communication'])
    t.deps.advance(3 * H)
    const res = await t.report(id)
    expect(res.json.status).toBe('completed')
    expect(res.json.interviewer_feedbacks['olga@acme.test']).toEqual({ result: null, ratings: null, eval_params_ratings: null })
    const ivan = res.json.interviewer_feedbacks['ivan1@acme.test']
    expect(ivan.result).toBe('STRONG_YES')
    // each key has its own labels (feedback.ts); eval_params share the generic ones
    expect(ivan.ratings.QUESTION_UNDERSTANDABILITY).toEqual({
      rating: '4',
      comment: 'quick',
      verbose_name: 'Question understandability',
      rating_message: 'Understood it with minor hints',
    })
    expect(ivan.ratings.CODE_QUALITY).toMatchObject({ rating: '2', rating_message: 'Unformatted code' })
    expect(ivan.ratings.DEBUGGABILITY).toEqual({ rating: null, comment: null, verbose_name: 'Debuggability', rating_message: null })
    expect(Object.keys(ivan.ratings)).toEqual(['QUESTION_UNDERSTANDABILITY', 'DEBUGGABILITY', 'CODE_QUALITY', 'SOLUTION_EXECUTION'])
    expect(ivan.eval_params_ratings['Problem solving']).toEqual({ rating: '5', comment: 'great', verbose_name: 'Problem solving', rating_message: 'Excellent' })
    expect(Object.keys(ivan.eval_params_ratings)).toEqual(['Problem solving', 'Communication'])
  })

  it('completed: a member sees only their own feedback; the filter narrows it', async () => {
    const { t, id } = await completedWithFeedback()
    t.deps.advance(3 * H)
    const member = await t.report(id, t.seed.member)
    expect(Object.keys(member.json.interviewer_feedbacks)).toEqual(['ivan1@acme.test'])
    expect(member.json.interviewer_feedbacks['ivan1@acme.test'].eval_params_ratings).toEqual({})
    const filtered = await t.report(id, t.seed.admin, { filters: { interviewer_emails: ['OLGA@acme.test'] } })
    expect(Object.keys(filtered.json.interviewer_feedbacks)).toEqual(['olga@acme.test'])
    const memberFiltered = await t.report(id, t.seed.member, { filters: { interviewer_emails: ['olga@acme.test'] } })
    expect(memberFiltered.json.interviewer_feedbacks).toEqual({})
  })
})

describe('documentation', () => {
  it('docs/api/interviews.md documents the HTTP status of every ecode, as the mapper answers it', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api', 'interviews.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## HTTP status of each ecode'))
    const documented = Object.fromEntries([...section.matchAll(/^\| ([A-Z]+) \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]))
    expect(documented).toEqual(envelopeStatus)
  })

  it('the OpenAPI document lists B1–B5', async () => {
    const t = setup()
    const doc = (await t.call('GET', '/openapi.json')).json
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([`${P}/`, `${P}/{interview_id}/`, `${P}/report/`, `${P}/delete/`])
    )
    expect(doc.paths[`${P}/`].post.responses['402']).toBeDefined()
  })
})
