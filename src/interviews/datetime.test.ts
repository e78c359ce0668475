import { describe, expect, it } from 'vitest'
import { formatOffsetDateTime, parseOffsetDateTime } from './datetime.ts'

describe('parseOffsetDateTime', () => {
  it.each([
    ['2030-05-01T10:00:00+05:30', '2030-05-01T04:30:00.000Z', 330],
    ['2030-05-01T10:00:00Z', '2030-05-01T10:00:00.000Z', 0],
    ['2030-05-01T10:00:00z', '2030-05-01T10:00:00.000Z', 0],
    ['2030-05-01T10:00Z', '2030-05-01T10:00:00.000Z', 0],
    ['2030-05-01T10:00:00.250-04:00', '2030-05-01T14:00:00.250Z', -240],
    ['2030-05-01T10:00:00.123456789+0100', '2030-05-01T09:00:00.123Z', 60],
    ['2028-02-29T00:00:00+00:00', '2028-02-29T00:00:00.000Z', 0],
  ])('%s', (text, iso, offset) => {
    const got = parseOffsetDateTime(text)
    expect(got?.at.toISOString()).toBe(iso)
    expect(got?.offsetMin).toBe(offset)
  })

  it.each([
    '2030-05-01T10:00:00', // no offset
    '2030-05-01 10:00:00Z',
    '2030-02-30T10:00:00Z',
    '2029-02-29T10:00:00Z',
    '2030-13-01T10:00:00Z',
    '2030-05-01T24:00:00Z',
    '2030-05-01T10:60:00Z',
    '2030-05-01T10:00:00+15:00',
    '2030-05-01T10:00:00+05:60',
    '1969-12-31T23:59:59Z',
    '2030-05-01',
    '',
    'tomorrow',
    '2030-05-01T10:00:00+05:30 ',
  ])('refuses %j', (text) => expect(parseOffsetDateTime(text)).toBeNull())
})

describe('formatOffsetDateTime', () => {
  it.each([
    ['2030-05-01T04:30:00.000Z', 330, '2030-05-01T10:00:00+05:30'],
    ['2030-05-01T10:00:00.000Z', 0, '2030-05-01T10:00:00Z'],
    ['2030-05-01T14:00:00.250Z', -240, '2030-05-01T10:00:00.250-04:00'],
    ['2030-05-01T00:30:00.000Z', -60, '2030-04-30T23:30:00-01:00'],
  ])('%s at %i', (iso, offset, want) => expect(formatOffsetDateTime(new Date(iso), offset)).toBe(want))

  it('round-trips what it parses', () => {
    const text = '2031-12-31T23:59:59+14:00'
    const p = parseOffsetDateTime(text)!
    expect(formatOffsetDateTime(p.at, p.offsetMin)).toBe(text)
  })
})
