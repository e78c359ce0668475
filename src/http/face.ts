// A wire protocol's face as the server mounts it: the protocols it registers with the core, its routes
// (with its own error bodies), its own body for a path no route has and for a fault outside its routes,
// how its paths are logged and its part of the OpenAPI document. The shared edge knows no protocol: app.ts mounts whatever
// src/protocols.ts lists.
import type { Hono } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Deps } from '../deps.ts'
import type { AppError } from '../errors.ts'
import type { Client } from '../clients/clients.ts'
import type { Protocol } from '../evaluation/protocols.ts'
import type { ApiDocs } from './openapi.ts'

declare module 'hono' {
  interface ContextVariableMap {
    /** The calling client, set by each face's own authentication (a secret where its protocol keeps it). */
    client: Client
  }
}

export interface Face {
  /** The protocols it registers with the core (their names are stored in submissions.api). */
  protocols: Protocol[]
  /** Adds its routes (and any middleware of its own, such as CORS for browser clients) to the app. */
  mount(app: Hono, deps: Deps): void
  /** The answer to a path no route has, when the path is this face's; undefined: not its. Faces are asked in order. */
  notFound?(path: string): { status: ContentfulStatusCode; body: unknown } | undefined
  /**
   * The answer to an error thrown outside any face's routes (/health, a shared page: our own fault, a
   * full disk) when the path is this face's, as notFound claims paths; undefined: not its.
   */
  unhandled?(e: AppError, path: string): { status: ContentfulStatusCode; body: unknown } | undefined
  /** The path as logs may show it: a secret the protocol carries in its paths hidden. */
  loggablePath?(path: string): string
  /** Its parts of the OpenAPI document (openapi.ts): a line of the overview and its routes' tags, each with its page. */
  docs?: ApiDocs[]
}
