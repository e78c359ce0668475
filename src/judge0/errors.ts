// The one map from what can go wrong to Judge0's answers: 401 and 403 with empty bodies (Rails'
// `head`), 404 as Rails renders a missing record for JSON, `{error}` bodies for the rest (the
// 422 `{field: [messages]}` bodies are built where requests are checked: validate.ts).
import type { Context, ErrorHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { coreAnswer, isAppError, type CoreErrorCode } from '../errors.ts'
import type { Log } from '../log.ts'
import { storageAppError } from '../storage/faults.ts'

/** Answered by the routes: not an AppError of the core but a Judge0 reply. */
export class Judge0Reply extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown
  ) {
    super(`judge0 ${status}`)
  }
}

export const unauthorized = () => new Judge0Reply(401, null)
export const forbidden = () => new Judge0Reply(403, null)
export const notFound = () => new Judge0Reply(404, { status: 404, error: 'Not Found' })
export const badRequest = (error: string) => new Judge0Reply(400, { error })

/** Every core code's status; a 500 is logged and says no more than "something went wrong on our side". */
const HTTP_STATUS: Record<CoreErrorCode, ContentfulStatusCode> = {
  UnknownClient: 401,
  NotFound: 404,
  QuotaExceeded: 429,
  QueueFull: 429,
  PayloadTooLarge: 413,
  InvalidArgument: 400,
  ArgumentMissing: 400,
  LanguageNotSupported: 422,
  MethodNotAllowed: 405,
  SandboxUnavailable: 503,
  StorageUnavailable: 503,
  Unexpected: 500,
  Internal: 500,
}

export function judge0ErrorReply(thrown: unknown, log: Log, c: Context): Response {
  // a full, read-only or unwritable data disk: "try later", named (logged and counted there)
  const err = storageAppError(thrown, log, { method: c.req.method, path: c.req.path }) ?? thrown
  if (err instanceof Judge0Reply) {
    if (err.body === null) return c.body(null, err.status as 401)
    return c.json(err.body, err.status as ContentfulStatusCode)
  }
  if (isAppError(err)) {
    const status = coreAnswer(HTTP_STATUS, err.code)
    if (status === 401) return c.body(null, 401)
    if (status === 404) return c.json({ status: 404, error: 'Not Found' }, 404)
    if (status === 422) return c.json({ language_id: [err.detail] }, 422)
    // a full queue passes with time: say when to try again (docs/admin/scheduling.md)
    if ((err.code === 'QueueFull' || err.code === 'StorageUnavailable') && typeof err.data.retry_after === 'number') c.header('Retry-After', String(err.data.retry_after))
    if (status && status !== 500) return c.json({ error: err.detail || err.code }, status)
  }
  log.error('unhandled', { method: c.req.method, path: c.req.path, err: String(err), stack: (err as Error)?.stack })
  return c.json({ error: 'something went wrong on our side' }, 500)
}

export const judge0Error =
  (log: Log): ErrorHandler =>
  (err, c) =>
    judge0ErrorReply(err, log, c)
