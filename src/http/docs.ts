// GET /docs: the OpenAPI document (/openapi.json) rendered by Swagger UI, served from this server's own
// copy of swagger-ui-dist (an appliance may have no internet: no CDN). The page runs only scripts from
// this origin (the initialiser is a file, not inline script), under a strict Content-Security-Policy.
import { Hono, type Context } from 'hono'
import { documented, internal } from './route-docs.ts'
import { serverDocs } from './server-docs.ts'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

/** The only files served from the package: name → content type. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false })
})
`

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Arbiter API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="icon" href="/docs/assets/favicon-32x32.png">
</head><body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/assets/init.js"></script>
</body></html>`

// Swagger UI sets inline styles and shows data: images; it fetches the document from this origin.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

export function docsRoutes(): Hono {
  const app = new Hono()
  const cache = new Map<string, Buffer>()
  const asset = (name: string) => {
    let body = cache.get(name)
    if (!body) cache.set(name, (body = readFileSync(join(DIST, name))))
    return body
  }
  // GET /docs
  app.get('/docs', documented(serverDocs.docs, (c) => c.html(PAGE, 200, { 'content-security-policy': CSP })))
  // GET /docs/assets/<file>: the viewer's files (a fixed list) and its initialiser
  app.get('/docs/assets/:file', internal("the docs page's own script and style files", (c: Context) => {
    const file = c.req.param('file') ?? ''
    if (file === 'init.js') return c.body(INIT, 200, { 'content-type': 'text/javascript; charset=utf-8' })
    const type = ASSETS[file]
    if (!type) return c.notFound()
    return c.body(new Uint8Array(asset(file)), 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' })
  }))
  return app
}
