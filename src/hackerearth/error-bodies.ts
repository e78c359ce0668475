// HackerEarth's error bodies: AppError → the v3 and v4 statuses and bodies, one onError handler each.
import type { ErrorHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { coreAnswer, type AppError, type CoreErrorCode } from '../errors.ts'
import { setRetryAfter, toAppError } from '../http/error-bodies.ts'
import type { Log } from '../log.ts'

/** The spec's message: the error's name, then what went wrong ("ArgumentMissingError: source is needed!"). */
export const message = (e: AppError) => (e.detail ? `${e.code}: ${e.detail}` : e.code)

// ── code evaluation v3 ─────────────────────────────────────────────────────────────────────────────

/** v3: the spec's table answers 400 for every client error; size, routing and our faults keep their own. */
const v3Status: Record<CoreErrorCode, ContentfulStatusCode> = {
  ArgumentMissingError: 400,
  UnregisteredClientError: 400,
  QuotaExceededError: 400,
  InvalidArgumentError: 400,
  LanguageNotSupportedError: 400,
  PayloadTooLargeError: 413,
  QueueFullError: 429,
  NotFoundError: 404,
  MethodNotAllowedError: 405,
  InternalServerError: 500,
  Internal: 500,
  SandboxUnavailable: 503,
  StorageUnavailable: 503,
}

export function v3ErrorBody(e: AppError): { status: ContentfulStatusCode; body: { message: string; errors: Record<string, unknown> } } {
  // another area's code cannot reach these routes but by a bug in a shared reader: a client error, as the spec's table has it
  return { status: coreAnswer(v3Status, e.code) ?? 400, body: { message: message(e), errors: e.data } }
}

export const v3Error =
  (log: Log): ErrorHandler =>
  (err, c) => {
    const e = toAppError(err, c, log)
    const { status, body } = v3ErrorBody(e)
    setRetryAfter(c, e)
    return c.json(body, status)
  }

// ── code evaluation v4 ─────────────────────────────────────────────────────────────────────────────

/** v4 statuses (the spec leaves them open; docs/api/hackerearth.md's error table lists them). */
const v4Status: Record<CoreErrorCode, ContentfulStatusCode> = {
  ArgumentMissingError: 400,
  InvalidArgumentError: 400,
  LanguageNotSupportedError: 400,
  UnregisteredClientError: 401,
  QuotaExceededError: 403,
  NotFoundError: 404,
  QueueFullError: 429,
  MethodNotAllowedError: 405,
  PayloadTooLargeError: 413,
  InternalServerError: 500,
  Internal: 500,
  SandboxUnavailable: 503,
  StorageUnavailable: 503,
}

/**
 * v4 error: `message` and `errors` as in the spec, plus `request_status` so that clients which always
 * read request_status.code find an object there (code REQUEST_FAILED).
 */
export function v4ErrorBody(e: AppError) {
  const msg = message(e)
  return {
    status: coreAnswer(v4Status, e.code) ?? 500,
    body: { message: msg, errors: e.data, request_status: { code: 'REQUEST_FAILED', message: msg } },
  }
}

export const v4Error =
  (log: Log): ErrorHandler =>
  (err, c) => {
    const e = toAppError(err, c, log)
    const { status, body } = v4ErrorBody(e)
    setRetryAfter(c, e)
    return c.json(body, status)
  }
