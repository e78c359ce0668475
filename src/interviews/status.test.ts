import { describe, expect, it } from 'vitest'
import { endOf, statusAt, type StatusInput } from './status.ts'

const H = 3_600_000
const t0 = new Date('2030-01-01T10:00:00Z')
const at = (ms: number) => new Date(t0.getTime() + ms)
const max = 2 * H

describe('statusAt', () => {
  const cases: [string, StatusInput, number, string][] = [
    ['before the start', { startAt: t0, startedAt: null, endedAt: null }, -1, 'upcoming'],
    ['at the start', { startAt: t0, startedAt: null, endedAt: null }, 0, 'ongoing'],
    ['during', { startAt: t0, startedAt: null, endedAt: null }, H, 'ongoing'],
    ['at the maximum duration', { startAt: t0, startedAt: null, endedAt: null }, max, 'completed'],
    ['ended by an interviewer', { startAt: t0, startedAt: t0, endedAt: at(10 * 60_000) }, 11 * 60_000, 'completed'],
    // start moved later by an update after it had started: it stays ongoing (never goes back)
    ['started, then rescheduled later', { startAt: at(5 * H), startedAt: t0, endedAt: null }, H, 'ongoing'],
    ['started, rescheduled, runs out from the first start', { startAt: at(5 * H), startedAt: t0, endedAt: null }, max, 'completed'],
    ['joined early', { startAt: t0, startedAt: at(-10 * 60_000), endedAt: null }, -5 * 60_000, 'ongoing'],
  ]
  it.each(cases)('%s', (_name, input, offset, want) => expect(statusAt(input, at(offset), max)).toBe(want))
})

describe('endOf', () => {
  it('is the recorded end when there is one', () =>
    expect(endOf({ startAt: t0, startedAt: t0, endedAt: at(H / 2) }, max)).toEqual(at(H / 2)))
  it('is the start plus the maximum duration otherwise', () =>
    expect(endOf({ startAt: t0, startedAt: null, endedAt: null }, max)).toEqual(at(max)))
})
