// OpenAPI descriptions of the problems routes, attached with documented() (http/route-docs.ts).
import { z } from 'zod'
import type { ApiDocs } from '../http/openapi.ts'
import { ErrorReply } from '../hackerearth/schemas.ts'
import type { RouteDoc } from '../http/route-docs.ts'
import { ProblemList, ProblemReply, ProblemRequest } from '../problems/schemas.ts'
import { VerifyReply } from './verify-replies.ts'

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const errors = (codes: Record<number, string>) =>
  Object.fromEntries(Object.entries(codes).map(([code, description]) => [code, { description, content: json(ErrorReply) }]))
const headers = z.object({ 'client-secret': z.string().meta({ description: 'The client secret (or client_secret in the query).' }) })
const params = z.object({ problemId: z.string() })

export const problemDocs = {
  create: {
    tags: ['problems'],
    summary: 'Store a problem: a test set (and checker) to grade v4 submissions against by problem_id.',
    trailingSlash: true,
    request: {
      headers,
      body: {
        content: {
          ...json(ProblemRequest),
          'multipart/form-data': { schema: z.object({ name: z.string().optional(), checker: z.string().optional(), time_limit: z.string().optional(), memory_limit: z.string().optional(), tests: z.string().optional().meta({ format: 'binary', description: 'A zip of NAME.in + NAME.out, input/inputNN.txt + output/outputNN.txt, or NN + NN.a (with name).' }), package: z.string().optional().meta({ format: 'binary', description: 'Instead of tests: a Kattis/ICPC problem package, zipped (docs/api/problem-packages.md); the reply has `package`, the import report.' }) }) },
        },
        required: true,
      },
    },
    responses: { 200: { description: 'The stored problem', content: json(ProblemReply) }, ...errors({ 400: 'InvalidArgumentError (with the refused file), LanguageNotSupportedError', 401: 'UnregisteredClientError', 413: 'PayloadTooLargeError' }) },
  },
  list: {
    tags: ['problems'],
    summary: "The client's problems, newest first.",
    trailingSlash: true,
    request: { headers },
    responses: { 200: { description: 'Problems', content: json(ProblemList) }, ...errors({ 401: 'UnregisteredClientError' }) },
  },
  get: {
    tags: ['problems'],
    summary: "One of the client's problems: its metadata and each test's sizes, not the data.",
    trailingSlash: true,
    request: { headers, params },
    responses: { 200: { description: 'The problem', content: json(ProblemReply) }, ...errors({ 401: 'UnregisteredClientError', 404: 'NotFoundError (also for another client\'s problem)' }) },
  },
  delete: {
    tags: ['problems'],
    summary: 'Deletes a problem and the test files no other problem uses. Submissions already made keep their tests.',
    trailingSlash: true,
    request: { headers, params },
    responses: { 200: { description: 'Deleted', content: json(z.object({ problem_id: z.string(), deleted: z.literal(true) })) }, ...errors({ 401: 'UnregisteredClientError', 404: 'NotFoundError' }) },
  },
  verify: {
    tags: ['problems'],
    summary:
      "Verify a problem imported as a package: every submission of its submissions/<verdict>/ folders runs (as this client's asynchronous submissions, one at a time, in the fair queue) and gets a row: file, expected, got, time, pass/fail. Submissions in a language not offered here are listed as such. One verify of a client runs at a time; up to 4 more wait (docs/api/problem-packages.md).",
    trailingSlash: true,
    request: { headers, params },
    responses: {
      202: { description: 'Accepted: queued or running; GET status_url for its progress', content: json(VerifyReply) },
      ...errors({ 400: 'InvalidArgumentError (the problem keeps no package)', 401: 'UnregisteredClientError', 404: "NotFoundError (also for another client's problem)", 429: 'QueueFullError (4 verifies of this client already wait; errors: queued, max_queued, retry_after; header Retry-After)' }),
    },
  },
  verifyStatus: {
    tags: ['problems'],
    summary: "A verify's progress (state, stage, done of total, the rows so far) and, once done, the whole table and whether every submission passed.",
    trailingSlash: true,
    request: { headers, params: z.object({ problemId: z.string(), verifyId: z.string() }) },
    responses: { 200: { description: 'The verify', content: json(VerifyReply) }, ...errors({ 401: 'UnregisteredClientError', 404: "NotFoundError (also another client's verify, or one of another problem)" }) },
  },
} satisfies Record<string, RouteDoc>

export const problemsApi: ApiDocs = {
  overview: "**Grading and problems**: v4 submissions graded against a stored problem's tests (`/v4/partner/code-evaluation/problems`)",
  pages: ['docs/api/grading.md'],
  tags: [{ name: 'problems', description: 'Problems: stored test sets and checkers that v4 submissions are graded against.', page: 'docs/api/grading.md' }],
}
