// Pure: an RFC 5545 calendar object for an interview invite (METHOD:REQUEST) or its cancellation
// (METHOD:CANCEL). The UID is the interview's, so calendars update or remove the same event; SEQUENCE
// rises with every update so the newest one wins.

export interface IcsPerson {
  name: string
  email: string
}

export interface IcsEvent {
  method: 'REQUEST' | 'CANCEL'
  uid: string
  sequence: number
  /** When this version was written (DTSTAMP). */
  stamp: Date
  start: Date
  end: Date
  summary: string
  description: string
  /** The recipient's own link (a REQUEST only). */
  url?: string
  organizer: IcsPerson
  attendees: IcsPerson[]
}

const CRLF = '\r\n'

/** 20300101T093000Z */
export const icsDate = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '')

/** TEXT value (RFC 5545 3.3.11): backslash, semicolon, comma and newlines escaped; other controls dropped. */
export const icsText = (s: string): string =>
  s
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '')
    .replace(/[\\;,]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')

/** A quoted parameter value (CN): DQUOTE cannot be escaped there, so it is dropped with the controls. */
// eslint-disable-next-line no-control-regex
const icsParam = (s: string): string => `"${s.replace(/[\x00-\x1f\x7f"]/g, '')}"`

/** An address as a mailto: URI value; anything that could break the line is dropped. */
// eslint-disable-next-line no-control-regex
const mailto = (email: string): string => `mailto:${email.replace(/[\x00-\x20\x7f;:,"]/g, '')}`

/** Folds a content line at 75 octets (RFC 5545 3.1), never inside a UTF-8 character. */
export function foldLine(line: string): string {
  const out: string[] = []
  let current = ''
  let octets = 0
  for (const ch of line) {
    const n = Buffer.byteLength(ch, 'utf8')
    // continuation lines start with a space, which counts toward their 75
    if (octets + n > 75) {
      out.push(current)
      current = ' '
      octets = 1
    }
    current += ch
    octets += n
  }
  out.push(current)
  return out.join(CRLF)
}

export function buildIcs(e: IcsEvent): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Arbiter//Interviews//EN',
    'CALSCALE:GREGORIAN',
    `METHOD:${e.method}`,
    'BEGIN:VEVENT',
    `UID:${icsText(e.uid)}`,
    `SEQUENCE:${e.sequence}`,
    `DTSTAMP:${icsDate(e.stamp)}`,
    `DTSTART:${icsDate(e.start)}`,
    `DTEND:${icsDate(e.end)}`,
    `SUMMARY:${icsText(e.summary)}`,
    `DESCRIPTION:${icsText(e.description)}`,
    ...(e.url && e.method === 'REQUEST' ? [`URL:${e.url.replace(/[\s"]/g, '')}`, `LOCATION:${icsText(e.url)}`] : []),
    `STATUS:${e.method === 'CANCEL' ? 'CANCELLED' : 'CONFIRMED'}`,
    'TRANSP:OPAQUE',
    `ORGANIZER;CN=${icsParam(e.organizer.name)}:${mailto(e.organizer.email)}`,
    ...e.attendees.map((a) => `ATTENDEE;CN=${icsParam(a.name)};ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=FALSE:${mailto(a.email)}`),
    'END:VEVENT',
    'END:VCALENDAR',
  ]
  return lines.map(foldLine).join(CRLF) + CRLF
}
