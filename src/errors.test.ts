// Every code the core throws has its answer at every protocol's edge (the maps are total: a new code does
// not compile until each edge has one), and the answers that pass with time or are our own fault are the
// same everywhere: a full queue is 429, no sandbox slot 503, our bugs 500 without a word of them.
import { Hono } from 'hono'
import { describe, expect, test } from 'vitest'
import { AppError, type CoreErrorCode } from './errors.ts'
import { envelopeErrorBody } from './interviews/error-bodies.ts'
import { roomErrorBody } from './room/error-bodies.ts'
import { v3ErrorBody, v4ErrorBody } from './hackerearth/error-bodies.ts'
import { jobeErrorBody } from './jobe/routes.ts'
import { judge0Error } from './judge0/errors.ts'
import { silentLog } from './log.ts'
import { pistonErrorBody } from './piston/errors.ts'

// a Record, so this list cannot miss a code either
const CORE: Record<CoreErrorCode, true> = {
  ArgumentMissing: true,
  UnknownClient: true,
  QuotaExceeded: true,
  QueueFull: true,
  InvalidArgument: true,
  LanguageNotSupported: true,
  PayloadTooLarge: true,
  NotFound: true,
  MethodNotAllowed: true,
  Unexpected: true,
  Internal: true,
  SandboxUnavailable: true,
  StorageUnavailable: true,
}
const codes = Object.keys(CORE) as CoreErrorCode[]

async function judge0Status(e: AppError): Promise<number> {
  const app = new Hono()
  app.get('/', () => {
    throw e
  })
  app.onError(judge0Error(silentLog()))
  return (await app.request('/')).status
}

const edges: [string, (e: AppError) => number | Promise<number>][] = [
  ['v3', (e) => v3ErrorBody(e).status],
  ['v4', (e) => v4ErrorBody(e).status],
  ['piston', (e) => pistonErrorBody(e).status],
  ['judge0', judge0Status],
]

describe('each edge answers every core code', () => {
  test.each(edges)('%s: a full queue 429, no sandbox slot 503, our faults 500', async (_, status) => {
    expect(await status(new AppError('QueueFull', 'full', { retry_after: 1 }))).toBe(429)
    expect(await status(new AppError('SandboxUnavailable', 'busy'))).toBe(503)
    expect(await status(new AppError('StorageUnavailable', 'disk full', { retry_after: 30 }))).toBe(503)
    for (const code of ['Internal', 'Unexpected'] as const) expect(await status(new AppError(code, 'x'))).toBe(500)
    for (const code of codes) expect(await status(new AppError(code, 'x')), code).toBeGreaterThanOrEqual(400)
  })

  test('Jobe: client errors keep their status and text; our faults are 500 without detail', () => {
    expect(jobeErrorBody(new AppError('QuotaExceeded', 'x'))).toEqual({ status: 401, body: 'API usage quota exceeded' })
    expect(jobeErrorBody(new AppError('LanguageNotSupported', 'no such'))).toEqual({ status: 400, body: 'LanguageNotSupported: no such' })
    expect(jobeErrorBody(new AppError('StorageUnavailable', 'the disk is full'))).toEqual({ status: 503, body: 'StorageUnavailable: the disk is full' })
    for (const code of ['Internal', 'Unexpected', 'SandboxUnavailable'] as const) expect(jobeErrorBody(new AppError(code, 'secret detail'))).toEqual({ status: 500, body: expect.not.stringContaining('secret') })
  })

  test("the interview envelope: bad data, INTERNALERROR for our faults, RATELIMITEXCEEDED for the body reader's 'try later'", () => {
    for (const code of codes) {
      const { status, body } = envelopeErrorBody(new AppError(code, 'x'))
      expect(body.ecode, code).toEqual([code === 'QueueFull' ? 'RATELIMITEXCEEDED' : status >= 500 ? 'INTERNALERROR' : 'BADDATA'])
    }
    expect(envelopeErrorBody(new AppError('QueueFull', 'later')).status).toBe(429)
    expect(envelopeErrorBody(new AppError('SandboxUnavailable')).status).toBe(503)
    expect(envelopeErrorBody(new AppError('PayloadTooLarge')).status).toBe(413)
  })

  test("the room: its own error names; a full queue is RoomBusy; our faults 500", () => {
    expect(roomErrorBody(new AppError('QueueFull', 'full'))).toEqual({ status: 429, body: { error: 'RoomBusy', message: 'full' } })
    expect(roomErrorBody(new AppError('LanguageNotSupported', 'no'))).toMatchObject({ status: 400, body: { error: 'RoomBadRequest' } })
    expect(roomErrorBody(new AppError('Internal', 'secret'))).toEqual({ status: 500, body: { error: 'InternalServerError', message: 'something went wrong on our side' } })
  })
})
