// GET /metrics: off (404), or behind a bearer token (metrics.token, else the one made at first start:
// closed by default), or open when metrics.open says so; read per request so SIGHUP applies it.
import { Hono, type Context } from 'hono'
import { documented } from '../http/route-docs.ts'
import { serverDocs } from '../http/server-docs.ts'
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Config } from '../config.ts'
import type { Db } from '../storage/db.ts'
import type { Metrics } from './metrics.ts'
import { metricsToken } from './token.ts'

const digest = (s: string) => createHash('sha256').update(s).digest()

export function metricsRoute(deps: { config: Pick<Config, 'metrics'>; db: Db; now: () => Date }, metrics: Metrics): Hono {
  const { config } = deps
  const app = new Hono()
  // GET /metrics
  app.get('/metrics', documented(serverDocs.metrics, async (c: Context) => {
    if (!config.metrics.enabled) return c.json({ message: 'NotFoundError: no such endpoint', errors: {} }, 404)
    const token = metricsToken(config, deps.db, deps.now())
    if (token !== null) {
      const sent = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim() ?? ''
      // hashed first: equal lengths for the constant-time comparison, whatever was sent
      if (!timingSafeEqual(digest(sent), digest(token))) {
        c.header('WWW-Authenticate', 'Bearer realm="metrics"')
        return c.json({ message: 'Unauthorized: /metrics needs its token (`cli metrics token`)', errors: {} }, 401)
      }
    }
    return c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' })
  }))
  return app
}
