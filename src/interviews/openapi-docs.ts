// The OpenAPI descriptions of B1–B5 and the stored resume, attached to their handlers in routes.ts with
// documented() (http/route-docs.ts); the shapes are the zod schemas the routes read requests with.
import { z } from 'zod'
import type { ApiDocs } from '../http/openapi.ts'
import { envelopeStatus } from './error-bodies.ts'
import type { RouteDoc } from '../http/route-docs.ts'
import { Envelope, InterviewShapes } from './schemas.ts'

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const statuses = new Map<number, string[]>()
for (const [code, status] of Object.entries(envelopeStatus)) statuses.set(status, [...(statuses.get(status) ?? []), code])
const failures = Object.fromEntries([...statuses].map(([status, codes]) => [status, { description: `ecode one of ${codes.join(', ')}`, content: json(Envelope) }]))
const id = z.object({ interview_id: z.string().meta({ description: '32 hex characters (hyphenated UUID accepted).' }) })

function doc(name: keyof typeof InterviewShapes, withId: boolean): RouteDoc {
  const e = InterviewShapes[name]
  return {
    tags: ['interviews'],
    summary: `${name} (also under /partner/hackerearth/interviews/). Errors: the ecode table of docs/api/interviews.md.`,
    trailingSlash: true,
    request: {
      ...('query' in e && { query: e.query }),
      ...(withId && { params: id }),
      ...('body' in e && { body: { content: json(e.body), required: true } }),
    },
    responses: { [e.status]: { description: 'success envelope plus the fields', content: json(e.reply) }, ...failures },
  }
}

export const interviewDocs = {
  B1: doc('B1', true),
  B2: doc('B2', false),
  B3: doc('B3', true),
  B4: doc('B4', false),
  B5: doc('B5', false),
  resume: {
    tags: ['interviews'],
    summary: "The candidate's stored resume: the signed, expiring resume_url that B1 returns.",
    trailingSlash: true,
    request: { params: id, query: z.object({ expires: z.string(), signature: z.string() }) },
    responses: { 200: { description: 'the PDF', content: { 'application/pdf': { schema: z.string() } } }, ...failures },
  },
} satisfies Record<string, RouteDoc>

export const interviewsApi: ApiDocs = {
  overview: '**Interviews** (`/partner/service/interviews/`, also under `/partner/hackerearth/interviews/`) and the interview room',
  pages: ['docs/api/interviews.md', 'docs/room.md'],
  tags: [
    {
      name: 'interviews',
      description: 'Interviews (B1–B5): schedule, read, change, report on and delete them; their links open the interview room (docs/room.md).',
      page: 'docs/api/interviews.md',
    },
  ],
}
