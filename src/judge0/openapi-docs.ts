// The OpenAPI descriptions of the Judge0 CE routes (served under /judge0), attached to their handlers
// with documented(); the shapes are the zod schemas of schemas.ts.
import { z } from 'zod'
import type { ApiDocs } from '../http/openapi.ts'
import type { RouteDoc } from '../http/route-docs.ts'
import { Judge0Error, Judge0FieldErrors, Judge0Language, Judge0StatusReply, Judge0Submission, submissionRequest } from './schemas.ts'

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const auth = z.object({ 'X-Auth-Token': z.string().meta({ description: 'An Arbiter client secret (also accepted as the query parameter X-Auth-Token).' }) })
const unauthenticated = { 401: { description: 'No or an unknown X-Auth-Token (empty body).' } }
const doc = (summary: string, responses: RouteDoc['responses'], extra: Partial<RouteDoc> = {}): RouteDoc => ({
  tags: ['Judge0 CE'],
  summary,
  ...extra,
  request: { headers: auth, ...extra.request },
  responses: { ...responses, ...unauthenticated },
})
const query = (shape: Record<string, z.ZodType>) => z.object(shape)
const base64Param = z.enum(['true', 'false']).optional().meta({ description: 'true: text attributes are Base64 (Ruby encode64 line breaks in replies).' })
const fieldsParam = z.string().optional().meta({ description: 'Comma-separated attributes, or * for all 35; default: token, time, memory, stdout, stderr, compile_output, message, status.' })
// documentation only: the ranges shown are Judge0's defaults within Arbiter's default floors; GET /config_info gives this server's maxima
const RequestDoc = submissionRequest({
  minCpuTimeLimit: 0.1,
  maxCpuTimeLimit: 15,
  maxCpuExtraTime: 5,
  maxWallTimeLimit: 20,
  minMemoryLimit: 16384,
  maxMemoryLimit: 512000,
  maxStackLimit: 128000,
  maxMaxProcessesAndOrThreads: 120,
  maxMaxFileSize: 4096,
  maxNumberOfRuns: 20,
})
const Token = z.object({ token: z.string() })

export const judge0Docs = {
  create: doc(
    'Create a submission (Judge0 CE 1.13.1). Answers its token at once, or with wait=true the finished submission.',
    {
      201: { description: '{token}, or with wait=true the submission (its requested fields; past judge0.wait_max_sec, as it stands, with its token and status).', content: json(z.union([Token, Judge0Submission])) },
      400: { description: 'invalid fields', content: json(Judge0Error) },
      422: { description: 'A refused attribute: {attribute: [messages]}.', content: json(Judge0FieldErrors) },
    },
    {
      request: {
        query: query({ base64_encoded: base64Param, wait: z.enum(['true', 'false']).optional().meta({ description: 'true: answer when the submission is done, or after judge0.wait_max_sec (default 60) with it as it stands (status In Queue or Processing, and its token to poll).' }), fields: fieldsParam }),
        body: { content: json(RequestDoc), required: true },
      },
      callbacks: {
        done: {
          '{$request.body#/callback_url}': {
            put: {
              summary: "Sent once the submission is done: its default attributes, text in Base64 (Judge0's callback).",
              requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Judge0Submission' } } } },
              responses: { 200: { description: 'Any 2xx ends the delivery; otherwise it is retried with backoff.' } },
            },
          },
        },
      },
    }
  ),
  index: doc('List all submissions: an administrator route of Judge0, not served (403).', { 403: { description: 'Always (empty body).' } }),
  show: doc(
    'A submission by token (only the caller\'s own).',
    { 200: { description: 'The requested attributes.', content: json(Judge0Submission) }, 400: { description: 'invalid fields, or text that needs base64_encoded=true', content: json(Judge0Error) }, 404: { description: 'Unknown token (or another client\'s).' } },
    { request: { params: z.object({ token: z.string() }), query: query({ base64_encoded: base64Param, fields: fieldsParam }) } }
  ),
  destroy: doc('Delete a submission: an administrator route of Judge0, not served (403).', { 403: { description: 'Always (empty body).' } }, { request: { params: z.object({ token: z.string() }) } }),
  batchCreate: doc(
    'Create up to 20 submissions at once (wait is not allowed, as in Judge0).',
    {
      201: { description: 'One {token}, {attribute: [messages]} or {error} (quota used up, queue full) per submission, in order.', content: json(z.array(z.union([Token, Judge0Error, Judge0FieldErrors]))) },
      400: { description: 'No submission, or more than the batch size.', content: json(Judge0Error) },
      422: { description: 'No submission was valid.', content: json(z.array(Judge0FieldErrors)) },
      429: { description: 'No submission was stored: the quota refused them. One {token}, {error} or {attribute: [messages]} per submission, in order.', content: json(z.array(z.union([Token, Judge0Error, Judge0FieldErrors]))) },
    },
    { request: { query: query({ base64_encoded: base64Param }), body: { content: json(z.object({ submissions: z.array(RequestDoc) })), required: true } } }
  ),
  batchShow: doc(
    'Several submissions by token (null for an unknown one).',
    { 200: { description: 'In the order of the tokens.', content: json(z.object({ submissions: z.array(Judge0Submission.nullable()) })) }, 400: { description: 'No token, too many, or invalid fields.', content: json(Judge0Error) } },
    { request: { query: query({ tokens: z.string().meta({ description: 'Comma-separated tokens (or a `tokens` header).' }), base64_encoded: base64Param, fields: fieldsParam }) } }
  ),
  languages: doc('The offered languages: Judge0 ids and names with the installed versions.', { 200: { description: '[{id, name}]', content: json(z.array(Judge0Language)) } }),
  languagesAll: doc('The same with is_archived (always false here).', { 200: { description: '[{id, name, is_archived}]', content: json(z.array(Judge0Language)) } }),
  language: doc(
    'One language with its source file and commands.',
    { 200: { description: 'The language.', content: json(Judge0Language) }, 404: { description: 'Not offered here.' } },
    { request: { params: z.object({ id: z.string() }) } }
  ),
  statuses: doc('Statuses 1–14.', { 200: { description: '[{id, description}]', content: json(z.array(Judge0StatusReply)) } }),
  about: doc('Version (1.13.1: the API served) and where to read more.', { 200: { description: '{version, homepage, source_code, maintainer}' } }),
  version: doc('The version, as text.', { 200: { description: '1.13.1' } }),
  isolate: doc("Judge0's `isolate --version` text: here, what programs run in instead (nsjail; there is no isolate).", { 200: { description: 'text/plain' } }),
  license: doc("Judge0's license text: here, a short statement of whose software this server is (not Judge0's; its GPL does not apply).", { 200: { description: 'text/plain' } }),
  configInfo: doc('The defaults and maxima requests are checked against (Judge0 names).', { 200: { description: 'Judge0 configuration attributes.' } }),
  systemInfo: doc("This host's processors and memory, in Judge0's lscpu/free shape.", { 200: { description: 'name → value' } }),
  workers: doc('The queue: waiting submissions and the pool\'s slots.', { 200: { description: '[{queue, size, available, idle, working, paused, failed}]' } }),
  authenticate: doc('Checks X-Auth-Token: 200 when it is a client secret.', { 200: { description: 'Authenticated (empty body).' } }),
  authorize: doc('Judge0 administrator authorization: no administrator token exists here, so 403 after a valid X-Auth-Token.', { 403: { description: 'Always (empty body).' } }),
}

export const judge0Api: ApiDocs = {
  overview: '**Judge0 CE 1.13.1** (`/judge0`)',
  pages: ['docs/api/judge0.md'],
  tags: [{ name: 'Judge0 CE', description: 'The Judge0 CE 1.13.1 API under /judge0.', page: 'docs/api/judge0.md' }],
}
