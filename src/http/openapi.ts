// The OpenAPI 3.1 document, built from the areas' zod schemas (the same objects that check requests), so
// the shapes are written once. Each area registers its paths in its own section below.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import { z } from 'zod'
import type { Config } from '../config.ts'
import { ErrorReply, V3Reply, V3Request, V4Reply, V4Request } from '../evaluation/schemas.ts'
import { SUBMISSIONS_PATH } from '../evaluation/replies.ts'
import { Envelope, InterviewEndpoints } from '../interviews/schemas.ts'
import { envelopeStatus } from './error-bodies.ts'

// ── code evaluation ────────────────────────────────────────────────────────────────────────────────

function registerEvaluation(r: OpenAPIRegistry) {
  const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
  const errors = (codes: Record<number, string>) =>
    Object.fromEntries(Object.entries(codes).map(([code, description]) => [code, { description, content: json(ErrorReply) }]))
  const v3Body = { 'application/x-www-form-urlencoded': { schema: V3Request }, 'application/json': { schema: V3Request } }
  for (const [path, what] of [
    ['/code/run/', 'Compile and run (v3; also /v3/code/run/).'],
    ['/code/compile/', 'Compile only (v3; also /v3/code/compile/). The reply has no run_status.'],
  ]) {
    r.registerPath({
      method: 'post',
      path,
      tags: ['v3'],
      summary: what,
      request: { body: { content: v3Body, required: true } },
      responses: {
        200: { description: 'Synchronous: the final reply. async=1: the immediate reply (Compiling..., NA).', content: json(V3Reply) },
        ...errors({ 400: 'ArgumentMissingError, UnregisteredClientError, InvalidArgumentError, LanguageNotSupportedError, QuotaExceededError', 413: 'PayloadTooLargeError', 500: 'InternalServerError (the body is the v3 reply)' }),
      },
    })
  }
  const secretHeader = z.object({ 'client-secret': z.string().meta({ description: 'The client secret (or client_secret in the body).' }) })
  r.registerPath({
    method: 'post',
    path: `${SUBMISSIONS_PATH}/`,
    tags: ['v4'],
    summary: 'Queue a submission (v4). Answers REQUEST_QUEUED at once.',
    request: {
      headers: secretHeader,
      body: { content: { ...json(V4Request), 'application/x-www-form-urlencoded': { schema: V4Request } }, required: true },
    },
    responses: {
      200: { description: 'REQUEST_QUEUED', content: json(V4Reply) },
      ...errors({ 400: 'ArgumentMissingError, InvalidArgumentError, LanguageNotSupportedError', 401: 'UnregisteredClientError', 403: 'QuotaExceededError (errors: quota, current_count)', 413: 'PayloadTooLargeError' }),
    },
    callbacks: {
      status: {
        '{$request.body#/callback}': {
          post: {
            summary: 'Sent at CODE_COMPILED and at REQUEST_COMPLETED; retried with backoff until a 2xx.',
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/V4Reply' } } } },
            responses: { 200: { description: 'Any 2xx ends the delivery.' } },
          },
        },
      },
    },
  })
  r.registerPath({
    method: 'get',
    path: `${SUBMISSIONS_PATH}/{he_id}/`,
    tags: ['v4'],
    summary: 'The state of a submission: REQUEST_QUEUED → CODE_COMPILED → REQUEST_COMPLETED.',
    request: { headers: secretHeader, params: z.object({ he_id: z.uuid() }) },
    responses: { 200: { description: 'The v4 reply', content: json(V4Reply) }, ...errors({ 401: 'UnregisteredClientError', 404: 'NotFoundError' }) },
  })
  r.registerPath({
    method: 'get',
    path: '/output/{code_id}',
    tags: ['v4'],
    summary: 'The raw stdout of a completed submission (the v4 run_status.output URL). No credentials.',
    request: { params: z.object({ code_id: z.string() }) },
    responses: { 200: { description: 'stdout', content: { 'text/plain': { schema: z.string() } } }, ...errors({ 404: 'NotFoundError' }) },
  })
}

// ── interviews ─────────────────────────────────────────────────────────────────────────────────────

function registerInterviews(r: OpenAPIRegistry) {
  const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
  const statuses = new Map<number, string[]>()
  for (const [code, status] of Object.entries(envelopeStatus)) statuses.set(status, [...(statuses.get(status) ?? []), code])
  const failures = Object.fromEntries(
    [...statuses].map(([status, codes]) => [status, { description: `ecode one of ${codes.join(', ')}`, content: json(Envelope) }])
  )
  const id = z.object({ interview_id: z.string().meta({ description: '32 hex characters (hyphenated UUID accepted).' }) })
  for (const e of InterviewEndpoints) {
    r.registerPath({
      method: e.method,
      path: e.path,
      tags: ['interviews'],
      summary: `${e.id} (also under /partner/hackerearth/interviews/). Errors: see the README table.`,
      request: {
        ...('query' in e && { query: e.query }),
        ...(e.path.includes('{interview_id}') && { params: id }),
        ...('body' in e && { body: { content: json(e.body), required: true } }),
      },
      responses: { [e.status]: { description: 'success envelope plus the fields', content: json(e.reply) }, ...failures },
    })
  }
  r.registerPath({
    method: 'get',
    path: '/partner/service/interviews/{interview_id}/resume/',
    tags: ['interviews'],
    summary: "The candidate's stored resume: the signed, expiring resume_url that B1 returns.",
    request: { params: id, query: z.object({ expires: z.string(), signature: z.string() }) },
    responses: { 200: { description: 'the PDF', content: { 'application/pdf': { schema: z.string() } } }, ...failures },
  })
}

// ── the server itself ──────────────────────────────────────────────────────────────────────────────

function registerServer(r: OpenAPIRegistry) {
  const text = (type: string) => ({ [type]: { schema: z.string() } })
  r.registerPath({ method: 'get', path: '/', tags: ['server'], summary: 'Name and the health URL.', responses: { 200: { description: '{name, health}', content: { 'application/json': { schema: z.object({ name: z.string(), health: z.string() }) } } } } })
  r.registerPath({ method: 'get', path: '/health', tags: ['server'], summary: 'Liveness: cgroup version the jails use, pool size and busy slots, data directory disk use.', responses: { 200: { description: 'status ok', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }).loose() } } } } })
  r.registerPath({ method: 'get', path: '/openapi.json', tags: ['server'], summary: 'This document.', responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: z.object({}).loose() } } } } })
  r.registerPath({ method: 'get', path: '/metrics', tags: ['server'], summary: 'Prometheus text format (metrics.enabled; Authorization: Bearer <metrics.token> when set).', responses: { 200: { description: 'metrics', content: text('text/plain') }, 401: { description: 'token missing or wrong' }, 404: { description: 'metrics.enabled = false' } } })
  r.registerPath({ method: 'get', path: '/docs', tags: ['server'], summary: 'This document, browsable (Swagger UI served by this server).', responses: { 200: { description: 'HTML page', content: text('text/html') } } })
  r.registerPath({ method: 'get', path: '/view/{code_id}', tags: ['v3'], summary: 'The v3 web_link page: source, language, status, output (HTML-escaped). No credentials: the 128-bit id is the key.', request: { params: z.object({ code_id: z.string() }) }, responses: { 200: { description: 'HTML page', content: text('text/html') }, 404: { description: 'No such code', content: text('text/html') } } })
}

/**
 * Routes of the app that are not part of the API and so not in the document, each with the reason.
 * A test (openapi.test.ts) fails when a route of the app is neither documented nor listed here.
 */
export const NOT_IN_DOCUMENT: Record<string, string> = {
  'GET /docs/assets/:file': "the docs page's own script and style files",
  'GET /interviews/join/:token': 'the auto-login link a participant clicks (a browser redirect, not an API)',
  'GET /interviews/room/:id': "the interview room's page",
  'GET /interviews/room/:id/events': "the room page's event stream",
  'POST /interviews/room/:id/code': "the room page's own calls (session cookie + CSRF token)",
  'POST /interviews/room/:id/run': "the room page's own calls (session cookie + CSRF token)",
  'POST /interviews/room/:id/feedback': "the room page's own calls (session cookie + CSRF token)",
  'POST /interviews/room/:id/end': "the room page's own calls (session cookie + CSRF token)",
  'GET /admin': "the admin's dashboard (HTML; signed-in session)",
  'POST /admin/login': "the dashboard's sign-in form",
  'POST /admin/logout': "the dashboard's sign-out form",
  'GET /admin/live': "the dashboard's live panel (session cookie)",
  'GET /admin/assets/admin.js': "the dashboard's script",
  'POST /admin/clients': "the dashboard's forms (session cookie + CSRF token)",
  'POST /admin/clients/:id/revoke': "the dashboard's forms (session cookie + CSRF token)",
  'POST /admin/outbox/retry': "the dashboard's forms (session cookie + CSRF token)",
  'POST /admin/outbox/:id/retry': "the dashboard's forms (session cookie + CSRF token)",
  'GET /partner/service/interviews': 'B1 without an interview id: answers ARGMISSING (interview_id)',
  'PUT /partner/service/interviews': 'B3 without an interview id: answers ARGMISSING (interview_id)',
}

/** Paths served under a second prefix too, documented once under the first. */
export const PATH_ALIASES: [alias: string, documented: string][] = [
  ['/v3/code/', '/code/'],
  ['/partner/hackerearth/interviews', '/partner/service/interviews'],
]

export function buildOpenApi(config: Pick<Config, 'server'>) {
  const registry = new OpenAPIRegistry()
  registerServer(registry)
  registerEvaluation(registry)
  registerInterviews(registry)
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Arbiter', version: '0.1.0', description: 'HackerEarth-compatible code evaluation (v3, v4) and interview scheduling.' },
    servers: [{ url: config.server.public_url }],
  })
}
