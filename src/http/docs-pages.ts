// GET /docs/pages/<path>.md: the Markdown pages of docs/ (the checkout this server runs from) as HTML, so
// that /docs and its links reach the API pages on the appliance itself, with no internet. Only the .md
// files found under docs/ at start are served (an allow-list: no path is ever joined from a request);
// the pages are the project's own, rendered by marked, shown under a Content-Security-Policy that runs
// no script at all. Relative links between pages keep working: the URL tree mirrors docs/.
import { Hono, type Context } from 'hono'
import { marked } from 'marked'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { escapeHtml } from './html.ts'
import { internal } from './route-docs.ts'

/** Where the pages are served from. */
export const DOCS_PAGES_PATH = '/docs/pages'

/** The docs/ folder of the checkout (src/http/ and dist/http/ are both two levels below it). */
export const DOCS_DIR = join(import.meta.dirname, '..', '..', 'docs')

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
pre,code{font:14px/1.4 ui-monospace,monospace;background:#f6f8fa}pre{padding:.8rem;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.3rem .6rem;vertical-align:top}
a{color:#0969da}nav{margin-bottom:1rem;font-size:14px}`

/** Every .md file under dir, by its path relative to dir ('api/jobe.md'), found once. */
function pagesUnder(dir: string): Map<string, string> {
  const pages = new Map<string, string>()
  if (!existsSync(dir)) return pages
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue
    const file = join(entry.parentPath, entry.name)
    pages.set(relative(dir, file).split('\\').join('/'), file)
  }
  return pages
}

export function docsPageRoutes(dir = DOCS_DIR): Hono {
  const app = new Hono()
  const pages = pagesUnder(dir)
  const rendered = new Map<string, string>()
  app.get(`${DOCS_PAGES_PATH}/*`, internal("the Markdown pages of docs/, as HTML", (c: Context) => {
    let name: string
    try {
      name = decodeURIComponent(c.req.path.slice(DOCS_PAGES_PATH.length + 1))
    } catch {
      return c.text('no such page', 404) // a malformed escape is no page's name
    }
    const file = pages.get(name)
    if (!file) return c.text('no such page', 404)
    let html = rendered.get(name)
    if (html === undefined) {
      const markdown = readFileSync(file, 'utf8')
      const title = /^# (.+)$/m.exec(markdown)?.[1] ?? name
      html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Arbiter</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body><nav><a href="/docs">API reference (/docs)</a> · <a href="${DOCS_PAGES_PATH}/api/README.md">the API pages</a></nav>
${marked.parse(markdown, { async: false })}</body></html>`
      rendered.set(name, html)
    }
    return c.html(html, 200, { 'content-security-policy': CSP })
  }))
  return app
}
