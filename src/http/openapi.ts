// The OpenAPI 3.1 document, derived from the app's own routes: each handler carries its description
// (route-docs.ts documented(), next to where the route is registered), whose shapes are the zod
// schemas the routes check requests with. Nothing here lists a path or names an API: each face gives its
// part (its line of the overview, its tags and their pages) through its registration (src/http/face.ts
// `docs`); this file assembles them, in the order given, with the server's own tag.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import type { Hono } from 'hono'
import type { Config } from '../config.ts'
import { DOCS_PAGES_PATH } from './docs-pages.ts'
import { documentedRoutes } from './route-docs.ts'

/** A tag the routes' descriptions carry, with the page of docs/ that documents it. */
export interface ApiTag {
  name: string
  description: string
  page: string
}

/** An API's part of the document, given by the face that serves it (src/http/face.ts `docs`). */
export interface ApiDocs {
  /** Its line of the overview (Markdown: what it is, where it is served); links to its pages follow. */
  overview: string
  /** The pages of docs/ that document it ('docs/api/jobe.md'), linked at the end of its line. */
  pages: string[]
  /** The tags its routes carry. */
  tags: ApiTag[]
}

/** Where this server serves a page of docs/ ('docs/api/jobe.md' → '/docs/pages/api/jobe.md'). */
export const pageUrl = (page: string) => `${DOCS_PAGES_PATH}/${page.replace(/^docs\//, '')}`

/** The tag of the server's own routes (server-docs.ts: /, /health, this document, /docs, /metrics). */
const SERVER_TAG: ApiTag = { name: 'server', description: 'The server itself: health, metrics, this document.', page: 'docs/api/README.md' }

/**
 * The document's overview (Markdown: Swagger UI renders it at the top of /docs): one line per API. The API
 * pages are Markdown files of docs/, which this server serves as HTML under /docs/pages/ (docs-pages.ts).
 */
const overview = (parts: readonly ApiDocs[]) => `Self-hosted code evaluation and interview scheduling. The APIs this server answers, each a tag below with its page:

${parts.map((p) => `- ${p.overview}: ${p.pages.map((page) => `[${page}](${pageUrl(page)})`).join(', ')}`).join('\n')}

The pages are Markdown files of docs/ in Arbiter's source tree, served by this server as HTML under /docs/pages/. How this document is built from the routes: [docs/api/README.md](${pageUrl(SERVER_TAG.page)}).`

/** The document of the app's documented routes, with the faces' parts (a part given twice, as by two faces that share it, counts once). */
export function buildOpenApi(config: Pick<Config, 'server'>, app: Hono, given: readonly ApiDocs[] = []) {
  const parts = [...new Set(given)]
  const registry = new OpenAPIRegistry()
  for (const route of documentedRoutes(app)) registry.registerPath(route)
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Arbiter', version: '0.1.0', description: overview(parts) },
    servers: [{ url: config.server.public_url }],
    tags: [...parts.flatMap((p) => p.tags), SERVER_TAG].map(({ name, description, page }) => ({ name, description, externalDocs: { description: page, url: pageUrl(page) } })),
  })
}
