// v4: POST /v4/partner/code-evaluation/submissions/ answers REQUEST_QUEUED at once; GET …/<he_id>/
// shows REQUEST_QUEUED → CODE_COMPILED → REQUEST_COMPLETED. Bodies as JSON or form data, with or
// without a Content-Type; the secret in the client-secret header or the body.
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { clientSecret } from '../hackerearth/auth.ts'
import { readBody } from '../http/body.ts'
import { documented } from '../http/route-docs.ts'
import { evaluationDocs } from '../hackerearth/openapi-docs.ts'
import { checkTestCount, testsOf } from '../evaluation/graded.ts'
import { linksFor, SUBMISSIONS_PATH, v4Reply, type Submission } from '../hackerearth/replies.ts'
import { parseRequest, V4FilesRequest, V4Request } from '../hackerearth/schemas.ts'
import { acceptSubmission, getSubmission } from '../evaluation/submissions.ts'
import { resolveLanguage } from '../languages.ts'
import { planProgram, ProgramRefused } from '../packages/program-files.ts'

/**
 * A multi-file program (v4 `files`): its bounds, then its entry point and the files beside it as the
 * judges choose them (packages/program-files.ts). The job's own checks (names, the caps) follow at accept.
 */
function programOf(deps: Deps, req: V4Request): { source: string; files?: { name: string; contentBase64: string }[]; compileArgv?: string[] } {
  if (!req.files) return { source: req.source }
  if (req.source) throw new AppError('InvalidArgument', 'give either source or files, not both', { files: req.files.length })
  if (!req.files.length) throw new AppError('ArgumentMissing', 'files is empty: give at least one file', {})
  const l = deps.config.limits
  if (req.files.length > l.files_max_count + 1)
    throw new AppError('PayloadTooLarge', `more than ${l.files_max_count + 1} files (limits.files_max_count + the entry point)`, { files_max_count: l.files_max_count })
  const files = req.files.map((f) => ({ name: f.name, bytes: Buffer.from(f.content, 'utf8') }))
  const total = files.reduce((n, f) => n + f.bytes.length, 0)
  if (total > l.source_max_bytes + l.files_max_bytes)
    throw new AppError('PayloadTooLarge', `the files are larger than ${l.source_max_bytes + l.files_max_bytes} bytes in all`, { source_max_bytes: l.source_max_bytes, files_max_bytes: l.files_max_bytes })
  const lang = resolveLanguage(deps.languages, req.lang)
  // an unknown language is refused by the accept, in its words
  if (!lang) return { source: files[0].bytes.toString('utf8') }
  try {
    const plan = planProgram(files, lang, { entryPoint: req.entry_point || undefined })
    return { source: plan.source, ...(plan.files && { files: plan.files }), ...(plan.compileArgv && { compileArgv: plan.compileArgv }) }
  } catch (err) {
    if (err instanceof ProgramRefused) throw new AppError('InvalidArgument', `files: ${err.message}`, { files: req.files.map((f) => f.name) })
    throw err
  }
}

const notAllowed = (allow: string) => (c: Context) => {
  c.header('Allow', allow)
  throw new AppError('MethodNotAllowed', `${c.req.method} is not allowed here; use ${allow}`)
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
    const body = c.var.body
    // with files, source may be left out (a request without either still says source is needed)
    const withFiles = Array.isArray(body.files) && (body.source === undefined || body.source === null || body.source === '')
    const req = withFiles ? parseRequest(V4FilesRequest, body) : parseRequest(V4Request, body)
    const program = programOf(deps, req as V4Request)
    const row = acceptSubmission(deps, c.var.client, {
      api: 'v4',
      lang: req.lang,
      ...program,
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
