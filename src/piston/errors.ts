// The Piston API's error replies in one place: every AppError becomes Piston's `{message}` body with
// the status Piston (or, where Piston has none, HTTP) gives it. Never a stack trace.
import type { Context, ErrorHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { AppError, coreAnswer, type CoreErrorCode } from '../errors.ts'
import type { Log } from '../log.ts'
import { storageAppError } from '../storage/faults.ts'

const STATUS: Record<CoreErrorCode, ContentfulStatusCode> = {
  ArgumentMissing: 400,
  InvalidArgument: 400,
  LanguageNotSupported: 400,
  UnknownClient: 401,
  // aiopyston raises TooManyRequests on 429: the nearest Piston status to "quota used up"
  QuotaExceeded: 429,
  // evaluation.max_queued_per_client: passes with time (Retry-After)
  QueueFull: 429,
  NotFound: 404,
  MethodNotAllowed: 405,
  PayloadTooLarge: 413,
  SandboxUnavailable: 503,
  StorageUnavailable: 503,
  Unexpected: 500,
  Internal: 500,
}

export function pistonErrorBody(err: AppError): { status: ContentfulStatusCode; body: { message: string } } {
  const status = coreAnswer(STATUS, err.code) ?? 500
  return { status, body: { message: status === 500 ? 'Internal error' : err.detail || err.code } }
}

export const pistonError =
  (log: Log): ErrorHandler =>
  (thrown: Error, c: Context) => {
    // a full, read-only or unwritable data disk: "try later", named (logged and counted there)
    const err = storageAppError(thrown, log, { method: c.req.method, path: c.req.path }) ?? thrown
    if (err instanceof AppError) {
      const { status, body } = pistonErrorBody(err)
      if (status === 500) log.error('piston', { err: err.message })
      if ((err.code === 'QueueFull' || err.code === 'StorageUnavailable') && typeof err.data.retry_after === 'number') c.header('Retry-After', String(err.data.retry_after))
      return c.json(body, status)
    }
    log.error('piston: unhandled', { err: String(err), stack: err.stack })
    return c.json({ message: 'Internal error' }, 500)
  }
