// A wire protocol's face as the server mounts it: the protocols it registers with the core, its routes
// (with its own error bodies) and, for a path no route has, its own 404 body. The shared edge knows no
// protocol: app.ts mounts whatever src/protocols.ts lists.
import type { Hono } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Deps } from '../deps.ts'
import type { Protocol } from '../evaluation/protocols.ts'

export interface Face {
  /** The protocols it registers with the core (their names are stored in submissions.api). */
  protocols: Protocol[]
  /** Adds its routes (and any middleware of its own, such as CORS for browser clients) to the app. */
  mount(app: Hono, deps: Deps): void
  /** The answer to a path no route has, when the path is this face's; undefined: not its. Faces are asked in order. */
  notFound?(path: string): { status: ContentfulStatusCode; body: unknown } | undefined
}
