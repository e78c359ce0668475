// The Piston v2 API under /piston: GET runtimes, POST execute, GET packages (install/remove refused),
// each at /piston/api/v2/… (key in the Authorization header) and /piston/<key>/api/v2/… (key in the path).
import { isUtf8 } from 'node:buffer'
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { parseBoundedJson, rawBody } from '../http/body.ts'
import { documented } from '../http/route-docs.ts'
import { loggablePath, pistonClient } from './auth.ts'
import { pistonError } from './errors.ts'
import { executePiston } from './execute.ts'
import { pistonDocs } from './openapi-docs.ts'
import { listRuntimes } from './runtimes.ts'

export const PISTON_BASES = ['/piston/api/v2', '/piston/:secret/api/v2']

/** The body as JSON whatever its Content-Type: piston-client sends text/plain, curl users often none. */
async function jsonBody(c: Context, limit: number): Promise<unknown> {
  const raw = await rawBody(c, limit)
  // its strings reach the jail as their bytes: a body that is not UTF-8 is refused, never patched
  if (!isUtf8(raw)) throw new AppError('InvalidArgument', 'the body is not valid UTF-8')
  const text = new TextDecoder().decode(raw)
  try {
    return parseBoundedJson(text)
  } catch (err) {
    if (err instanceof AppError) throw err
    throw new AppError('InvalidArgument', 'the body is not valid JSON')
  }
}

export function pistonRoutes(deps: Deps): Hono {
  const app = new Hono()
  const auth = pistonClient(deps)
  const runtimes = () => listRuntimes(deps.languages, deps.config)

  const listing = documented(pistonDocs.runtimes, (c: Context) =>
    c.json(runtimes().map((rt) => ({ language: rt.language, version: rt.version, aliases: rt.aliases, ...(rt.runtime ? { runtime: rt.runtime } : {}) })))
  )
  const execute = documented(pistonDocs.execute, async (c: Context) => {
    const body = await jsonBody(c, deps.config.server.body_limit_bytes)
    return c.json(await executePiston(deps, c.var.client, body))
  })
  const packages = documented(pistonDocs.packages, (c: Context) =>
    c.json(runtimes().map((rt) => ({ language: rt.language, language_version: rt.version, installed: true })))
  )
  const refused = documented(pistonDocs.packagesRefused, (c: Context) => {
    c.header('Allow', 'GET')
    throw new AppError('MethodNotAllowed', 'Packages are installed by the administrator (scripts/provision.ts); this server does not install or remove them over the API')
  })

  for (const base of PISTON_BASES) {
    // GET /piston/api/v2/runtimes
    app.get(`${base}/runtimes`, auth, listing)
    // POST /piston/api/v2/execute
    app.post(`${base}/execute`, auth, execute)
    // GET /piston/api/v2/packages
    app.get(`${base}/packages`, auth, packages)
    // POST, DELETE /piston/api/v2/packages
    app.on(['POST', 'DELETE'], `${base}/packages`, auth, refused)
  }
  // anything else under /piston answers in Piston's shape
  app.all('/piston/*', (c: Context) => c.json({ message: `${c.req.method} ${loggablePath(c.req.path)} is not served` }, 404))
  return app.onError(pistonError(deps.log))
}
