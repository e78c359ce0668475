// v3 (and the legacy v2 paths): POST /code/run/ and /code/compile/, with or without /v3 and the
// trailing slash. Synchronous by default (the request waits for its job); async=1 answers at once with
// "Compiling..." / NA and the final reply goes to `callback` as the form field `payload`.
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { clientSecret } from '../hackerearth/auth.ts'
import { readBody } from '../http/body.ts'
import { documented } from '../http/route-docs.ts'
import { evaluationDocs } from '../hackerearth/openapi-docs.ts'
import { linksFor, v3Reply } from '../hackerearth/replies.ts'
import { parseRequest, V3Request } from '../hackerearth/schemas.ts'
import { evaluateV3 } from '../evaluation/submissions.ts'

export const V3_RUN_PATHS = ['/code/run', '/v3/code/run']
export const V3_COMPILE_PATHS = ['/code/compile', '/v3/code/compile']

const notAllowed = (c: Context) => {
  c.header('Allow', 'POST')
  throw new AppError('MethodNotAllowed', `${c.req.method} is not allowed here; use POST`)
}

export function v3Routes(deps: Deps): Hono {
  const app = new Hono()
  const links = linksFor(deps.config)
  const body = readBody(deps.config.server.body_limit_bytes)
  const auth = clientSecret(deps, 'v3')

  const evaluate = (compileOnly: boolean) => async (c: Context) => {
    const req = parseRequest(V3Request, c.var.body)
    const row = await evaluateV3(deps, c.var.client, {
      api: 'v3',
      compileOnly,
      async: req.async === 1,
      lang: req.lang,
      source: req.source,
      input: req.input,
      timeLimit: req.time_limit,
      memoryLimit: req.memory_limit,
      id: req.id,
      callback: req.callback,
    })
    // our own failure (after retries) is a 500, still with the whole v3 body
    return c.json(v3Reply(row, links), row.failure ? 500 : 200)
  }

  const run = documented(evaluationDocs.v3Run, evaluate(false))
  const compile = documented(evaluationDocs.v3Compile, evaluate(true))
  for (const path of V3_RUN_PATHS) {
    // POST /code/run/ (and /v3/code/run/)
    app.post(path, body, auth, run)
    app.all(path, notAllowed)
  }
  for (const path of V3_COMPILE_PATHS) {
    // POST /code/compile/ (and /v3/code/compile/)
    app.post(path, body, auth, compile)
    app.all(path, notAllowed)
  }
  return app
}
