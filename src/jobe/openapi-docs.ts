// OpenAPI descriptions of the Jobe routes, attached with documented() (http/route-docs.ts).
import { z } from 'zod'
import type { ApiDocs } from '../http/openapi.ts'
import type { RouteDoc } from '../http/route-docs.ts'
import { JobeError, JobeFilePut, JobeLanguages, JobeResult, JobeRunRequest } from './schemas.ts'

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const errors = (codes: Record<number, string>) => Object.fromEntries(Object.entries(codes).map(([code, description]) => [code, { description, content: json(JobeError) }]))
const headers = z.object({ 'x-api-key': z.string().meta({ description: 'An Arbiter client secret (CodeRunner: "Jobe API key").' }) })
const params = z.object({ id: z.string() })
const auth = { 401: 'The client\'s quota is used up', 403: 'Missing or unknown API key' }

export const jobeDocs = {
  languages: {
    tags: ['jobe'],
    summary: 'The languages offered, as [name, version] pairs.',
    request: { headers },
    responses: { 200: { description: 'Languages', content: json(JobeLanguages) }, ...errors({ 403: auth[403] }) },
  },
  runs: {
    tags: ['jobe'],
    summary: 'Run a program and answer when it is done (outcome 21 when it could not start within jobe.wait_timeout_sec).',
    request: { headers, body: { content: json(JobeRunRequest), required: true } },
    responses: {
      200: { description: 'The run', content: json(JobeResult) },
      ...errors({ 400: "Jobe's texts, e.g. Language 'x' is not known", 404: 'One or more of the specified files is missing/unavailable', ...auth }),
    },
  },
  putFile: {
    tags: ['jobe'],
    summary: "Upload a file to the client's own file cache.",
    request: { headers, params, body: { content: json(JobeFilePut), required: true } },
    responses: { 204: { description: 'Stored' }, ...errors({ 400: 'No or bad base64 file_contents', 413: 'Larger than jobe.file_max_bytes', 403: auth[403] }) },
  },
  headFile: {
    tags: ['jobe'],
    summary: 'Whether the client has the file.',
    request: { headers, params },
    responses: { 204: { description: 'Present' }, 404: { description: 'Absent' }, 403: { description: auth[403] } },
  },
} satisfies Record<string, RouteDoc>

export const jobeApi: ApiDocs = {
  overview: '**Jobe**, for Moodle CodeRunner (`/jobe/index.php/restapi`)',
  pages: ['docs/api/jobe.md'],
  tags: [{ name: 'jobe', description: 'The Jobe API, for Moodle CodeRunner.', page: 'docs/api/jobe.md' }],
}
