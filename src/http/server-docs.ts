// The OpenAPI descriptions of the server's own routes (/, /health, /openapi.json, /docs, /metrics),
// attached to their handlers with documented() (route-docs.ts).
import { z } from 'zod'
import type { RouteDoc } from './route-docs.ts'

const text = (type: string) => ({ [type]: { schema: z.string() } })

export const serverDocs = {
  root: { tags: ['server'], summary: 'Name and the health URL.', responses: { 200: { description: '{name, health}', content: { 'application/json': { schema: z.object({ name: z.string(), health: z.string() }) } } } } },
  health: { tags: ['server'], summary: 'Liveness: cgroup version the jails use, pool size and busy slots, data directory disk use, and the queue: sqlite, or redis with whether Redis is reachable, the live sandbox hosts and the queued languages no host has.', responses: { 200: { description: 'status ok', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }).loose() } } } } },
  openapi: { tags: ['server'], summary: 'This document.', responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: z.object({}).loose() } } } } },
  docs: { tags: ['server'], summary: 'This document, browsable (Swagger UI served by this server).', responses: { 200: { description: 'HTML page', content: text('text/html') } } },
  metrics: { tags: ['server'], summary: 'Prometheus text format (metrics.enabled; Authorization: Bearer <metrics.token> when set).', responses: { 200: { description: 'metrics', content: text('text/plain') }, 401: { description: 'token missing or wrong' }, 404: { description: 'metrics.enabled = false' } } },
} satisfies Record<string, RouteDoc>
