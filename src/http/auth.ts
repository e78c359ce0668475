// Credentials at the edge: clientSecret() for the code-evaluation API (v3 body field, v4 header) → c.var.client.
import type { MiddlewareHandler } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { findClientBySecret, type Client } from '../evaluation/clients.ts'

declare module 'hono' {
  interface ContextVariableMap {
    client: Client
  }
}

const asSecret = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '')

/**
 * v3: the form field client_secret (the spec's errors name it). v4: the `client-secret` header (any case,
 * spaces trimmed), else client_secret in the body or the query, since clients written against v3 send it
 * there. Runs after readBody() on POST routes.
 */
export function clientSecret(deps: Pick<Deps, 'db'>, family: 'v3' | 'v4'): MiddlewareHandler {
  return async (c, next) => {
    const body = c.get('body') ?? {}
    const header = asSecret(c.req.header('client-secret'))
    const secret =
      family === 'v3'
        ? asSecret(body.client_secret) || header
        : header || asSecret(body.client_secret) || asSecret(c.req.query('client_secret'))
    if (!secret) {
      if (family === 'v3') throw new AppError('ArgumentMissingError', 'client_secret is needed!')
      throw new AppError('UnregisteredClientError', 'Client does not exist')
    }
    const client = findClientBySecret(deps.db, secret)
    if (!client) {
      // v3 echoes the secret it was sent (spec table A); v4 answers with an empty errors object.
      throw new AppError('UnregisteredClientError', 'Client does not exist', family === 'v3' ? { client_secret: body.client_secret ?? secret } : {})
    }
    c.set('client', client)
    await next()
  }
}
