// v4: POST /v4/partner/code-evaluation/submissions/ answers REQUEST_QUEUED at once; GET …/<he_id>/
// shows REQUEST_QUEUED → CODE_COMPILED → REQUEST_COMPLETED. Bodies as JSON or form data, with or
// without a Content-Type; the secret in the client-secret header or the body.
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { clientSecret } from '../http/auth.ts'
import { readBody } from '../http/body.ts'
import { documented } from '../http/route-docs.ts'
import { evaluationDocs } from '../hackerearth/openapi-docs.ts'
import { checkTestCount, testsOf } from '../evaluation/graded.ts'
import { linksFor, SUBMISSIONS_PATH, v4Reply, type Submission } from '../hackerearth/replies.ts'
import { parseRequest, V4Request } from '../hackerearth/schemas.ts'
import { acceptSubmission, getSubmission } from '../evaluation/submissions.ts'

const notAllowed = (allow: string) => (c: Context) => {
  c.header('Allow', allow)
  throw new AppError('MethodNotAllowedError', `${c.req.method} is not allowed here; use ${allow}`)
}

export function v4Routes(deps: Deps): Hono {
  const app = new Hono()
  const links = linksFor(deps.config)
  const auth = clientSecret(deps, 'v4')
  const graded = (row: Submission) => (row.checkerJson ? testsOf(deps.db, row.id) : undefined)

  // POST /v4/partner/code-evaluation/submissions/
  app.post(SUBMISSIONS_PATH, readBody(deps.config.server.body_limit_bytes), auth, documented(evaluationDocs.v4Submit, (c: Context) => {
    // the count first: validating each of ~60,000 test cases before refusing them would hold the loop
    checkTestCount(deps.config, c.var.body.test_cases)
    const req = parseRequest(V4Request, c.var.body)
    const row = acceptSubmission(deps, c.var.client, {
      api: 'v4',
      lang: req.lang,
      source: req.source,
      input: req.input,
      timeLimit: req.time_limit,
      memoryLimit: req.memory_limit,
      id: req.id,
      context: req.context,
      callback: req.callback,
      tests: req.test_cases,
      problemId: req.problem_id,
      checker: req.checker,
      stopOnFirstFailure: req.stop_on_first_failure,
    })
    return c.json(v4Reply(row, links, undefined, graded(row)))
  }))
  app.all(SUBMISSIONS_PATH, notAllowed('POST'))

  // GET /v4/partner/code-evaluation/submissions/<he_id>/
  app.get(`${SUBMISSIONS_PATH}/:heId`, auth, documented(evaluationDocs.v4Status, (c: Context) => {
    const row = getSubmission(deps, c.var.client, c.req.param('heId') ?? '')
    return c.json(v4Reply(row, links, undefined, graded(row)))
  }))
  app.all(`${SUBMISSIONS_PATH}/:heId`, notAllowed('GET'))
  return app
}
