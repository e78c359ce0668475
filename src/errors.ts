// Errors are values with a code. Services throw AppError; each protocol's edge maps each code to its
// status and body in one place of its folder. The core's codes are its own words: a protocol that names
// errors otherwise (HackerEarth's "ArgumentMissingError: …") maps them back at its edge.

/** What the submission core refuses (src/hackerearth/error-bodies.ts gives each HackerEarth's name). */
export type EvaluationErrorCode =
  | 'ArgumentMissing'
  | 'UnknownClient'
  | 'QuotaExceeded'
  /** Too many of the client's submissions wait to run (429, Retry-After). */
  | 'QueueFull'
  | 'InvalidArgument'
  | 'LanguageNotSupported'
  | 'PayloadTooLarge'
  | 'NotFound'
  | 'MethodNotAllowed'
  /** Something thrown that no one meant to throw: our own bug, caught at the edge. */
  | 'Unexpected'

/** Interview envelope ecodes (spec table B). */
export type InterviewErrorCode =
  | 'AUTHFAILED'
  | 'ACCESSERROR'
  | 'ARGMISSING'
  | 'BADDATA'
  | 'FEATURENOTAVAILABLE'
  | 'INTERVIEWNOTFOUND'
  | 'RATELIMITEXCEEDED'
  | 'INVALIDEMAIL'
  | 'BUYCREDITS'
  | 'INTERVIEWERCANDIDATECONFLICT'
  | 'DUPLICATEINTERVIEWER'
  | 'MINONEINTERVIEWERREQUIRED'
  | 'MAXINTERVIEWERSLIMITCROSSED'
  | 'MAXEVALPARAMSLIMITCROSSED'
  | 'INVALIDRESUMEURL'
  | 'INVALIDFILETYPEERROR'
  | 'INVALIDSIZEERROR'
  | 'UPLOADERROR'
  | 'INVALIDPHONENUMBER'
  | 'INVALIDCOUNTRYCODE'
  | 'INVALIDURL'
  | 'ENDEDINTERVIEWUPDATIONDENIED'
  | 'INVALIDINTERVIEWSTARTTIME'
  | 'CANDIDATEEMAILUPDATENOTALLOWED'
  | 'ENDEDINTERVIEWDELETIONDENIED'

/** The interview room's own answers (src/room/); not part of the spec. */
export type RoomErrorCode =
  | 'RoomSessionRequired'
  | 'RoomForbidden'
  | 'RoomBadRequest'
  | 'RoomTooLarge'
  | 'RoomEnded'
  | 'RoomBusy'

/**
 * Faults of our own side (not the user's program): no sandbox slot in time, the data disk full, read-only
 * or not writable (storage/faults.ts: try again later), a run that left no result.
 */
export type InternalErrorCode = 'SandboxUnavailable' | 'StorageUnavailable' | 'Internal'

export type ErrorCode = EvaluationErrorCode | InterviewErrorCode | RoomErrorCode | InternalErrorCode

/**
 * What the submission core and the shared body reader throw, so what every protocol's edge must answer:
 * each edge maps them in a total Record<CoreErrorCode, …>, so a new code does not compile until each has its answer.
 */
export type CoreErrorCode = EvaluationErrorCode | InternalErrorCode

/** map[code] for a core code; undefined for another area's code (the room's, the interview API's), which the edge answers its own way. */
export const coreAnswer = <T>(map: Record<CoreErrorCode, T>, code: ErrorCode): T | undefined =>
  Object.hasOwn(map, code) ? map[code as CoreErrorCode] : undefined

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    /** Human text for the message (after "<code>: "). */
    readonly detail: string = '',
    /** Extra data for the body, e.g. {quota, current_count} or the offending field. */
    readonly data: Record<string, unknown> = {}
  ) {
    super(detail ? `${code}: ${detail}` : code)
    this.name = 'AppError'
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError
