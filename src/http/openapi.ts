// The OpenAPI 3.1 document, derived from the app's own routes: each handler carries its description
// (route-docs.ts documented(), next to where the route is registered), whose shapes are the zod
// schemas the routes check requests with. Nothing here lists a path: only the document's overview
// and one tag per API, each linking its page in docs/.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import type { Hono } from 'hono'
import type { Config } from '../config.ts'
import { DOCS_PAGES_PATH } from './docs-pages.ts'
import { documentedRoutes } from './route-docs.ts'

/**
 * The document's overview (Markdown: Swagger UI renders it at the top of /docs). The API pages are
 * Markdown files of docs/, which this server serves as HTML under /docs/pages/ (docs-pages.ts).
 */
const DESCRIPTION = `Self-hosted code evaluation and interview scheduling. The APIs this server answers, each a tag below with its page:

- **HackerEarth Code Checker v3** (\`/code/run/\`, \`/code/compile/\`, also under \`/v3/\`) and **v4** (\`/v4/partner/code-evaluation/submissions/\`): [docs/api/hackerearth.md](/docs/pages/api/hackerearth.md)
- **Grading and problems**: v4 submissions graded against a stored problem's tests (\`/v4/partner/code-evaluation/problems\`): [docs/api/grading.md](/docs/pages/api/grading.md)
- **Similarity reports**: which submissions to a problem look copied (\`/v4/partner/code-evaluation/similarity\`): [docs/api/similarity.md](/docs/pages/api/similarity.md)
- **Jobe**, for Moodle CodeRunner (\`/jobe/index.php/restapi\`): [docs/api/jobe.md](/docs/pages/api/jobe.md)
- **Judge0 CE 1.13.1** (\`/judge0\`): [docs/api/judge0.md](/docs/pages/api/judge0.md)
- **Piston v2** (\`/piston/api/v2\`): [docs/api/piston.md](/docs/pages/api/piston.md)
- **Interviews** (\`/partner/service/interviews/\`, also under \`/partner/hackerearth/interviews/\`) and the interview room: [docs/api/interviews.md](/docs/pages/api/interviews.md), [docs/room.md](/docs/pages/room.md)

The pages are Markdown files of docs/ in Arbiter's source tree, served by this server as HTML under /docs/pages/. How this document is built from the routes: [docs/api/README.md](/docs/pages/api/README.md).`

/** Where this server serves a page of docs/ ('docs/api/jobe.md' → '/docs/pages/api/jobe.md'). */
export const pageUrl = (page: string) => `${DOCS_PAGES_PATH}/${page.replace(/^docs\//, '')}`

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
    tags: API_TAGS.map(({ name, description, page }) => ({ name, description, externalDocs: { description: page, url: pageUrl(page) } })),
  })
}
