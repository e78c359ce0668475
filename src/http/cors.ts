// CORS for the routes browsers call directly (v4 submissions, their output links). What hono's cors()
// answers, with one difference in how: hono adds `Vary: Origin` after the handler through c.header(),
// which rebuilds a finished reply as a new Response around its body's stream (the reply then goes out
// through a stream reader: ~0.4 ms of the main thread on every v4 request, measured). Here the reply's
// own headers are set in place, as app.ts sets nosniff, and the reply keeps node-server's direct path.
import type { MiddlewareHandler } from 'hono'

export interface CorsOptions {
  /** The Access-Control-Allow-Origin for a request's Origin ('' when it sent none), or null for none. */
  origin: (origin: string) => string | null
  allowMethods: string[]
  allowHeaders: string[]
  /** Seconds a browser may keep a preflight's answer. */
  maxAge: number
}

export function cors(opts: CorsOptions): MiddlewareHandler {
  const methods = opts.allowMethods.join(',')
  const headers = opts.allowHeaders.join(',')
  return async (c, next) => {
    // read per request: the allowed origins change live (SIGHUP)
    const allowOrigin = opts.origin(c.req.header('origin') || '')
    if (c.req.method === 'OPTIONS') {
      const h: Record<string, string> = { 'Access-Control-Max-Age': String(opts.maxAge), 'Access-Control-Allow-Methods': methods, Vary: 'Origin' }
      if (allowOrigin) h['Access-Control-Allow-Origin'] = allowOrigin
      if (headers) {
        h['Access-Control-Allow-Headers'] = headers
        h.Vary = 'Origin, Access-Control-Request-Headers'
      }
      return c.body(null, 204, h)
    }
    await next()
    const h = c.res.headers
    if (allowOrigin) h.set('Access-Control-Allow-Origin', allowOrigin)
    // the answer depends on the Origin (unless every origin is allowed): shared caches must key on it
    if (allowOrigin !== '*') h.append('Vary', 'Origin')
  }
}
