// The OpenAPI 3.1 document, derived from the app's own routes: each handler carries its description
// (route-docs.ts documented(), next to where the route is registered), whose shapes are the zod
// schemas the routes check requests with. Nothing here lists a path: only the document's overview
// and one tag per API, each linking its page in docs/.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import type { Hono } from 'hono'
import type { Config } from '../config.ts'
import { documentedRoutes } from './route-docs.ts'

/**
 * The document's overview (Markdown: Swagger UI renders it at the top of /docs). The API pages are
 * Markdown files in Arbiter's source tree; this server does not serve them, so the links name their
 * path in the repository (relative, as docs/api/README.md explains).
 */
const DESCRIPTION = `Self-hosted code evaluation and interview scheduling. The APIs this server answers, each a tag below with its page:

- **HackerEarth Code Checker v3** (\`/code/run/\`, \`/code/compile/\`, also under \`/v3/\`) and **v4** (\`/v4/partner/code-evaluation/submissions/\`): \`docs/api/hackerearth.md\`
- **Grading and problems**: v4 submissions graded against a stored problem's tests (\`/v4/partner/code-evaluation/problems\`): \`docs/api/grading.md\`
- **Similarity reports**: which submissions to a problem look copied (\`/v4/partner/code-evaluation/similarity\`): \`docs/api/similarity.md\`
- **Jobe**, for Moodle CodeRunner (\`/jobe/index.php/restapi\`): \`docs/api/jobe.md\`
- **Judge0 CE 1.13.1** (\`/judge0\`): \`docs/api/judge0.md\`
- **Piston v2** (\`/piston/api/v2\`): \`docs/api/piston.md\`
- **Interviews** (\`/partner/service/interviews/\`, also under \`/partner/hackerearth/interviews/\`) and the interview room: \`docs/api/interviews.md\`, \`docs/room.md\`

The pages are Markdown files in Arbiter's source tree (docs/ in the repository, and in the checkout this server runs from); this server does not serve them, so each tag's link is that file's path in the repository. How this document is built from the routes: \`docs/api/README.md\`.`

/** One tag per API, as the routes' descriptions name them, with the page that documents it. */
export const API_TAGS: { name: string; description: string; page: string }[] = [
  { name: 'v3', description: 'HackerEarth Code Checker v3: run or compile a program, the answer in the reply.', page: 'docs/api/hackerearth.md' },
  { name: 'v4', description: 'HackerEarth Code Checker v4: queued submissions, a callback or polling for the result.', page: 'docs/api/hackerearth.md' },
  { name: 'problems', description: 'Problems: stored test sets and checkers that v4 submissions are graded against.', page: 'docs/api/grading.md' },
  { name: 'similarity', description: 'Similarity reports: which submissions to a problem look copied, with a report page.', page: 'docs/api/similarity.md' },
  { name: 'jobe', description: 'The Jobe API, for Moodle CodeRunner.', page: 'docs/api/jobe.md' },
  { name: 'Judge0 CE', description: 'The Judge0 CE 1.13.1 API under /judge0.', page: 'docs/api/judge0.md' },
  { name: 'piston', description: 'The Piston v2 API under /piston.', page: 'docs/api/piston.md' },
  { name: 'interviews', description: 'Interviews (B1–B5): schedule, read, change, report on and delete them; their links open the interview room (docs/room.md).', page: 'docs/api/interviews.md' },
  { name: 'server', description: 'The server itself: health, metrics, this document.', page: 'docs/api/README.md' },
]

export function buildOpenApi(config: Pick<Config, 'server'>, app: Hono) {
  const registry = new OpenAPIRegistry()
  for (const route of documentedRoutes(app)) registry.registerPath(route)
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Arbiter', version: '0.1.0', description: DESCRIPTION },
    servers: [{ url: config.server.public_url }],
    tags: API_TAGS.map(({ name, description, page }) => ({ name, description, externalDocs: { description: `${page} in Arbiter's source tree`, url: page } })),
  })
}
