import { describe, expect, test } from 'vitest'
import { formatWhen, offsetLabel, renderMail, type MailInput } from './invites.ts'

const LINK = 'http://arbiter.test/interviews/join/' + 'T'.repeat(43)

const input = (over: Partial<MailInput> = {}): MailInput => ({
  kind: 'invite',
  interview: { id: 'abc', title: 'Backend interview', startAt: new Date('2030-05-05T04:30:00Z'), offsetMin: 330, durationMin: 120, sequence: 1 },
  recipient: { name: 'Cara Candidate', email: 'cara@example.com', role: 'candidate', link: LINK },
  others: [
    { name: 'Ivan Interviewer', role: 'interviewer' },
    { name: 'Olga Other', role: 'interviewer' },
  ],
  from: { name: 'Acme Interviews', email: 'interviews@acme.test' },
  uidDomain: 'arbiter.test',
  now: new Date('2030-01-01T00:00:00Z'),
  ...over,
})

describe('renderMail', () => {
  test('an invitation: to the recipient, their link in text and HTML, an .ics REQUEST', () => {
    const m = renderMail(input())
    expect(m.to).toBe('"Cara Candidate" <cara@example.com>')
    expect(m.subject).toBe('Interview invitation: Backend interview')
    expect(m.text).toContain('You are invited to the interview "Backend interview" as the candidate.')
    expect(m.text).toContain('When: Sunday 5 May 2030, 10:00 (UTC+05:30), that is 2030-05-05 04:30 UTC')
    expect(m.text).toContain('With: Ivan Interviewer (interviewer), Olga Other (interviewer)')
    expect(m.text).toContain(`\n${LINK}\n`)
    expect(m.html).toContain(`<a href="${LINK}">Join the interview</a>`)
    expect(m.ics).toMatchObject({ method: 'REQUEST', filename: 'invite.ics' })
    const ics = m.ics!.content.replace(/\r\n /g, '')
    expect(ics).toContain('UID:abc@arbiter.test')
    expect(ics).toContain('SEQUENCE:1')
    expect(ics).toContain('DTSTART:20300505T043000Z')
    expect(ics).toContain('DTEND:20300505T063000Z')
    expect(ics).toContain(`URL:${LINK}`)
    expect(ics).toContain('ORGANIZER;CN="Acme Interviews":mailto:interviews@acme.test')
    expect(ics).toContain('ATTENDEE;CN="Cara Candidate"')
  })

  test('an interviewer is invited as one; an update says the old links stopped working', () => {
    const ivan = { name: 'Ivan', email: 'ivan@acme.test', role: 'interviewer' as const, link: LINK }
    expect(renderMail(input({ recipient: ivan })).text).toContain('as an interviewer.')
    const upd = renderMail(input({ kind: 'update', recipient: ivan }))
    expect(upd.subject).toBe('Interview updated: Backend interview')
    expect(upd.text).toContain('Links sent earlier no longer work')
    expect(upd.text).toContain(LINK)
    expect(upd.ics?.method).toBe('REQUEST')
  })

  test('a cancellation carries no link and an .ics CANCEL', () => {
    const m = renderMail(input({ kind: 'cancel' }))
    expect(m.subject).toBe('Interview cancelled: Backend interview')
    for (const part of [m.text, m.html, m.ics!.content]) expect(part).not.toContain('/interviews/join/')
    expect(m.text).not.toContain('With:')
    expect(m.ics).toMatchObject({ method: 'CANCEL', filename: 'cancel.ics' })
    expect(m.ics!.content).toContain('STATUS:CANCELLED')
  })

  test('other participants are named, never their addresses', () => {
    const m = renderMail(input({ others: [{ name: 'Ivan', role: 'interviewer' }] }))
    expect(m.text).not.toMatch(/@acme\.test/)
  })

  test('hostile names and titles: no header break, HTML escaped', () => {
    const m = renderMail(
      input({
        interview: { ...input().interview, title: 'Hi\r\nBcc: evil@x.test <script>' },
        recipient: { name: 'Cara "<b>"\nX-Evil: 1', email: 'cara@example.com', role: 'candidate', link: LINK },
      })
    )
    expect(m.subject).toBe('Interview invitation: Hi Bcc: evil@x.test <script>')
    expect(m.to).toBe('"Cara <b> X-Evil: 1" <cara@example.com>')
    expect(m.html).not.toContain('<script>')
    expect(m.html).not.toContain('<b>')
    expect(m.html).toContain('&lt;script&gt;')
  })
})

describe('times', () => {
  test('offsetLabel', () => {
    expect(offsetLabel(330)).toBe('UTC+05:30')
    expect(offsetLabel(-210)).toBe('UTC-03:30')
    expect(offsetLabel(0)).toBe('UTC+00:00')
  })
  test('formatWhen writes the local time of the given offset', () => {
    expect(formatWhen(new Date('2030-05-04T23:30:00Z'), 60)).toBe('Sunday 5 May 2030, 00:30 (UTC+01:00)')
    expect(formatWhen(new Date('2030-05-05T01:00:00Z'), -120)).toBe('Saturday 4 May 2030, 23:00 (UTC-02:00)')
  })
})
