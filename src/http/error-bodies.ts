// What every edge's error handler shares: anything thrown made an AppError (our own bugs logged with
// their stack, answered without one), the message, Retry-After. Each protocol and area maps AppError to
// its own status and body in its own folder (HackerEarth's: src/hackerearth/error-bodies.ts, the
// interview API's: src/interviews/error-bodies.ts, the room's: src/room/error-bodies.ts); services
// throw AppError(code, detail, data) and pick no status.
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { AppError, isAppError } from '../errors.ts'
import type { Log } from '../log.ts'
import { storageAppError } from '../storage/faults.ts'

/** Normalises anything thrown into an AppError, logging the ones that are our own bugs. */
export function toAppError(err: unknown, c: Context, log: Log): AppError {
  if (isAppError(err)) return err
  // a full, read-only or unwritable data disk: "try later", named, not a bug (logged and counted there)
  const fault = storageAppError(err, log, { method: c.req.method, path: c.req.path })
  if (fault) return fault
  if (err instanceof HTTPException) {
    if (err.status === 413) return new AppError('PayloadTooLarge', 'request body is too large')
    if (err.status < 500) return new AppError('InvalidArgument', err.message || 'bad request')
  }
  log.error('unhandled', { method: c.req.method, path: c.req.path, err: String(err), stack: (err as Error)?.stack })
  return new AppError('Unexpected', 'something went wrong on our side')
}

/** A refusal that passes with time (a full queue, a full disk) tells the client when to try again, as the body does. */
export const setRetryAfter = (c: Context, e: AppError) => {
  const sec = e.data.retry_after
  if ((e.code === 'QueueFull' || e.code === 'StorageUnavailable') && typeof sec === 'number') c.header('Retry-After', String(sec))
}
