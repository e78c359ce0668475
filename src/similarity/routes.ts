// POST /v4/partner/code-evaluation/similarity/ queues a report and answers at once; GET …/<report_id>/
// shows its progress, then its pairs. v4 credentials and error bodies.
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { clientSecret } from '../hackerearth/auth.ts'
import { readBody } from '../http/body.ts'
import { documented } from '../http/route-docs.ts'
import { parseRequest } from '../hackerearth/schemas.ts'
import { similarityDocs } from './openapi-docs.ts'
import { getReport, reportReply, requestReport, SIMILARITY_PATH, statusUrlOf, webLinkOf } from './reports.ts'
import { SimilarityRequest } from './schemas.ts'

export function similarityRoutes(deps: Deps): Hono {
  const app = new Hono()
  const auth = clientSecret(deps, 'v4')

  // POST /v4/partner/code-evaluation/similarity/
  app.post(SIMILARITY_PATH, readBody(deps.config.server.body_limit_bytes), auth, documented(similarityDocs.create, (c: Context) => {
    const req = parseRequest(SimilarityRequest, c.var.body)
    const row = requestReport(deps, c.var.client, req)
    deps.similarity?.wake()
    return c.json({ report_id: row.publicId, status: row.state, web_link: webLinkOf(deps, row), status_url: statusUrlOf(deps, row), submissions: row.submissionCount, language: row.language })
  }))

  // GET /v4/partner/code-evaluation/similarity/<report_id>/
  app.get(`${SIMILARITY_PATH}/:reportId`, auth, documented(similarityDocs.get, (c: Context) => {
    const row = getReport(deps, c.var.client, c.req.param('reportId') ?? '')
    return c.json(reportReply(deps, row))
  }))
  return app
}
