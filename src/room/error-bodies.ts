// The interview room's JSON calls: AppError → `{error, message}` and a status, one onError handler.
import type { ErrorHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { coreAnswer, type AppError, type CoreErrorCode, type RoomErrorCode } from '../errors.ts'
import { setRetryAfter, toAppError } from '../http/error-bodies.ts'
import { envelopeMessages, envelopeStatus, isInterviewCode } from '../interviews/error-bodies.ts'
import type { Log } from '../log.ts'

/** The room's JSON calls: `{error, message}`. Interview codes that reach it keep their envelope status. */
const roomStatus: Record<RoomErrorCode, ContentfulStatusCode> = {
  RoomSessionRequired: 401,
  RoomForbidden: 403,
  RoomBadRequest: 400,
  RoomTooLarge: 413,
  RoomEnded: 409,
  RoomBusy: 429,
}

/** A core code as the room answers it (the shared body reader's, the run's): the room's own error, or our fault (null). */
const roomCoreError: Record<CoreErrorCode, RoomErrorCode | null> = {
  ArgumentMissing: 'RoomBadRequest',
  InvalidArgument: 'RoomBadRequest',
  LanguageNotSupported: 'RoomBadRequest',
  PayloadTooLarge: 'RoomTooLarge',
  QueueFull: 'RoomBusy',
  UnknownClient: null,
  QuotaExceeded: null,
  NotFound: null,
  MethodNotAllowed: null,
  Unexpected: null,
  Internal: null,
  SandboxUnavailable: null,
  StorageUnavailable: null,
}

export function roomErrorBody(e: AppError): { status: ContentfulStatusCode; body: { error: string; message: string } } {
  if (Object.hasOwn(roomStatus, e.code)) return { status: roomStatus[e.code as RoomErrorCode], body: { error: e.code, message: e.detail || e.code } }
  if (isInterviewCode(e.code)) return { status: envelopeStatus[e.code], body: { error: e.code, message: e.detail || envelopeMessages[e.code] } }
  const own = coreAnswer(roomCoreError, e.code)
  if (own) return { status: roomStatus[own], body: { error: own, message: e.detail || own } }
  if (e.code === 'StorageUnavailable') return { status: 503, body: { error: e.code, message: e.detail } }
  return { status: 500, body: { error: 'InternalServerError', message: 'something went wrong on our side' } }
}

export const roomError =
  (log: Log): ErrorHandler =>
  (err, c) => {
    const e = toAppError(err, c, log)
    const { status, body } = roomErrorBody(e)
    setRetryAfter(c, e)
    return c.json(body, status)
  }
