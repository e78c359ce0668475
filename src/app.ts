// createApp(deps): the shared HTTP edge. Request id, logging, the area routers, /health, JSON 404s.
import { Hono } from 'hono'
import { cors } from 'hono/cors'
import type { Deps } from './deps.ts'
import { outputRoutes } from './hackerearth/output-routes.ts'
import { v3Routes } from './hackerearth-v3/routes.ts'
import { v4Routes } from './hackerearth-v4/routes.ts'
import { judge0Routes } from './judge0/routes.ts'
import { problemRoutes } from './hackerearth-v4/problem-routes.ts'
import { jobeRoutes } from './jobe/routes.ts'
import { interviewRoutes } from './interviews/routes.ts'
import { roomRoutes } from './room/routes.ts'
import { similarityRoutes } from './similarity/routes.ts'
import { similarityPageRoutes } from './similarity/page-routes.ts'
import { loggablePath } from './piston/auth.ts'
import { pistonRoutes } from './piston/routes.ts'
import { AppError } from './errors.ts'
import { v3Error, v3ErrorBody, v4Error, v4ErrorBody } from './http/error-bodies.ts'
import { detectCgroups } from './sandbox/cgroups.ts'
import { buildOpenApi } from './http/openapi.ts'
import { docsRoutes } from './http/docs.ts'
import { docsPageRoutes } from './http/docs-pages.ts'
import { documented, internalRoutes } from './http/route-docs.ts'
import { serverDocs } from './http/server-docs.ts'
import { adminRoutes } from './admin/routes.ts'
import { createMetrics } from './metrics/metrics.ts'
import { metricsRoute } from './metrics/route.ts'
import { queueHealth } from './sandbox-hosts/health.ts'
import { cachedDiskUsage } from './storage/disk-usage.ts'
import { storageAppError } from './storage/faults.ts'
import { createHealth } from './health.ts'

export function createApp(deps: Deps): Hono {
  const app = new Hono({ strict: false })
  const metrics = deps.metrics ?? createMetrics(deps)

  app.use(async (c, next) => {
    await next()
    // no reply is ever sniffed into another type (a JSON echo of client text must not become HTML)
    c.res.headers.set('X-Content-Type-Options', 'nosniff')
  })
  app.use(metrics.http)
  app.use(async (c, next) => {
    const started = performance.now()
    await next()
    deps.log.debug('http', { method: c.req.method, path: loggablePath(c.req.path), status: c.res.status, ms: Math.round(performance.now() - started) })
  })

  // GET /
  app.get('/', documented(serverDocs.root, (c) => c.json({ name: 'Arbiter', health: '/health' })))

  // GET /health
  const cgroup = detectCgroups().version // which hierarchy the jails use: v1 or v2
  const disk = cachedDiskUsage(deps.config.dataDir)
  const health = createHealth(deps)
  app.get(
    '/health',
    documented(serverDocs.health, async (c) => {
      const report = await health()
      // 503 when jobs cannot run (a monitor or a load balancer needs no more than the status)
      return c.json(
        {
          status: report.can_run ? 'ok' : 'unavailable',
          ...report,
          cgroup,
          pool: { size: deps.pool.size, busy: deps.pool.busy },
          disk: disk(),
          queue: deps.sandboxHosts ? queueHealth(deps.db, deps.sandboxHosts.status()) : { backend: 'sqlite' },
        },
        report.can_run ? 200 : 503
      )
    })
  )

  // ── code evaluation (v3, v4) ──
  // Browser clients call v4 directly: preflights for client-secret + content-type from the allowed origins.
  // read per request: cors_origins changes live on SIGHUP
  const evaluationCors = cors({
    origin: (origin) => {
      const origins = deps.config.server.cors_origins
      return origins.includes('*') ? '*' : origins.includes(origin) ? origin : null
    },
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['client-secret', 'content-type'],
    maxAge: 600,
  })
  app.use('/v4/*', evaluationCors)
  app.use('/output/*', evaluationCors)
  app.route('/', v3Routes(deps).onError(v3Error(deps.log)))
  app.route('/', problemRoutes(deps).onError(v4Error(deps.log)))
  app.route('/', v4Routes(deps).onError(v4Error(deps.log)))
  // ── Judge0 CE 1.13.1 (its own error bodies inside) ──
  app.route('/judge0', judge0Routes(deps))
  app.route('/', outputRoutes(deps).onError(v3Error(deps.log)))
  // ── similarity reports: the v4 API and the report pages behind their links ──
  app.route('/', similarityRoutes(deps).onError(v4Error(deps.log)))
  app.route('/', internalRoutes('the similarity report pages (HTML behind an unguessable link)', similarityPageRoutes(deps)))
  // ── the Jobe API for Moodle CodeRunner (its own error bodies inside) ──
  app.route('/', jobeRoutes(deps))

  // ── Piston v2 under /piston ({message} errors inside) ──
  app.route('/', pistonRoutes(deps))

  // ── interviews: B1–B5 under both prefixes, the stored resume (envelope onError inside) ──
  app.route('/', interviewRoutes(deps))
  // ── the interview room: link landing, page, event stream, editor / run / feedback / end (room onError inside) ──
  app.route('/', internalRoutes("the interview room's pages, its event stream and its own calls (session cookie + CSRF token)", roomRoutes(deps)))

  // GET /openapi.json: derived from the routes themselves (built once, at the first request: every route is declared by then)
  let openapi: ReturnType<typeof buildOpenApi> | undefined
  app.get('/openapi.json', documented(serverDocs.openapi, (c) => c.json((openapi ??= buildOpenApi(deps.config, app)))))
  // GET /metrics (metrics.enabled, metrics.token)
  app.route('/', metricsRoute(deps, metrics))
  // ── the admin's dashboard (signed in with a token from `cli admin create`) ──
  app.route('/', internalRoutes("the admin's dashboard (HTML, session cookie + CSRF token)", adminRoutes(deps)))
  // GET /docs: the document above, browsable; GET /docs/pages/…: the pages of docs/ it links
  app.route('/', docsRoutes())
  app.route('/', docsPageRoutes())

  // a typo under /v4/ still gets the v4 error body: clients read request_status.code on every reply
  app.notFound((c) => {
    const notFound = new AppError('NotFoundError', 'no such endpoint')
    const { status, body } = /^\/v4(\/|$)/.test(c.req.path) ? v4ErrorBody(notFound) : v3ErrorBody(notFound)
    return c.json(body, status)
  })
  app.onError((err, c) => {
    const fault = storageAppError(err, deps.log, { method: c.req.method, path: loggablePath(c.req.path) })
    if (fault) {
      c.header('Retry-After', String(fault.data.retry_after))
      return c.json({ message: fault.message, errors: {} }, 503)
    }
    deps.log.error('unhandled', { path: loggablePath(c.req.path), err: String(err), stack: (err as Error).stack })
    return c.json({ message: 'InternalServerError: something went wrong on our side', errors: {} }, 500)
  })
  return app
}
