// /v4/partner/code-evaluation/problems/: POST (JSON, or multipart with a `tests` zip or a `package`),
// GET list, GET one, DELETE; and a package's verify: POST …/<id>/verify (202), GET …/<id>/verify/<verify_id>. The client-secret header (or client_secret in the query) is checked before a byte of the
// upload is read, and the upload is capped by grading.* while it streams in.
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { clientSecret } from '../hackerearth/auth.ts'
import { parseBoundedJson, rawBody } from '../http/body.ts'
import { documented } from '../http/route-docs.ts'
import { problemDocs } from './problem-docs.ts'
import { createProblem, deleteProblem, getProblem, keepPackage, listProblems, problemReply, type ProblemInput } from '../problems/problems.ts'
import { linksFor } from '../hackerearth/replies.ts'
import { getVerify, requestVerify } from '../evaluation/package-verifies.ts'
import { verifyReply } from './verify-replies.ts'
import { ProblemForm, ProblemRequest } from '../problems/schemas.ts'
import { readTestZip, ZipRefused } from '../problems/zip.ts'
import { jsonUploadCaps, uploadScanner } from '../problems/upload-scan.ts'
import { z } from 'zod'
import { checkValidatorCompiles, importPackage, type ImportReport } from '../packages/import.ts'
import { PackageRefused, readPackageZip } from '../packages/package-files.ts'
import { decideTimeLimit, packageRunOptions } from '../packages/package-runs.ts'

export const PROBLEMS_PATH = '/v4/partner/code-evaluation/problems'

function invalid(error: z.ZodError, body: Record<string, unknown>): never {
  const issue = error.issues[0]
  const field = String(issue.path[0] ?? 'body')
  if (body[field] === undefined || body[field] === '') throw new AppError('ArgumentMissing', `${field} is needed!`)
  throw new AppError('InvalidArgument', `${issue.path.join('.') || field} is not valid (${issue.message})`, {})
}

async function readUpload(deps: Deps, c: Context): Promise<ProblemInput & { report?: ImportReport; zip?: Buffer }> {
  const g = deps.config.grading
  const type = c.req.header('content-type') ?? ''
  const multipart = /^multipart\/form-data/i.test(type)
  // a JSON upload is checked while it streams in (its tests counted, their inputs and outputs measured,
  // everything else bounded): past any cap it is refused at once, before the rest is read or anything
  // is parsed, and the event loop stays free for everyone else. Its body cap is what the largest valid
  // problem takes (docs/api/grading.md, problems); a zip may take total_max_bytes and 1 MiB of overhead.
  const caps = multipart ? undefined : jsonUploadCaps(g, deps.config.limits.source_max_bytes)
  const scan = caps && uploadScanner(caps)
  // the web Request's body, so a problem upload (its client known before a byte is read, each bounded
  // by grading.total_max_bytes) is not in the body budget (http/body-budget.ts; passing the Context
  // would put it there)
  const raw = await rawBody(c.req.raw, caps ? caps.bodyBytes : g.total_max_bytes + (1 << 20), scan && ((chunk) => scan.push(chunk)))
  if (multipart) {
    let form: FormData
    try {
      form = await new Response(raw, { headers: { 'content-type': type } }).formData()
    } catch {
      throw new AppError('InvalidArgument', 'the multipart body does not parse', {})
    }
    // a Kattis/ICPC package carries its own name, limits and validator
    const pkg = form.get('package')
    if (pkg && typeof pkg !== 'string') return readPackageUpload(deps, Buffer.from(await pkg.arrayBuffer()), pkg.name, `client:${c.var.client.id}`)
    const fields: Record<string, unknown> = {}
    for (const [k, v] of form) if (typeof v === 'string' && !(k in fields)) fields[k] = v
    const parsed = ProblemForm.safeParse(fields)
    if (!parsed.success) invalid(parsed.error, fields)
    const zip = form.get('tests')
    if (!zip || typeof zip === 'string') throw new AppError('ArgumentMissing', 'tests is needed! (a zip file)')
    let tests
    try {
      tests = await readTestZip(Buffer.from(await zip.arrayBuffer()), { maxTests: g.max_tests, fileBytes: g.test_max_bytes, totalBytes: g.total_max_bytes })
    } catch (err) {
      if (err instanceof ZipRefused) throw new AppError('InvalidArgument', `tests: ${err.message}`, { tests: err.message })
      throw err
    }
    return { ...parsed.data, tests: tests.map((t) => ({ name: t.name, input: t.input, expected_output: t.output })) }
  }
  let body: Record<string, unknown>
  try {
    body = parseBoundedJson(new TextDecoder().decode(raw)) as Record<string, unknown>
  } catch (err) {
    if (err instanceof AppError) throw err
    throw new AppError('InvalidArgument', 'the body must be JSON, or multipart/form-data with a tests zip', {})
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('InvalidArgument', 'the body must be a JSON object', {})
  const parsed = ProblemRequest.safeParse(body)
  if (!parsed.success) invalid(parsed.error, body)
  return { ...parsed.data, tests: parsed.data.test_cases }
}

/** A Kattis/ICPC problem package (a zip of the problem's folder, or of its contents): its problem and the import's report. */
async function readPackageUpload(deps: Deps, data: Buffer, fileName: string, cacheScope: string): Promise<ProblemInput & { report: ImportReport; zip: Buffer }> {
  const g = deps.config.grading
  try {
    // every file read counts against the problems' caps; a package may hold sources and yaml besides its tests
    const pkg = await readPackageZip(data, { maxFiles: 4 * g.max_tests + 4096, fileBytes: g.test_max_bytes, totalBytes: g.total_max_bytes })
    const imported = importPackage(pkg, { fallbackName: fileName.replace(/\.zip$/i, '') || 'problem', maxTests: g.max_tests })
    // compiled in the pool as a graded job compiles it (and kept by the compile cache for this client's submissions)
    await checkValidatorCompiles(imported, (job) => deps.pool.run(job), cacheScope)
    // no time limit given: the accepted submissions run now (in the pool, as the validator's compile)
    // and the limit problemtools would compute is kept with the problem
    await decideTimeLimit(imported, pkg.files, packageRunOptions(deps.config, deps.languages, imported, pkg.files.has('domjudge-problem.ini'), (job) => deps.pool.run({ ...job, cacheScope })))
    return { ...imported.problem, report: imported.report, zip: data }
  } catch (err) {
    if (err instanceof PackageRefused) throw new AppError(err.tooLarge ? 'PayloadTooLarge' : 'InvalidArgument', `package: ${err.message}`, { file: err.file, rule: err.rule })
    throw err
  }
}

export function problemRoutes(deps: Deps): Hono {
  const app = new Hono()
  const auth = clientSecret(deps, 'v4')
  const one = `${PROBLEMS_PATH}/:problemId`
  // (a trailing slash is the same route: the app is not strict about it)
  app.post(PROBLEMS_PATH, auth, documented(problemDocs.create, async (c: Context) => {
    const { report, zip, ...input } = await readUpload(deps, c)
    const { problem } = createProblem(deps, c.var.client, input)
    // the zip is kept for verifying it later (POST …/<id>/verify), within the client's share
    const kept = zip && keepPackage(deps, c.var.client, problem, zip)
    return c.json({ ...problemReply(problem), ...(report && kept && { package: { ...report, kept: kept.kept, ...(kept.note && { kept_note: kept.note }) } }) })
  }))
  app.get(PROBLEMS_PATH, auth, documented(problemDocs.list, (c: Context) => c.json({ problems: listProblems(deps, c.var.client).map((p) => problemReply(p)) })))
  app.get(one, auth, documented(problemDocs.get, (c: Context) => {
    const { problem, tests } = getProblem(deps, c.var.client, c.req.param('problemId') ?? '')
    return c.json(problemReply(problem, tests))
  }))
  const links = linksFor(deps.config)
  const statusUrl = (problemId: string, verifyId: string) => `${links.publicUrl}${PROBLEMS_PATH}/${problemId}/verify/${verifyId}/`
  app.post(`${one}/verify`, auth, documented(problemDocs.verify, (c: Context) => {
    const problemId = c.req.param('problemId') ?? ''
    const row = requestVerify(deps, c.var.client, problemId)
    return c.json(verifyReply(row, { publicId: problemId }, statusUrl(problemId, row.publicId)), 202)
  }))
  app.get(`${one}/verify/:verifyId`, auth, documented(problemDocs.verifyStatus, (c: Context) => {
    const problemId = c.req.param('problemId') ?? ''
    const row = getVerify(deps, c.var.client, problemId, c.req.param('verifyId') ?? '')
    return c.json(verifyReply(row, { publicId: problemId }, statusUrl(problemId, row.publicId)))
  }))
  app.delete(one, auth, documented(problemDocs.delete, (c: Context) => c.json({ problem_id: deleteProblem(deps, c.var.client, c.req.param('problemId') ?? '').publicId, deleted: true as const })))
  return app
}
