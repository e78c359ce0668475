import { describe, expect, test } from 'vitest'
import { buildIcs, foldLine, icsDate, icsText, type IcsEvent } from './ics.ts'

const event = (over: Partial<IcsEvent> = {}): IcsEvent => ({
  method: 'REQUEST',
  uid: 'abc@arbiter.test',
  sequence: 2,
  stamp: new Date('2030-01-01T00:00:00Z'),
  start: new Date('2030-05-05T04:30:00Z'),
  end: new Date('2030-05-05T06:30:00Z'),
  summary: 'Backend interview',
  description: 'You are invited.',
  url: 'http://arbiter.test/interviews/join/TOKEN',
  organizer: { name: 'Acme Interviews', email: 'interviews@acme.test' },
  attendees: [{ name: 'Cara Candidate', email: 'cara@example.com' }],
  ...over,
})

/** Content lines, unfolded. */
const lines = (ics: string) => ics.replace(/\r\n /g, '').split('\r\n')

describe('buildIcs', () => {
  test('an invite: a REQUEST with the UID, sequence, UTC times, link, organizer and attendee', () => {
    const ics = buildIcs(event())
    expect(ics.endsWith('\r\n')).toBe(true)
    expect(ics.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
    expect(lines(ics)).toEqual([
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Arbiter//Interviews//EN',
      'CALSCALE:GREGORIAN',
      'METHOD:REQUEST',
      'BEGIN:VEVENT',
      'UID:abc@arbiter.test',
      'SEQUENCE:2',
      'DTSTAMP:20300101T000000Z',
      'DTSTART:20300505T043000Z',
      'DTEND:20300505T063000Z',
      'SUMMARY:Backend interview',
      'DESCRIPTION:You are invited.',
      'URL:http://arbiter.test/interviews/join/TOKEN',
      'LOCATION:http://arbiter.test/interviews/join/TOKEN',
      'STATUS:CONFIRMED',
      'TRANSP:OPAQUE',
      'ORGANIZER;CN="Acme Interviews":mailto:interviews@acme.test',
      'ATTENDEE;CN="Cara Candidate";ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=FALSE:mailto:cara@example.com',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ])
  })

  test('a cancellation: METHOD:CANCEL, STATUS:CANCELLED, and no link even if one is given', () => {
    const l = lines(buildIcs(event({ method: 'CANCEL' })))
    expect(l).toContain('METHOD:CANCEL')
    expect(l).toContain('STATUS:CANCELLED')
    expect(l.some((x) => x.startsWith('URL:') || x.startsWith('LOCATION:'))).toBe(false)
  })

  test('hostile text cannot add properties or break a parameter', () => {
    const l = lines(
      buildIcs(
        event({
          summary: 'Title\r\nATTENDEE:mailto:evil@x.test',
          attendees: [{ name: 'Cara "Boss";ROLE=CHAIR\n', email: 'cara@example.com\r\nX-EVIL:1' }],
        })
      )
    )
    expect(l.filter((x) => x.startsWith('ATTENDEE'))).toHaveLength(1)
    expect(l.some((x) => x.startsWith('X-EVIL'))).toBe(false)
    expect(l).toContain('SUMMARY:Title\\nATTENDEE:mailto:evil@x.test')
    expect(l.find((x) => x.startsWith('ATTENDEE'))).toMatch(/^ATTENDEE;CN="Cara Boss;ROLE=CHAIR";ROLE=REQ-PARTICIPANT;/)
  })
})

describe('pieces', () => {
  test('icsDate is basic-format UTC without fractions', () => {
    expect(icsDate(new Date('2030-12-31T23:59:58.123Z'))).toBe('20301231T235958Z')
  })

  test('icsText escapes backslash, semicolon, comma and newlines, and drops other controls', () => {
    expect(icsText('a\\b;c,d\r\ne\nf\x07g')).toBe('a\\\\b\\;c\\,d\\ne\\nfg')
  })

  test('foldLine folds at 75 octets, never inside a UTF-8 character', () => {
    expect(foldLine('x'.repeat(75))).toBe('x'.repeat(75))
    const folded = foldLine('x'.repeat(200))
    const parts = folded.split('\r\n')
    expect(parts.map((p) => Buffer.byteLength(p))).toEqual([75, 75, 52])
    expect(parts.slice(1).every((p) => p.startsWith(' '))).toBe(true)
    expect(folded.replace(/\r\n /g, '')).toBe('x'.repeat(200))

    const wide = foldLine('é'.repeat(100))
    for (const p of wide.split('\r\n')) {
      expect(Buffer.byteLength(p)).toBeLessThanOrEqual(75)
      expect(p).not.toContain('\uFFFD')
    }
    expect(wide.replace(/\r\n /g, '')).toBe('é'.repeat(100))
  })
})
