// createApp(deps): the shared HTTP edge. Request id, logging, the area routers, /health, JSON 404s.
import { Hono } from 'hono'
import type { Deps } from '../deps.ts'

export function createApp(deps: Deps): Hono {
  const app = new Hono({ strict: false })

  app.use(async (c, next) => {
    const started = performance.now()
    await next()
    deps.log.debug('http', { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) })
  })

  // GET /
  app.get('/', (c) => c.json({ name: 'Arbiter', health: '/health' }))

  // GET /health
  app.get('/health', (c) => c.json({ status: 'ok', pool: { size: deps.pool.size, busy: deps.pool.busy } }))

  app.notFound((c) => c.json({ message: 'NotFoundError: no such endpoint', errors: {} }, 404))
  app.onError((err, c) => {
    deps.log.error('unhandled', { path: c.req.path, err: String(err), stack: (err as Error).stack })
    return c.json({ message: 'InternalServerError: something went wrong on our side', errors: {} }, 500)
  })
  return app
}
