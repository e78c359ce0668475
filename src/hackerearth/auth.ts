// HackerEarth's credentials: clientSecret() for the code-evaluation API (v3 body field, v4 header) → c.var.client.
import type { MiddlewareHandler } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { findClientBySecret } from '../clients/clients.ts'

/** The API version asking: they look for the secret in different places and answer its absence differently. */
export type HackerEarthVersion = 'v3' | 'v4'

const asSecret = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '')

/**
 * v3: the form field client_secret (the spec's errors name it). v4: the `client-secret` header (any case,
 * spaces trimmed), else client_secret in the body or the query, since clients written against v3 send it
 * there. Runs after readBody() on POST routes.
 */
export function clientSecret(deps: Pick<Deps, 'db'>, family: HackerEarthVersion): MiddlewareHandler {
  return async (c, next) => {
    const body = c.get('body') ?? {}
    const header = asSecret(c.req.header('client-secret'))
    const secret =
      family === 'v3'
        ? asSecret(body.client_secret) || header
        : header || asSecret(body.client_secret) || asSecret(c.req.query('client_secret'))
    if (!secret) {
      if (family === 'v3') throw new AppError('ArgumentMissing', 'client_secret is needed!')
      throw new AppError('UnknownClient', 'Client does not exist')
    }
    const client = findClientBySecret(deps.db, secret)
    if (!client) {
      // v3 names the secret it was sent (spec table A), masked; v4 answers with an empty errors object.
      throw new AppError('UnknownClient', 'Client does not exist', family === 'v3' ? { client_secret: masked(secret) } : {})
    }
    c.set('client', client)
    await next()
  }
}

/**
 * The spec's v3 reply names the client_secret sent; it is shown masked (its first 4 characters), never
 * whole: a revoked secret, or one meant for another server, must not travel back through logs and proxies.
 */
export function masked(secret: string): string {
  return secret.length <= 4 ? '…' : `${secret.slice(0, 4)}…`
}
