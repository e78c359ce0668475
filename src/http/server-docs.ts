// The OpenAPI descriptions of the server's own routes (/, /health, /openapi.json, /docs, /metrics),
// attached to their handlers with documented() (route-docs.ts).
import { z } from 'zod'
import type { RouteDoc } from './route-docs.ts'

const text = (type: string) => ({ [type]: { schema: z.string() } })

export const serverDocs = {
  root: { tags: ['server'], summary: 'Name and the health URL.', responses: { 200: { description: '{name, health}', content: { 'application/json': { schema: z.object({ name: z.string(), health: z.string() }) } } } } },
  health: {
    tags: ['server'],
    summary:
      'Whether jobs can run, part by part (parts: database writable, disk headroom against server.min_free_disk_mb, the jail daemon answering, sandbox hosts and Redis when configured; last_storage_fault), then the cgroup version the jails use, pool size and busy slots, data directory disk use, and the queue: sqlite, or redis with whether Redis is reachable, the live sandbox hosts and the queued languages no host has.',
    responses: {
      200: { description: 'status ok: jobs can run', content: { 'application/json': { schema: z.object({ status: z.literal('ok'), can_run: z.literal(true) }).loose() } } },
      503: { description: 'status unavailable: a part that jobs need fails (parts.*.detail says which)', content: { 'application/json': { schema: z.object({ status: z.literal('unavailable'), can_run: z.literal(false) }).loose() } } },
    },
  },
  openapi: { tags: ['server'], summary: 'This document.', responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: z.object({}).loose() } } } } },
  docs: { tags: ['server'], summary: 'This document, browsable (Swagger UI served by this server).', responses: { 200: { description: 'HTML page', content: text('text/html') } } },
  metrics: { tags: ['server'], summary: 'Prometheus text format (metrics.enabled; Authorization: Bearer <metrics.token> when set).', responses: { 200: { description: 'metrics', content: text('text/plain') }, 401: { description: 'token missing or wrong' }, 404: { description: 'metrics.enabled = false' } } },
} satisfies Record<string, RouteDoc>
