// HackerEarth's error bodies: AppError → the v3 and v4 statuses and bodies, one onError handler each.
import type { ErrorHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { coreAnswer, type AppError, type CoreErrorCode } from '../errors.ts'
import { setRetryAfter, toAppError } from '../http/error-bodies.ts'
import type { Log } from '../log.ts'

/** The core's codes by the names HackerEarth's spec gives them: the one place they are mapped back. */
const HACKEREARTH_NAMES: Record<CoreErrorCode, string> = {
  ArgumentMissing: 'ArgumentMissingError',
  UnknownClient: 'UnregisteredClientError',
  QuotaExceeded: 'QuotaExceededError',
  QueueFull: 'QueueFullError',
  InvalidArgument: 'InvalidArgumentError',
  LanguageNotSupported: 'LanguageNotSupportedError',
  PayloadTooLarge: 'PayloadTooLargeError',
  NotFound: 'NotFoundError',
  MethodNotAllowed: 'MethodNotAllowedError',
  Unexpected: 'InternalServerError',
  Internal: 'Internal',
  SandboxUnavailable: 'SandboxUnavailable',
  StorageUnavailable: 'StorageUnavailable',
}

/** An error's name as HackerEarth's spec has it (another area's code keeps its own). */
export const hackerEarthName = (e: AppError) => coreAnswer(HACKEREARTH_NAMES, e.code) ?? e.code

/** The spec's message: the error's name, then what went wrong ("ArgumentMissingError: source is needed!"). */
export const message = (e: AppError) => (e.detail ? `${hackerEarthName(e)}: ${e.detail}` : hackerEarthName(e))

// ── code evaluation v3 ─────────────────────────────────────────────────────────────────────────────

/** v3: the spec's table answers 400 for every client error; size, routing and our faults keep their own. */
const v3Status: Record<CoreErrorCode, ContentfulStatusCode> = {
  ArgumentMissing: 400,
  UnknownClient: 400,
  QuotaExceeded: 400,
  InvalidArgument: 400,
  LanguageNotSupported: 400,
  PayloadTooLarge: 413,
  QueueFull: 429,
  NotFound: 404,
  MethodNotAllowed: 405,
  Unexpected: 500,
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
  ArgumentMissing: 400,
  InvalidArgument: 400,
  LanguageNotSupported: 400,
  UnknownClient: 401,
  QuotaExceeded: 403,
  NotFound: 404,
  QueueFull: 429,
  MethodNotAllowed: 405,
  PayloadTooLarge: 413,
  Unexpected: 500,
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
