// The OpenAPI 3.1 document, derived from the app's own routes: each handler carries its description
// (route-docs.ts documented(), next to where the route is registered), whose shapes are the zod
// schemas the routes check requests with. Nothing here lists a path.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import type { Hono } from 'hono'
import type { Config } from '../config.ts'
import { documentedRoutes } from './route-docs.ts'

export function buildOpenApi(config: Pick<Config, 'server'>, app: Hono) {
  const registry = new OpenAPIRegistry()
  for (const route of documentedRoutes(app)) registry.registerPath(route)
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Arbiter', version: '0.1.0', description: 'HackerEarth-compatible code evaluation (v3, v4) and interview scheduling.' },
    servers: [{ url: config.server.public_url }],
  })
}
