// Seeded fuzzing of the interview API on the real server: at least 500 malformed bodies per endpoint and
// 500 malformed query strings per endpoint (B1 reads its credentials from the query; B2–B5 fall back to it). No reply may be a 5xx or anything but the envelope, and no partial record may be stored.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type Server } from '../testing/interview-harness.ts'

const P = '/partner/service/interviews'
const CASES = 520
const CONCURRENCY = 8

/** The spec's ecodes (table B): a failure must carry exactly one of them. */
const SPEC_ECODES = new Set([
  'AUTHFAILED', 'ACCESSERROR', 'ARGMISSING', 'BADDATA', 'FEATURENOTAVAILABLE', 'INTERVIEWNOTFOUND', 'RATELIMITEXCEEDED',
  'INVALIDEMAIL', 'BUYCREDITS', 'INTERVIEWERCANDIDATECONFLICT', 'DUPLICATEINTERVIEWER', 'MINONEINTERVIEWERREQUIRED',
  'MAXINTERVIEWERSLIMITCROSSED', 'MAXEVALPARAMSLIMITCROSSED', 'INVALIDRESUMEURL', 'INVALIDFILETYPEERROR', 'INVALIDSIZEERROR',
  'UPLOADERROR', 'INVALIDPHONENUMBER', 'INVALIDCOUNTRYCODE', 'INVALIDURL', 'ENDEDINTERVIEWUPDATIONDENIED',
  'INVALIDINTERVIEWSTARTTIME', 'CANDIDATEEMAILUPDATENOTALLOWED', 'ENDEDINTERVIEWDELETIONDENIED',
])

/** mulberry32: small, fast and seedable, so a failure can be replayed exactly. */
function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]
  return { next, int, pick }
}
type Rng = ReturnType<typeof rng>

const deep = (n: number): unknown => (n === 0 ? 'x' : [deep(n - 1)])

function weird(r: Rng, depth = 0): unknown {
  const atoms: unknown[] = [
    null, true, false, 0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, '', ' ', '\u0000', '😀', 'null', 'true', '0',
    "' OR 1=1 --", '../../etc/passwd', '<script>alert(1)</script>', '%00', '\ud800', 'a'.repeat(5000),
    '2030-02-30T10:00:00Z', '2030-05-01T10:00:00', '2030-05-01T10:00:00+99:99', '+', '+0 000', '+91 98765 43210',
    'x@y', 'ü@ü.de', 'a@b.co', 'http://', 'http://[::1', 'javascript:alert(1)', 'http://127.0.0.1:1/cv.pdf',
    '0'.repeat(32), 'ABCDEF00-0000-0000-0000-000000000000', '__proto__', 'constructor',
  ]
  if (depth > 2) return r.pick(atoms)
  switch (r.int(6)) {
    case 0:
      return Array.from({ length: r.int(8) }, () => weird(r, depth + 1))
    case 1:
      return Array.from({ length: r.int(5) }).reduce<object>(
        (o) => setOwn(o, r.pick(['a', 'full_name', 'email_id', '__proto__', 'constructor', '']), weird(r, depth + 1)),
        {}
      )
    case 2:
      return deep(50 + r.int(500))
    case 3:
      return Array.from({ length: 20 + r.int(100) }, (_, i) => ({ full_name: `n${i}`, email_id: `e${i}@x.io` }))
    default:
      return r.pick(atoms)
  }
}

type Json = Record<string, unknown>

/** All paths of a JSON value (objects and arrays), so a mutation can hit any depth. */
function paths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix]
  // plain loops: a mutation may have replaced an array's own `constructor`
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) out.push(...paths(v[i], [...prefix, i]))
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, k]))
  return out
}

/** An own member even for "__proto__" (plain assignment would change the prototype instead). */
const setOwn = (o: object, key: string | number, value: unknown) =>
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })

const encode = (v: string) => {
  try {
    return encodeURIComponent(v)
  } catch {
    return v // a lone surrogate: sent as it is
  }
}

function mutate(r: Rng, valid: Json): unknown {
  const body = structuredClone(valid) as Json
  const n = 1 + r.int(3)
  for (let i = 0; i < n; i++) {
    const all = paths(body).filter((p) => p.length > 0)
    const path = r.pick(all)
    const parentPath = path.slice(0, -1)
    let parent: any = body
    for (const k of parentPath) parent = parent?.[k]
    if (!parent || typeof parent !== 'object') continue
    const key = path[path.length - 1]
    switch (r.int(4)) {
      case 0:
        if (Array.isArray(parent)) parent.splice(Number(key), 1)
        else delete parent[key]
        break
      case 1:
        setOwn(parent, key, weird(r))
        break
      case 2:
        setOwn(parent, r.pick(['__proto__', 'constructor', 'extra', 'interview_id', 'filters', 'resume_url']), weird(r))
        break
      default:
        if (typeof parent[key] === 'string') setOwn(parent, key, `${parent[key]}${r.pick(['\u0000', ' ', '@', '+', '%', '"', '😀', 'x'.repeat(600)])}`)
        else setOwn(parent, key, weird(r))
    }
  }
  return r.int(20) === 0 ? weird(r) : body
}

/** A raw body that is usually not even JSON. */
function rawBody(r: Rng, valid: Json): string | Uint8Array {
  const text = JSON.stringify(valid)
  switch (r.int(7)) {
    case 0:
      return text.slice(0, r.int(text.length))
    case 1:
      return Uint8Array.from({ length: 1 + r.int(200) }, () => r.int(256))
    case 2:
      return r.pick(['[]', 'null', '"x"', '1e999', 'true', '{}', '{"a":1}garbage', '\ufeff' + text, '{"client_id":{"$gt":""}}'])
    case 3:
      return new URLSearchParams(Object.entries(valid).map(([k, v]): [string, string] => [k, String(v)])).toString()
    case 4:
      return '['.repeat(1 + r.int(200_000))
    case 5:
      return text.replace(/"/g, r.pick(["'", '', '\\"']))
    default:
      return text.replace(/[:,]/, r.pick(['', ';', '::']))
  }
}

const CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain', '', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16']

let s: Server
let creds: { client_id: string; client_secret: string }
let companyId: number
let target: string
const created: string[] = []
// FUZZ_STATS=1 prints how often each endpoint answered each status and ecode (is the fuzz reaching deep?)
const stats = new Map<string, number>()

beforeAll(async () => {
  s = await startServer({
    interviews: { allow_private_resume_hosts: true, rate_per_minute: 1_000_000, rate_per_day: 10_000_000, resume_timeout_ms: 500 },
  })
  const company = await s.cli('companies', 'create', '--name', 'fuzz', '--credits', '100000', '--json')
  companyId = company.id
  creds = await s.cli('users', 'create', '--company', String(company.id), '--email', 'fuzz@fuzz.test', '--super-admin', '--json')
  const res = await s.call('POST', `${P}/`, validCreate())
  target = res.json.interview_id
  created.push(target)
}, 60_000)

afterAll(async () => {
  if (process.env.FUZZ_STATS) console.log([...stats].sort().map(([k, n]) => `${k}: ${n}`).join('\n'))
  await s?.stop()
})

function validCreate(): Json {
  return {
    ...creds,
    title: 'Fuzz target',
    // fixed, so that every run sends exactly the same bytes
    start_datetime: '2099-01-01T10:00:00+05:30',
    candidate_details: { full_name: 'Cara', email_id: 'cara@example.com', contact_number: '+91 98765 43210' },
    interviewers: [
      { full_name: 'Ivan', email_id: 'ivan@fuzz.test', feedback_redirect_url: 'https://fuzz.test/x' },
      { full_name: 'Olga', email_id: 'olga@fuzz.test' },
    ],
    eval_params: ['a', 'b'],
    inform_candidate: true,
    inform_interviewers: false,
    callback_url: 'https://fuzz.test/cb',
  }
}

interface Case {
  method: string
  path: string
  body?: string | Uint8Array
  contentType: string
  /** The credentials can only have come from the query string (the body has none, or blank ones). */
  credsInQuery?: boolean
}

async function send(c: Case) {
  const headers: Record<string, string> = c.contentType ? { 'content-type': c.contentType } : {}
  const res = await fetch(s.base + c.path, { method: c.method, headers, body: c.body as RequestInit['body'] })
  const text = await res.text()
  return { status: res.status, text }
}

/** Runs the cases with bounded concurrency; returns the statuses and ecodes, failing on any 5xx or non-envelope. */
async function runCases(name: string, cases: Case[]) {
  const statuses: number[] = new Array(cases.length)
  const ecodes = new Set<string>()
  let next = 0
  const worker = async () => {
    while (next < cases.length) {
      const i = next++
      const c = cases[i]
      const res = await send(c)
      statuses[i] = res.status
      const where = `${name} case ${i}: ${c.method} ${c.path.slice(0, 200)} ${String(c.body).slice(0, 300)}`
      expect(res.status, where).toBeLessThan(500)
      let json: any
      try {
        json = JSON.parse(res.text)
      } catch {
        throw new Error(`${where}: not JSON: ${res.text.slice(0, 200)}`)
      }
      expect(['FAILED', 'success'], where).toContain(json.mcode)
      expect(Array.isArray(json.ecode) && Array.isArray(json.emessage) && json.ecode.length === json.emessage.length, where).toBe(true)
      if (json.mcode === 'success') expect(json.ecode, where).toEqual([])
      else {
        expect(json.ecode, where).toHaveLength(1)
        expect(SPEC_ECODES.has(json.ecode[0]), `${where}: ecode ${json.ecode[0]}`).toBe(true)
        expect(typeof json.emessage[0], where).toBe('string')
        ecodes.add(json.ecode[0])
      }
      if (res.status === 201) created.push(json.interview_id)
      if (process.env.FUZZ_STATS) stats.set(`${name} ${res.status} ${json.ecode[0] ?? ''}`, (stats.get(`${name} ${res.status} ${json.ecode[0] ?? ''}`) ?? 0) + 1)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  expect(statuses.filter((x) => x !== undefined)).toHaveLength(cases.length)
  return { statuses, ecodes }
}

function bodyCases(r: Rng, method: string, path: string | (() => string), valid: () => Json): Case[] {
  return Array.from({ length: CASES }, () => {
    const v = valid()
    const raw = r.int(4) === 0
    const body = raw ? rawBody(r, v) : JSON.stringify(mutate(r, v))
    return { method, path: typeof path === 'string' ? path : path(), body, contentType: r.pick(CONTENT_TYPES) }
  })
}

const PERCENT_GARBAGE = ['%zz', '%', '%e', '%E0%A4%A', '%ff%fe', '%00', '%C0%AF', '%%', '%2', '%u0041', '%25zz']
const UNICODE = ['😀', 'ü', 'ｃｌｉｅｎｔ', '\u202e', '\u0000', '\ud800', '\u3000', 'ǅ', '\ufeff']
const BRACKET_KEYS = ['client_id[]', 'client_secret[]', 'client_id[0]', 'client_secret[$gt]', 'client_id[a][b]', 'client_id]', 'client_secret[', 'client_id[client_id]']
const OTHER_KEYS = ['', '__proto__', 'constructor', 'CLIENT_ID', 'client_id ', ' client_secret', 'client%5Fid', 'interview_id', 'x']

/**
 * A malformed query string around the user's credentials: keys repeated, dropped or without '=', empty
 * values, broken percent-escapes, long values, unicode, bracketed keys. Written by hand, so broken escapes
 * reach the server as they are.
 */
function junkQuery(r: Rng): string {
  // [key, value or null for a bare key, sent raw (not percent-encoded)]
  const params: [string, string | null, boolean][] = [
    ['client_id', creds.client_id, false],
    ['client_secret', creds.client_secret, false],
  ]
  const some = () => r.int(params.length)
  const n = 1 + r.int(3)
  for (let i = 0; i < n; i++) {
    const which = r.int(9)
    if (which === 0 && params.length) params.splice(some(), 1)
    else if (which === 1 && params.length) {
      // repeated key: the same value, the other credential, junk or nothing
      const [key] = params[some()]
      params.splice(r.int(params.length + 1), 0, [key, r.pick([creds.client_id, creds.client_secret, '', 'x', 'f'.repeat(40), String(weird(r)).slice(0, 500)]), false])
    } else if (which === 2 && params.length) params[some()][1] = ''
    else if (which === 3 && params.length) {
      const p = params[some()]
      const junk = r.pick(PERCENT_GARBAGE)
      p[1] = r.int(2) === 0 ? junk : `${p[1] ?? ''}${junk}`
      p[2] = true
    } else if (which === 4 && params.length) params[some()][1] = r.pick(['x', '0', 'f', creds.client_id]).repeat(r.pick([100, 1000, 4000])).slice(0, 4000)
    else if (which === 5 && params.length) {
      const p = params[some()]
      p[1] = `${p[1] ?? ''}${r.pick(UNICODE)}`
      p[2] = r.int(2) === 0
    } else if (which === 6 && params.length) params[some()][0] = r.pick(BRACKET_KEYS)
    else if (which === 7 && params.length) params[some()][1] = null
    else params.push([r.pick([...OTHER_KEYS, ...BRACKET_KEYS]), String(weird(r)).slice(0, 500), r.int(2) === 0])
  }
  const query = params
    .map(([k, v, raw]) => {
      const key = raw ? k : encode(k)
      return v === null ? key : `${key}=${raw ? v : encode(v)}`
    })
    .join(r.pick(['&', '&', '&&', ';']))
  return query.slice(0, 12_000) // under Node's 16 KB header limit, so the reply is the server's
}

/**
 * B2–B5 with the credentials in a malformed query string: the body (valid but for the credentials)
 * usually has none, or blank ones, so the query's are the ones read; sometimes it has the right ones.
 */
function queryCases(r: Rng, method: string, path: string | (() => string), valid: () => Json): Case[] {
  return Array.from({ length: CASES }, (): Case => {
    const body: Json = valid()
    const where = r.int(6)
    if (where === 0) Object.assign(body, { client_id: '', client_secret: '' })
    else if (where === 1) Object.assign(body, { client_id: null, client_secret: null })
    else if (where !== 2) {
      delete body.client_id
      delete body.client_secret
    }
    const p = typeof path === 'string' ? path : path()
    return { method, path: `${p}?${junkQuery(r)}`, body: JSON.stringify(body), contentType: r.pick(['application/json', '']), credsInQuery: where !== 2 }
  })
}

/** The query's credentials were read: some calls passed with them alone, some were refused over them. */
function expectCredentialsRead(cases: Case[], statuses: number[], ecodes: Set<string>, okStatus: number) {
  expect(cases.some((c, i) => c.credsInQuery && statuses[i] === okStatus)).toBe(true)
  expect(ecodes).toContain('ARGMISSING')
  expect(ecodes).toContain('AUTHFAILED')
}

const junkId = (r: Rng) =>
  r.pick(['%zz', '%', '..%2F..%2Fetc', '%00', 'x'.repeat(2000), '😀', encodeURIComponent('\u0000'), "'--", '0'.repeat(31), '1e3', 'report', 'delete', target.toUpperCase(), target.slice(1)])

describe('fuzzing (seeded)', () => {
  it('B1: malformed query strings and ids', async () => {
    const r = rng(1)
    const cases = Array.from({ length: CASES }, (): Case => {
      const params: [string, string][] = [
        ['client_id', creds.client_id],
        ['client_secret', creds.client_secret],
      ]
      const n = 1 + r.int(3)
      for (let i = 0; i < n; i++) {
        const which = r.int(5)
        if (which === 0) params.splice(r.int(params.length + 1), 1)
        else if (which === 1) params.push([r.pick(['client_id', 'client_secret', 'x', '', '__proto__']), String(weird(r)).slice(0, 3000)])
        else if (which === 2 && params.length) params[r.int(params.length)][1] = String(weird(r)).slice(0, 3000)
        else if (which === 3 && params.length) params[r.int(params.length)][1] += r.pick(['%', '%zz', '%00', '&', '=', '+'])
      }
      // the query is written by hand so that broken percent-escapes reach the server as they are
      const query = params.map(([k, v]) => `${k}=${r.int(3) === 0 ? v : encode(v)}`).join(r.pick(['&', '&&', ';']))
      const id = r.int(3) === 0 ? target : junkId(r)
      return { method: 'GET', path: `${P}/${id}/?${query}`, contentType: '' }
    })
    const { statuses } = await runCases('B1', cases)
    expect(statuses.some((x) => x === 200)).toBe(true)
  }, 120_000)

  it('B2: malformed create bodies', async () => {
    const { statuses } = await runCases('B2', bodyCases(rng(2), 'POST', `${P}/`, validCreate))
    expect(new Set(statuses).size).toBeGreaterThan(2)
  }, 120_000)

  it('B3: malformed update bodies', async () => {
    await runCases('B3', bodyCases(rng(3), 'PUT', () => `${P}/${target}/`, validCreate))
  }, 120_000)

  it('B4: malformed report bodies', async () => {
    const valid = () => ({ ...creds, interview_id: target, filters: { interviewer_emails: ['ivan@fuzz.test'] } })
    await runCases('B4', bodyCases(rng(4), 'POST', `${P}/report/`, valid))
  }, 120_000)

  it('B2: malformed query strings', async () => {
    const cases = queryCases(rng(12), 'POST', `${P}/`, validCreate)
    const { statuses, ecodes } = await runCases('B2 query', cases)
    expectCredentialsRead(cases, statuses, ecodes, 201)
  }, 120_000)

  it('B3: malformed query strings', async () => {
    const cases = queryCases(rng(13), 'PUT', () => `${P}/${target}/`, validCreate)
    const { statuses, ecodes } = await runCases('B3 query', cases)
    expectCredentialsRead(cases, statuses, ecodes, 200)
  }, 120_000)

  it('B4: malformed query strings', async () => {
    const valid = () => ({ ...creds, interview_id: target, filters: { interviewer_emails: ['ivan@fuzz.test'] } })
    const cases = queryCases(rng(14), 'POST', `${P}/report/`, valid)
    const { statuses, ecodes } = await runCases('B4 query', cases)
    expectCredentialsRead(cases, statuses, ecodes, 200)
  }, 120_000)

  it('B5: malformed delete bodies (after every other endpoint, since one may validly delete)', async () => {
    const valid = () => ({ ...creds, interview_id: target, inform_candidate: false, inform_interviewers: true })
    await runCases('B5', bodyCases(rng(5), 'POST', `${P}/delete/`, valid))
  }, 120_000)

  it('B5: malformed query strings (each on its own fresh interview, so a valid call may delete it)', async () => {
    const fresh: string[] = []
    for (let i = 0; i < 4; i++) {
      const res = await s.call('POST', `${P}/`, validCreate())
      expect(res.status).toBe(201)
      fresh.push(res.json.interview_id)
      created.push(res.json.interview_id)
    }
    let n = 0
    const valid = () => ({ ...creds, interview_id: fresh[n++ % fresh.length], inform_candidate: false, inform_interviewers: false })
    const cases = queryCases(rng(15), 'POST', `${P}/delete/`, valid)
    const { statuses, ecodes } = await runCases('B5 query', cases)
    expectCredentialsRead(cases, statuses, ecodes, 200)
  }, 120_000)

  it('left no partial record behind', () => {
    const rows = s.sql<{ id: string; deleted_at: number | null; title: string; eval_params: string; resume_file: string | null }>(
      'select * from interviews where company_id = ?',
      companyId
    )
    // every 201 is one interview and one credit, nothing else was stored or spent
    expect(rows.map((x) => x.id).sort()).toEqual([...created].sort())
    const company = s.sql<{ credits: number }>('select credits from companies where id = ?', companyId)[0]
    expect(company.credits).toBe(100000 - created.length)
    for (const row of rows) {
      const live = s.sql<{ role: string; email: string }>(
        'select role, email from interview_participants where interview_id = ? and revoked_at is null',
        row.id
      )
      if (row.deleted_at) {
        expect(live).toEqual([])
        continue
      }
      const interviewers = live.filter((p) => p.role === 'interviewer').map((p) => p.email.toLowerCase())
      expect(live.filter((p) => p.role === 'candidate')).toHaveLength(1)
      expect(interviewers.length).toBeGreaterThanOrEqual(1)
      expect(interviewers.length).toBeLessThanOrEqual(5)
      expect(new Set(interviewers).size).toBe(interviewers.length)
      expect(row.title.trim()).not.toBe('')
      expect(JSON.parse(row.eval_params).length).toBeLessThanOrEqual(10)
    }
    let files: string[] = []
    try {
      files = readdirSync(join(s.dataDir, 'resumes'))
    } catch {
      // no resume was ever stored
    }
    expect(files.filter((f) => !rows.some((x) => x.resume_file === f))).toEqual([])
  })
})
