// Who is calling the Piston API: the client secret in the base path (/piston/<secret>/api/v2/…, for
// clients that cannot send a header, such as piston-client) or in the Authorization header (aiopyston,
// piston_rspy's with_key); anonymous only when piston.anonymous_client names a client.
import { and, asc, eq, isNull } from 'drizzle-orm'
import type { MiddlewareHandler } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { findClientBySecret, type Client } from '../clients/clients.ts'
import { clients } from '../storage/schema.ts'

/** The secret of an Authorization header: the bare value Piston's clients send, or `Bearer <secret>`. */
const headerSecret = (value: string | undefined) => value?.trim().replace(/^Bearer\s+/i, '').trim() ?? ''

function clientByName(db: Deps['db'], name: string): Client | undefined {
  return db
    .select()
    .from(clients)
    .where(and(eq(clients.name, name), isNull(clients.revokedAt)))
    .orderBy(asc(clients.id))
    .get()
}

export function pistonClient(deps: Pick<Deps, 'db' | 'config'>): MiddlewareHandler {
  return async (c, next) => {
    const secret = c.req.param('secret') ?? headerSecret(c.req.header('authorization'))
    let client: Client | undefined
    if (secret) {
      client = findClientBySecret(deps.db, secret)
      if (!client) throw new AppError('UnknownClient', 'Invalid API key')
    } else {
      const anonymous = deps.config.piston.anonymous_client
      client = anonymous ? clientByName(deps.db, anonymous) : undefined
      if (!client)
        throw new AppError('UnknownClient', 'An API key is required: send it as the Authorization header, or put it in the base URL (/piston/<key>/api/v2)')
    }
    c.set('client', client)
    await next()
  }
}

/** A request path fit for logs: the secret of /piston/<secret>/api/… replaced by '…'. */
export const loggablePath = (path: string) => path.replace(/^\/piston\/(?!api(?:\/|$))[^/]+/, '/piston/…')
