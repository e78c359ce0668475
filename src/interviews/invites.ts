// Pure: the invitation, update and cancellation e-mails of an interview, one per recipient with their own
// link (text + HTML + the .ics of ics.ts). Times are written in the zone start_datetime was given in
// (the partner's) and in UTC: the recipient's own zone is not known.
import type { MailMessage } from '../jobs/mailer.ts'
import { buildIcs } from './ics.ts'
import { escapeHtml } from '../http/html.ts'

export type MailKind = 'invite' | 'update' | 'cancel'
export type Role = 'candidate' | 'interviewer'

export interface MailInput {
  kind: MailKind
  interview: { id: string; title: string; startAt: Date; offsetMin: number; durationMin: number; sequence: number }
  recipient: { name: string; email: string; role: Role; link?: string }
  /** Everyone else in the interview, by name (addresses are not shared between participants). */
  others: { name: string; role: Role }[]
  /** "Name <address>" of the sender: the ORGANIZER of the event. */
  from: { name: string; email: string }
  /** Right-hand side of the calendar UID, e.g. the server's host name. */
  uidDomain: string
  now: Date
}

// eslint-disable-next-line no-control-regex
const oneLine = (s: string) => s.replace(/[\x00-\x1f\x7f]+/g, ' ').trim()

const pad = (n: number) => String(n).padStart(2, '0')

export function offsetLabel(offsetMin: number): string {
  const sign = offsetMin < 0 ? '-' : '+'
  const abs = Math.abs(offsetMin)
  return `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

// spelled out here rather than by Intl, whose punctuation changes with the ICU version
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/** "Sunday 5 May 2030, 10:00 (UTC+05:30)" */
export function formatWhen(at: Date, offsetMin: number): string {
  const l = new Date(at.getTime() + offsetMin * 60_000)
  const day = `${DAYS[l.getUTCDay()]} ${l.getUTCDate()} ${MONTHS[l.getUTCMonth()]} ${l.getUTCFullYear()}`
  return `${day}, ${pad(l.getUTCHours())}:${pad(l.getUTCMinutes())} (${offsetLabel(offsetMin)})`
}

/** "2030-05-05 04:30 UTC" */
const utc = (at: Date) => `${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 16)} UTC`

const SUBJECT: Record<MailKind, string> = {
  invite: 'Interview invitation',
  update: 'Interview updated',
  cancel: 'Interview cancelled',
}

function lead(input: MailInput, title: string): string {
  const as = input.recipient.role === 'candidate' ? 'as the candidate' : 'as an interviewer'
  switch (input.kind) {
    case 'invite':
      return `You are invited to the interview "${title}" ${as}.`
    case 'update':
      return `The interview "${title}" has changed. Links sent earlier no longer work: please use the new one below.`
    case 'cancel':
      return `The interview "${title}" has been cancelled${input.recipient.role === 'interviewer' ? ' for you' : ''}.`
  }
}

export function renderMail(input: MailInput): MailMessage {
  const { interview, recipient } = input
  const title = oneLine(interview.title)
  const name = oneLine(recipient.name)
  const when = `${formatWhen(interview.startAt, interview.offsetMin)}, that is ${utc(interview.startAt)}`
  const withWhom = input.others.map((o) => `${oneLine(o.name)} (${o.role})`).join(', ')
  const link = input.kind === 'cancel' ? undefined : recipient.link
  const intro = lead(input, title)

  const text = [
    `Hello ${name},`,
    '',
    intro,
    '',
    `When: ${when}`,
    ...(withWhom && input.kind !== 'cancel' ? [`With: ${withWhom}`] : []),
    '',
    ...(link
      ? ['Join with your personal link. It signs you in, so please do not share it:', link, '', 'A calendar invitation is attached.']
      : ['The calendar entry attached removes the event from your calendar.']),
    '',
  ].join('\n')

  const html =
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">` +
    `<p>Hello ${escapeHtml(name)},</p><p>${escapeHtml(intro)}</p>` +
    `<p><strong>When:</strong> ${escapeHtml(when)}` +
    (withWhom && input.kind !== 'cancel' ? `<br><strong>With:</strong> ${escapeHtml(withWhom)}` : '') +
    `</p>` +
    (link
      ? `<p><a href="${escapeHtml(link)}">Join the interview</a> (your personal link; it signs you in, so please do not share it)</p>` +
        `<p style="color:#555;font-size:90%">${escapeHtml(link)}</p>`
      : '') +
    `</body></html>`

  const method = input.kind === 'cancel' ? 'CANCEL' : 'REQUEST'
  const ics = buildIcs({
    method,
    uid: `${interview.id}@${input.uidDomain}`,
    sequence: interview.sequence,
    stamp: input.now,
    start: interview.startAt,
    end: new Date(interview.startAt.getTime() + interview.durationMin * 60_000),
    summary: title,
    description: link ? `${intro}\n\nYour personal link: ${link}` : intro,
    url: link,
    organizer: input.from,
    attendees: [{ name, email: recipient.email }],
  })

  return {
    to: `"${name.replace(/["\\]/g, '')}" <${recipient.email}>`,
    subject: `${SUBJECT[input.kind]}: ${title}`,
    text,
    html,
    ics: { method, content: ics, filename: method === 'CANCEL' ? 'cancel.ics' : 'invite.ics' },
  }
}
