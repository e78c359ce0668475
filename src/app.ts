// createApp(deps): the shared HTTP edge. Request id, logging, the faces of src/protocols.ts and the
// areas, /health, JSON 404s. It knows no protocol: unknown paths and faults outside the faces' routes
// get the body of the face whose path it is.
import { Hono } from 'hono'
import type { Deps } from './deps.ts'
import { roomRoutes } from './room/routes.ts'
import { AppError } from './errors.ts'
import type { Face } from './http/face.ts'
import { FACES } from './protocols.ts'
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
import { configureBodyBudget } from './http/body-budget.ts'

/** The app with the faces of src/protocols.ts (a test may give others). */
export function createApp(deps: Deps, faces: readonly Face[] = FACES): Hono {
  const app = new Hono({ strict: false })
  // the bytes of unfinished request bodies, bounded per client address and in all (the budgets read at
  // each body: live; the trusted proxies apply after a restart)
  const trustedProxies = new Set(deps.config.server.trusted_proxies)
  configureBodyBudget(() => ({
    perAddress: deps.config.server.body_bytes_in_flight_per_address,
    total: deps.config.server.body_bytes_in_flight,
    trustedProxies,
  }))
  const metrics = deps.metrics ?? createMetrics(deps)
  const loggablePath = (path: string) => faces.reduce((p, face) => face.loggablePath?.(p) ?? p, path)
  /** The answer of the first face that claims the path, if any. */
  const faceAnswer = <T>(ask: (face: Face) => T | undefined) => {
    for (const face of faces) {
      const answer = ask(face)
      if (answer) return answer
    }
    return undefined
  }

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

  // ── the wire protocols (src/protocols.ts): each mounts its routes with its own error bodies ──
  for (const face of faces) face.mount(app, deps)

  // ── the interview room: link landing, page, event stream, editor / run / feedback / end (room onError inside) ──
  app.route('/', internalRoutes("the interview room's pages, its event stream and its own calls (session cookie + CSRF token)", roomRoutes(deps)))

  // GET /openapi.json: derived from the routes themselves (built once, at the first request: every route is declared by then)
  let openapi: ReturnType<typeof buildOpenApi> | undefined
  app.get('/openapi.json', documented(serverDocs.openapi, (c) => c.json((openapi ??= buildOpenApi(deps.config, app, faces.flatMap((face) => face.docs ?? []))))))
  // GET /metrics (metrics.enabled, metrics.token)
  app.route('/', metricsRoute(deps, metrics))
  // ── the admin's dashboard (signed in with a token from `cli admin create`) ──
  app.route('/', internalRoutes("the admin's dashboard (HTML, session cookie + CSRF token)", adminRoutes(deps)))
  // GET /docs: the document above, browsable; GET /docs/pages/…: the pages of docs/ it links
  app.route('/', docsRoutes())
  app.route('/', docsPageRoutes())

  // an unknown path gets the body of the face whose path it is (the first that claims it)
  app.notFound((c) => {
    const answer = faceAnswer((face) => face.notFound?.(c.req.path))
    return answer ? c.json(answer.body as object, answer.status) : c.json({ error: 'no such endpoint' }, 404)
  })
  app.onError((err, c) => {
    const fault = storageAppError(err, deps.log, { method: c.req.method, path: loggablePath(c.req.path) })
    if (fault) c.header('Retry-After', String(fault.data.retry_after))
    else deps.log.error('unhandled', { path: loggablePath(c.req.path), err: String(err), stack: (err as Error).stack })
    const e = fault ?? new AppError('Unexpected', 'something went wrong on our side')
    const answer = faceAnswer((face) => face.unhandled?.(e, c.req.path))
    return answer ? c.json(answer.body as object, answer.status) : c.json({ error: e.code, message: e.detail }, fault ? 503 : 500)
  })
  return app
}
