// The OpenAPI descriptions of the Piston v2 routes, attached with documented() (http/route-docs.ts);
// the shapes are the zod schemas the routes check requests with and build replies from.
import { z } from 'zod'
import type { ApiDocs } from '../http/openapi.ts'
import type { RouteDoc } from '../http/route-docs.ts'
import { PistonErrorBody, PistonExecuteReply, PistonExecuteRequest, PistonPackage, PistonRuntime } from './schemas.ts'

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const errors = (codes: Record<number, string>) =>
  Object.fromEntries(Object.entries(codes).map(([code, description]) => [code, { description, content: json(PistonErrorBody) }]))
const auth = {
  headers: z.object({
    authorization: z.string().optional().meta({ description: 'The client secret (bare, as Piston clients send an API key, or `Bearer <secret>`); or put it in the path: /piston/<secret>/api/v2/…' }),
  }),
}
const authErrors = { 401: 'No key, or an unknown or revoked one ({message})' }

export const pistonDocs = {
  runtimes: {
    tags: ['piston'],
    summary: 'Piston v2: the runtimes served (language, 3-part semver version, aliases, runtime). Also under /piston/<secret>/api/v2/runtimes.',
    request: auth,
    responses: { 200: { description: 'Every runtime', content: json(z.array(PistonRuntime)) }, ...errors(authErrors) },
  },
  execute: {
    tags: ['piston'],
    summary: 'Piston v2: compile and run, answered when done. The body is JSON whatever its Content-Type. Also under /piston/<secret>/api/v2/execute.',
    request: { ...auth, body: { content: json(PistonExecuteRequest), required: true } },
    responses: {
      200: { description: 'The run (and the compile of a compiled language)', content: json(PistonExecuteReply) },
      ...errors({ 400: "Piston's messages, e.g. `python-9 runtime is unknown`", ...authErrors, 413: 'Files larger than limits.source_max_bytes', 429: 'The client’s quota is used up', 503: 'Not started within piston.wait_sec: withdrawn, not run', 500: 'Our own failure' }),
    },
  },
  packages: {
    tags: ['piston'],
    summary: 'Piston v2: the installed packages (one per runtime). Also under /piston/<secret>/api/v2/packages.',
    request: auth,
    responses: { 200: { description: 'Every installed package', content: json(z.array(PistonPackage)) }, ...errors(authErrors) },
  },
  packagesRefused: {
    tags: ['piston'],
    summary: 'Piston v2: installing or removing packages is refused; the administrator provisions toolchains.',
    request: auth,
    responses: errors({ 405: 'Always', ...authErrors }),
  },
} satisfies Record<string, RouteDoc>

export const pistonApi: ApiDocs = {
  overview: '**Piston v2** (`/piston/api/v2`)',
  pages: ['docs/api/piston.md'],
  tags: [{ name: 'piston', description: 'The Piston v2 API under /piston.', page: 'docs/api/piston.md' }],
}
