// HTTP routes of the interview API (B1–B5, also under HackerEarth's /partner/hackerearth/ prefix) and the
// stored resume. Every API reply is the envelope. The links' landing is the room's (src/room/routes.ts).
import { documented, internal } from '../http/route-docs.ts'
import { interviewDocs } from './openapi-docs.ts'
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { parseBoundedJson, rawBody } from '../http/body.ts'
import { envelopeError } from './error-bodies.ts'
import { consumeRate } from '../http/rate-limit.ts'
import { authenticate, type ApiUser } from './accounts.ts'
import { createInterview, deleteInterview, readInterview, reportInterview, resumeFile, updateInterview } from './interviews.ts'
import { argMissing, DeleteRequest, InterviewCreate, InterviewUpdate, readRequest, ReportRequest, success } from './schemas.ts'

export const INTERVIEW_PREFIXES = ['/partner/service/interviews', '/partner/hackerearth/interviews'] as const

const badData = () => new AppError('BADDATA')

/** The body as a JSON object (whatever the Content-Type says); empty = {}; anything else is BADDATA. */
async function readJsonObject(c: Context, limit: number): Promise<Record<string, unknown>> {
  const text = new TextDecoder().decode(await rawBody(c, limit))
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = parseBoundedJson(text)
  } catch {
    // unparseable, or nested deeper than any real request
    throw badData()
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badData()
  return value as Record<string, unknown>
}

function credential(value: unknown, name: string): string {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) throw argMissing(name)
  if (typeof value !== 'string') throw new AppError('AUTHFAILED')
  return value.trim()
}

/**
 * Reads the body (POST, PUT) and checks, in this order: credentials present (ARGMISSING), right
 * (AUTHFAILED) and not revoked (ACCESSERROR), the rate limit, then the company's interview feature.
 */
async function caller(c: Context, deps: Deps, from: 'query' | 'body'): Promise<{ user: ApiUser; body: Record<string, unknown> }> {
  const body = from === 'body' ? await readJsonObject(c, deps.config.server.body_limit_bytes) : {}
  const pick = (name: string) => (from === 'body' && body[name] != null && body[name] !== '' ? body[name] : c.req.query(name))
  const clientId = credential(pick('client_id'), 'client_id')
  const clientSecret = credential(pick('client_secret'), 'client_secret')
  const user = authenticate(deps, clientId, clientSecret)
  const { rate_per_minute: perMinute, rate_per_day: perDay } = deps.config.interviews
  consumeRate(deps, `user:${user.id}`, { perMinute, perDay })
  if (!user.interviewsEnabled) throw new AppError('FEATURENOTAVAILABLE')
  // the request schemas list the credentials too; they may have come from the query string
  return { user, body: { ...body, client_id: clientId, client_secret: clientSecret } }
}

function api(deps: Deps): Hono {
  const r = new Hono()

  // POST /partner/service/interviews/
  r.post('/', documented(interviewDocs.B2, async (c: Context) => {
    const { user, body } = await caller(c, deps, 'body')
    const links = await createInterview(deps, user, readRequest(InterviewCreate, body))
    return c.json({ ...success(), ...links }, 201)
  }))

  // POST /partner/service/interviews/report/
  r.post('/report', documented(interviewDocs.B4, async (c: Context) => {
    const { user, body } = await caller(c, deps, 'body')
    const report = reportInterview(deps, user, readRequest(ReportRequest, body))
    return c.json({ ...success(), ...report })
  }))

  // POST /partner/service/interviews/delete/
  r.post('/delete', documented(interviewDocs.B5, async (c: Context) => {
    const { user, body } = await caller(c, deps, 'body')
    await deleteInterview(deps, user, readRequest(DeleteRequest, body))
    return c.json(success())
  }))

  // GET /partner/service/interviews/<interview_id>/resume/  (the resume_url that B1 returns)
  r.get('/:interview_id/resume', documented(interviewDocs.resume, async (c: Context) => {
    const q = c.req.query()
    const access =
      q.client_id !== undefined || q.client_secret !== undefined
        ? { user: (await caller(c, deps, 'query')).user }
        : { expires: q.expires, signature: q.signature }
    const pdf = await resumeFile(deps, c.req.param('interview_id') ?? '', access)
    return c.body(new Uint8Array(pdf), 200, {
      'content-type': 'application/pdf',
      'content-disposition': 'inline; filename="resume.pdf"',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    })
  }))

  // GET /partner/service/interviews/<interview_id>/
  r.get('/:interview_id', documented(interviewDocs.B1, async (c: Context) => {
    const { user } = await caller(c, deps, 'query')
    const interview = readInterview(deps, user, c.req.param('interview_id') ?? '')
    return c.json({ ...success(), ...interview })
  }))

  // PUT /partner/service/interviews/<interview_id>/
  r.put('/:interview_id', documented(interviewDocs.B3, async (c: Context) => {
    const { user, body } = await caller(c, deps, 'body')
    const links = updateInterview(deps, user, c.req.param('interview_id') ?? '', readRequest(InterviewUpdate, body))
    return c.json({ ...success(), ...links })
  }))

  // GET or PUT without an id
  r.on(['GET', 'PUT'], '/', internal('B1/B3 without an interview id: answers ARGMISSING (interview_id)', () => {
    throw argMissing('interview_id')
  }))

  // any other method or path under the prefix
  r.all('*', () => {
    throw badData()
  })

  r.onError(envelopeError(deps.log))
  return r
}

export function interviewRoutes(deps: Deps): Hono {
  const app = new Hono()
  const r = api(deps)
  for (const prefix of INTERVIEW_PREFIXES) app.route(prefix, r)
  return app
}
