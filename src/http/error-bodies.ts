// What every edge's error handler shares: anything thrown made an AppError (our own bugs logged with
// their stack, answered without one), the message, Retry-After; and the interview areas' bodies. Each
// protocol maps AppError to its own status and body in its own folder (HackerEarth's:
// src/hackerearth/error-bodies.ts); services throw AppError(code, detail, data) and pick no status.
import type { Context, ErrorHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { AppError, coreAnswer, isAppError, type CoreErrorCode, type InterviewErrorCode, type RoomErrorCode } from '../errors.ts'
import type { Log } from '../log.ts'
import { storageAppError } from '../storage/faults.ts'

/** Normalises anything thrown into an AppError, logging the ones that are our own bugs. */
export function toAppError(err: unknown, c: Context, log: Log): AppError {
  if (isAppError(err)) return err
  // a full, read-only or unwritable data disk: "try later", named, not a bug (logged and counted there)
  const fault = storageAppError(err, log, { method: c.req.method, path: c.req.path })
  if (fault) return fault
  if (err instanceof HTTPException) {
    if (err.status === 413) return new AppError('PayloadTooLargeError', 'request body is too large')
    if (err.status < 500) return new AppError('InvalidArgumentError', err.message || 'bad request')
  }
  log.error('unhandled', { method: c.req.method, path: c.req.path, err: String(err), stack: (err as Error)?.stack })
  return new AppError('InternalServerError', 'something went wrong on our side')
}

export const message = (e: AppError) => (e.detail ? `${e.code}: ${e.detail}` : e.code)

/** A refusal that passes with time (a full queue, a full disk) tells the client when to try again, as the body does. */
export const setRetryAfter = (c: Context, e: AppError) => {
  const sec = e.data.retry_after
  if ((e.code === 'QueueFullError' || e.code === 'StorageUnavailable') && typeof sec === 'number') c.header('Retry-After', String(sec))
}

// ── interviews ─────────────────────────────────────────────────────────────────────────────────────

/**
 * Interview envelope: HTTP status of each ecode (the spec leaves them open; docs/api/interviews.md lists them).
 * Input problems are 400, credentials 401/403, state conflicts 409, the resume host failing mid-download 502.
 */
export const envelopeStatus: Record<InterviewErrorCode, ContentfulStatusCode> = {
  AUTHFAILED: 401,
  ACCESSERROR: 403,
  ARGMISSING: 400,
  BADDATA: 400,
  FEATURENOTAVAILABLE: 403,
  INTERVIEWNOTFOUND: 404,
  RATELIMITEXCEEDED: 429,
  INVALIDEMAIL: 400,
  BUYCREDITS: 402,
  INTERVIEWERCANDIDATECONFLICT: 400,
  DUPLICATEINTERVIEWER: 400,
  MINONEINTERVIEWERREQUIRED: 400,
  MAXINTERVIEWERSLIMITCROSSED: 400,
  MAXEVALPARAMSLIMITCROSSED: 400,
  INVALIDRESUMEURL: 400,
  INVALIDFILETYPEERROR: 400,
  INVALIDSIZEERROR: 400,
  UPLOADERROR: 502,
  INVALIDPHONENUMBER: 400,
  INVALIDCOUNTRYCODE: 400,
  INVALIDURL: 400,
  ENDEDINTERVIEWUPDATIONDENIED: 409,
  INVALIDINTERVIEWSTARTTIME: 400,
  CANDIDATEEMAILUPDATENOTALLOWED: 409,
  ENDEDINTERVIEWDELETIONDENIED: 409,
}

/** The spec's emessage of each ecode; an AppError's detail replaces it (ARGMISSING names the argument). */
export const envelopeMessages: Record<InterviewErrorCode, string> = {
  AUTHFAILED: 'Authentication Failed',
  ACCESSERROR: 'You are not authorized to access this feature.',
  ARGMISSING: 'Request argument missing.',
  BADDATA: 'Invalid request data.',
  FEATURENOTAVAILABLE: 'Interview feature is not available for your company.',
  INTERVIEWNOTFOUND: 'Interview not found.',
  RATELIMITEXCEEDED: 'The rate at which the API requests are made has reached. Please try again after some time.',
  INVALIDEMAIL: 'Invalid email(s) exist.',
  BUYCREDITS: 'You do not have sufficient credits to create interviews, please purchase more credits.',
  INTERVIEWERCANDIDATECONFLICT: 'Interviewer and candidate cannot be the same.',
  DUPLICATEINTERVIEWER: 'Multiple interviewers cannot have the same email ID.',
  MINONEINTERVIEWERREQUIRED: 'You must add at least one interviewer.',
  MAXINTERVIEWERSLIMITCROSSED: 'Maximum interviewers limit crossed.',
  MAXEVALPARAMSLIMITCROSSED: 'Maximum eval params limit crossed.',
  INVALIDRESUMEURL: 'Provided resume url is invalid.',
  INVALIDFILETYPEERROR: 'Resume is not a PDF file.',
  INVALIDSIZEERROR: 'Invalid resume size.',
  UPLOADERROR: 'Error in downloading and uploading resume.',
  INVALIDPHONENUMBER: 'Invalid phone number.',
  INVALIDCOUNTRYCODE: 'Invalid country code.',
  INVALIDURL: 'Invalid URL.',
  ENDEDINTERVIEWUPDATIONDENIED: 'You cannot update an interview that has ended.',
  INVALIDINTERVIEWSTARTTIME: 'You cannot schedule the interview before the current time.',
  CANDIDATEEMAILUPDATENOTALLOWED: "You cannot update the candidate's email ID.",
  ENDEDINTERVIEWDELETIONDENIED: 'You cannot delete an interview that has ended.',
}

const isInterviewCode = (code: string): code is InterviewErrorCode => Object.hasOwn(envelopeStatus, code)

/**
 * The envelope's answer to a core code (the shared body reader's: too large, unparseable): bad data,
 * or our own fault. Statuses from 500 carry ecode INTERNALERROR.
 */
const envelopeCoreStatus: Record<CoreErrorCode, ContentfulStatusCode> = {
  ArgumentMissingError: 400,
  UnregisteredClientError: 400,
  QuotaExceededError: 400,
  QueueFullError: 400,
  InvalidArgumentError: 400,
  LanguageNotSupportedError: 400,
  PayloadTooLargeError: 413,
  NotFoundError: 400,
  MethodNotAllowedError: 400,
  InternalServerError: 500,
  Internal: 500,
  SandboxUnavailable: 503,
  StorageUnavailable: 503,
}

export function envelopeErrorBody(e: AppError) {
  if (!isInterviewCode(e.code)) {
    // a room code cannot reach the interview API but by a bug: bad data, as any other unknown code
    const status = coreAnswer(envelopeCoreStatus, e.code) ?? 400
    if (status >= 500) {
      // a storage fault says what it is (the disk is full: try later); any other stays unexplained
      const emessage = e.code === 'StorageUnavailable' ? e.detail : 'Something went wrong on our side.'
      return { status, body: { mcode: 'FAILED', message: 'Request failed', ecode: ['INTERNALERROR'], emessage: [emessage] } }
    }
    return { status, body: { mcode: 'FAILED', message: 'Request failed', ecode: ['BADDATA'], emessage: [envelopeMessages.BADDATA] } }
  }
  return {
    status: envelopeStatus[e.code],
    body: { mcode: 'FAILED', message: 'Request failed', ecode: [e.code], emessage: [e.detail || envelopeMessages[e.code]] },
  }
}

export const envelopeError =
  (log: Log): ErrorHandler =>
  (err, c) => {
    const e = toAppError(err, c, log)
    const { status, body } = envelopeErrorBody(e)
    const retryAfter = e.data.retryAfterSec
    if (e.code === 'RATELIMITEXCEEDED' && typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter))
    setRetryAfter(c, e)
    return c.json(body, status)
  }

// ── interview room ─────────────────────────────────────────────────────────────────────────────────

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
  ArgumentMissingError: 'RoomBadRequest',
  InvalidArgumentError: 'RoomBadRequest',
  LanguageNotSupportedError: 'RoomBadRequest',
  PayloadTooLargeError: 'RoomTooLarge',
  QueueFullError: 'RoomBusy',
  UnregisteredClientError: null,
  QuotaExceededError: null,
  NotFoundError: null,
  MethodNotAllowedError: null,
  InternalServerError: null,
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
