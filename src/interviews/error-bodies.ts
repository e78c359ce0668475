// The interview API's error envelope (spec table B): AppError → the envelope's status and body, one onError handler.
import type { ErrorHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { coreAnswer, type AppError, type CoreErrorCode, type InterviewErrorCode } from '../errors.ts'
import { setRetryAfter, toAppError } from '../http/error-bodies.ts'
import type { Log } from '../log.ts'

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

export const isInterviewCode = (code: string): code is InterviewErrorCode => Object.hasOwn(envelopeStatus, code)

/**
 * The envelope's answer to a core code (the shared body reader's: too large, unparseable): bad data,
 * or our own fault. Statuses from 500 carry ecode INTERNALERROR.
 */
const envelopeCoreStatus: Record<CoreErrorCode, ContentfulStatusCode> = {
  ArgumentMissing: 400,
  UnknownClient: 400,
  QuotaExceeded: 400,
  QueueFull: 429,
  InvalidArgument: 400,
  LanguageNotSupported: 400,
  PayloadTooLarge: 413,
  NotFound: 400,
  MethodNotAllowed: 400,
  Unexpected: 500,
  Internal: 500,
  SandboxUnavailable: 503,
  StorageUnavailable: 503,
}

export function envelopeErrorBody(e: AppError) {
  if (!isInterviewCode(e.code)) {
    // the shared body reader's budget (http/body-budget.ts): the envelope's own word for "too much at once"
    if (e.code === 'QueueFull')
      return { status: envelopeStatus.RATELIMITEXCEEDED, body: { mcode: 'FAILED', message: 'Request failed', ecode: ['RATELIMITEXCEEDED'], emessage: [e.detail] } }
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
