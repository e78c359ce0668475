// Each route is declared once, where its handler is registered: `documented(doc, handler)` attaches its
// OpenAPI description to the handler, `internal(reason, handler)` says why it is not part of the API.
// The document (openapi.ts) is derived from the app's own routes, so a route cannot exist without
// being described or explicitly left out (openapi.test.ts walks every one).
import type { RouteConfig } from '@asteasolutions/zod-to-openapi'
import type { Hono } from 'hono'
import { COMPOSED_HANDLER } from 'hono/utils/constants'

/** A route's description: zod-to-openapi's RouteConfig less what the route itself gives (method, path). */
export type RouteDoc = Omit<RouteConfig, 'method' | 'path'> & {
  /** Documented as `<path>/` (the spec's spelling of the HackerEarth paths; both are served). */
  trailingSlash?: boolean
}

type Mark = { doc: RouteDoc } | { internal: string }
const marks = new WeakMap<object, Mark>()

export function documented<H extends object>(doc: RouteDoc, handler: H): H {
  marks.set(handler, { doc })
  return handler
}

export function internal<H extends object>(reason: string, handler: H): H {
  marks.set(handler, { internal: reason })
  return handler
}

/** The handler a sub-app's error handler wraps (hono keeps the original under COMPOSED_HANDLER). */
const unwrap = (h: object): object => ((h as Record<string, unknown>)[COMPOSED_HANDLER] as object | undefined) ?? h

const openApiPath = (honoPath: string, trailingSlash?: boolean) => {
  const p = honoPath.replace(/:(\w+)/g, '{$1}')
  return trailingSlash && !p.endsWith('/') ? `${p}/` : p
}

export interface DeclaredRoute {
  method: string
  path: string
  mark: Mark | undefined
}

/** Every route of the app (middleware and the 405 fallbacks, method ALL, left out) with its mark. */
export function declaredRoutes(app: Hono): DeclaredRoute[] {
  const byRoute = new Map<string, DeclaredRoute>()
  for (const r of app.routes) {
    if (r.method === 'ALL') continue
    const key = `${r.method} ${r.path}`
    const mark = marks.get(unwrap(r.handler))
    const seen = byRoute.get(key)
    if (!seen) byRoute.set(key, { method: r.method, path: r.path, mark })
    else if (mark) seen.mark = mark
  }
  return [...byRoute.values()]
}

/** The documented routes as OpenAPI paths; a description shared by two paths (an alias) counts once. */
export function documentedRoutes(app: Hono): RouteConfig[] {
  const seen = new Set<RouteDoc>()
  const out: RouteConfig[] = []
  for (const r of declaredRoutes(app)) {
    if (!r.mark || !('doc' in r.mark) || seen.has(r.mark.doc)) continue
    seen.add(r.mark.doc)
    const { trailingSlash, ...doc } = r.mark.doc
    out.push({ ...doc, method: r.method.toLowerCase() as RouteConfig['method'], path: openApiPath(r.path, trailingSlash) })
  }
  return out
}

/** Marks every route of a sub-app as not part of the API (pages and their own calls), with the reason. */
export function internalRoutes(reason: string, app: Hono): Hono {
  for (const r of app.routes) if (!marks.has(unwrap(r.handler))) marks.set(unwrap(r.handler), { internal: reason })
  return app
}
