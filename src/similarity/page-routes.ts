// GET /similarity/<token> and /similarity/<token>/pairs/<rank>: the report pages. The 128-bit token is
// the only key, as with web_link: whoever holds the link may read the report and the two sources of a
// listed pair (and nothing else).
import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { submissions } from '../storage/schema.ts'
import { notFoundPage, pageHeaders, pairPage, reportPage } from './page.ts'
import { getReportByToken, PAGE_PATH, pairOf, pairsOf } from './reports.ts'

const nonce = () => randomBytes(16).toString('base64')

export function similarityPageRoutes(deps: Deps): Hono {
  const app = new Hono()
  const sourceOf = (clientId: number, publicId: string) =>
    deps.db.select({ source: submissions.source }).from(submissions).where(and(eq(submissions.publicId, publicId), eq(submissions.clientId, clientId))).get()?.source

  // GET /similarity/<token>
  app.get(`${PAGE_PATH}/:token`, (c: Context) => {
    const n = nonce()
    const row = getReportByToken(deps, c.req.param('token') ?? '')
    if (!row) return c.html(notFoundPage(n), 404, pageHeaders(n))
    const base = `${PAGE_PATH}/${row.viewToken}`
    return c.html(reportPage(n, row, row.state === 'completed' ? pairsOf(deps, row.id) : [], base), 200, pageHeaders(n))
  })

  // GET /similarity/<token>/pairs/<rank>
  app.get(`${PAGE_PATH}/:token/pairs/:rank`, (c: Context) => {
    const n = nonce()
    const row = getReportByToken(deps, c.req.param('token') ?? '')
    const rank = Number(c.req.param('rank'))
    const pair = row && Number.isInteger(rank) ? pairOf(deps, row.id, rank) : undefined
    if (!row || !pair) return c.html(notFoundPage(n), 404, pageHeaders(n))
    const base = `${PAGE_PATH}/${row.viewToken}`
    return c.html(pairPage(n, row, pair, sourceOf(row.clientId, pair.leftHeId), sourceOf(row.clientId, pair.rightHeId), base), 200, pageHeaders(n))
  })
  return app
}
