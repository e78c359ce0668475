// OpenAPI descriptions of the similarity routes, attached with documented() (http/route-docs.ts).
import { z } from 'zod'
import type { ApiDocs } from '../http/openapi.ts'
import { ErrorReply } from '../hackerearth/schemas.ts'
import type { RouteDoc } from '../http/route-docs.ts'
import { SimilarityAccepted, SimilarityReport, SimilarityRequest } from './schemas.ts'

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const errors = (codes: Record<number, string>) =>
  Object.fromEntries(Object.entries(codes).map(([code, description]) => [code, { description, content: json(ErrorReply) }]))
const headers = z.object({ 'client-secret': z.string().meta({ description: 'The client secret (or client_secret in the body or query).' }) })

export const similarityDocs = {
  create: {
    tags: ['similarity'],
    summary: 'Ask for a similarity report (Dolos) over the submissions to a problem, or a list of he_ids; computed in the background.',
    trailingSlash: true,
    request: { headers, body: { content: json(SimilarityRequest), required: true } },
    responses: {
      200: { description: 'Queued', content: json(SimilarityAccepted) },
      ...errors({
        400: 'ArgumentMissingError, InvalidArgumentError (both or neither of problem_id and he_ids, mixed languages, fewer than two or too many submissions), LanguageNotSupportedError',
        401: 'UnregisteredClientError',
        404: "NotFoundError: an unknown problem_id or he_id (another client's included)",
        413: 'PayloadTooLargeError (template)',
      }),
    },
  },
  get: {
    tags: ['similarity'],
    summary: 'A similarity report: status and progress, then the pairs, most similar first, with their matching fragments.',
    trailingSlash: true,
    request: { headers, params: z.object({ reportId: z.string() }) },
    responses: { 200: { description: 'The report', content: json(SimilarityReport) }, ...errors({ 401: 'UnregisteredClientError', 404: "NotFoundError (also for another client's report)" }) },
  },
} satisfies Record<string, RouteDoc>

export const similarityApi: ApiDocs = {
  overview: '**Similarity reports**: which submissions to a problem look copied (`/v4/partner/code-evaluation/similarity`)',
  pages: ['docs/api/similarity.md'],
  tags: [{ name: 'similarity', description: 'Similarity reports: which submissions to a problem look copied, with a report page.', page: 'docs/api/similarity.md' }],
}
