// The OpenAPI descriptions of the code-evaluation routes, attached to their handlers with documented()
// (http/route-docs.ts); the shapes are the zod schemas the routes check requests with.
import { z } from 'zod'
import type { ApiDocs } from '../http/openapi.ts'
import type { RouteDoc } from '../http/route-docs.ts'
import { ErrorReply, V3Reply, V3Request, V4Reply, V4Request } from './schemas.ts'

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const errors = (codes: Record<number, string>) =>
  Object.fromEntries(Object.entries(codes).map(([code, description]) => [code, { description, content: json(ErrorReply) }]))
const v3Body = { 'application/x-www-form-urlencoded': { schema: V3Request }, 'application/json': { schema: V3Request } }
const v3 = (summary: string): RouteDoc => ({
  tags: ['v3'],
  summary,
  trailingSlash: true,
  request: { body: { content: v3Body, required: true } },
  responses: {
    200: { description: 'Synchronous: the final reply. async=1: the immediate reply (Compiling..., NA).', content: json(V3Reply) },
    ...errors({ 400: 'ArgumentMissingError, UnregisteredClientError, InvalidArgumentError, LanguageNotSupportedError, QuotaExceededError', 413: 'PayloadTooLargeError', 429: 'QueueFullError (errors: queued, max_queued, retry_after; header Retry-After)', 500: 'InternalServerError (the body is the v3 reply)' }),
  },
})
const secretHeader = z.object({ 'client-secret': z.string().meta({ description: 'The client secret (or client_secret in the body).' }) })

export const evaluationDocs = {
  v3Run: v3('Compile and run (v3; also /v3/code/run/).'),
  v3Compile: v3('Compile only (v3; also /v3/code/compile/). The reply has no run_status.'),
  v4Submit: {
    tags: ['v4'],
    summary: 'Queue a submission (v4). Answers REQUEST_QUEUED at once.',
    trailingSlash: true,
    request: {
      headers: secretHeader,
      body: { content: { ...json(V4Request), 'application/x-www-form-urlencoded': { schema: V4Request } }, required: true },
    },
    responses: {
      200: { description: 'REQUEST_QUEUED', content: json(V4Reply) },
      ...errors({ 400: 'ArgumentMissingError, InvalidArgumentError, LanguageNotSupportedError', 401: 'UnregisteredClientError', 403: 'QuotaExceededError (errors: quota, current_count)', 413: 'PayloadTooLargeError', 429: 'QueueFullError (errors: queued, max_queued, retry_after; header Retry-After)' }),
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
  },
  v4Status: {
    tags: ['v4'],
    summary: 'The state of a submission: REQUEST_QUEUED → CODE_COMPILED → REQUEST_COMPLETED.',
    trailingSlash: true,
    request: { headers: secretHeader, params: z.object({ heId: z.uuid().meta({ description: 'The he_id of A3\'s reply.' }) }) },
    responses: { 200: { description: 'The v4 reply', content: json(V4Reply) }, ...errors({ 401: 'UnregisteredClientError', 404: 'NotFoundError' }) },
  },
  output: {
    tags: ['v4'],
    summary: 'The raw stdout of a completed submission (the v4 run_status.output URL). No credentials.',
    request: { params: z.object({ codeId: z.string() }) },
    responses: { 200: { description: 'stdout', content: { 'text/plain': { schema: z.string() } } }, ...errors({ 404: 'NotFoundError' }) },
  },
  testOutput: {
    tags: ['v4'],
    summary: "The raw stdout of one test of a graded submission (result.tests[].output), once that test has run. No credentials.",
    request: { params: z.object({ codeId: z.string(), testId: z.string() }) },
    responses: { 200: { description: 'stdout', content: { 'text/plain': { schema: z.string() } } }, ...errors({ 404: 'NotFoundError' }) },
  },
  view: {
    tags: ['v3'],
    summary: 'The v3 web_link page: source, language, status, output (HTML-escaped). No credentials: the 128-bit id is the key.',
    request: { params: z.object({ codeId: z.string() }) },
    responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: z.string() } } }, 404: { description: 'No such code' } },
  },
} satisfies Record<string, RouteDoc>

/** v3 and v4 in the document's overview, given by both faces (counted once). */
export const hackerEarthApi: ApiDocs = {
  overview: '**HackerEarth Code Checker v3** (`/code/run/`, `/code/compile/`, also under `/v3/`) and **v4** (`/v4/partner/code-evaluation/submissions/`)',
  pages: ['docs/api/hackerearth.md'],
  tags: [
    { name: 'v3', description: 'HackerEarth Code Checker v3: run or compile a program, the answer in the reply.', page: 'docs/api/hackerearth.md' },
    { name: 'v4', description: 'HackerEarth Code Checker v4: queued submissions, a callback or polling for the result.', page: 'docs/api/hackerearth.md' },
  ],
}
