// Outgoing e-mail: the nodemailer SMTP transport from config.smtp and the outbox sender of kind 'email'.
// The message is rendered when it is enqueued (interviews/invites.ts) and stored as a MailMessage in the
// outbox row, so a restart or an SMTP outage changes when it is sent, never what.
import { and, eq, inArray, sql } from 'drizzle-orm'
import { isIP, connect as netConnect, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import nodemailer from 'nodemailer'
import type { Config } from '../config.ts'
import type { Db } from '../storage/db.ts'
import { outbox } from '../storage/schema.ts'
import { PermanentFailure } from './callback.ts'
import type { OutboxRow, Sender } from './outbox.ts'

/** The body of an outbox row of kind 'email' (its target is the recipient's address). */
export interface MailMessage {
  /** "Full Name <address>" */
  to: string
  subject: string
  text: string
  html: string
  /** An iCalendar part: sent as the text/calendar alternative and as an .ics attachment. */
  ics?: { method: 'REQUEST' | 'CANCEL'; content: string; filename: string }
  /** Set by the sweep once the message was delivered: the body no longer holds the links. */
  redacted?: true
}

export const smtpConfigured = (config: Pick<Config, 'smtp'>): boolean => config.smtp.host.trim() !== ''

/** The From address: smtp.from, else arbiter@<host of the public URL>. */
export function mailFrom(config: Pick<Config, 'smtp' | 'server'>): string {
  if (config.smtp.from.trim()) return config.smtp.from.trim()
  let host = 'localhost'
  try {
    host = new URL(config.server.public_url).hostname.replace(/^\[|\]$/g, '') || host
  } catch {
    // config.ts validated the URL
  }
  // an IP address is not a mail domain; the angle-bracketed form still parses everywhere
  return `Arbiter <arbiter@${/^[\d.:]+$/.test(host) ? `[${host}]` : host}>`
}

/** Only the address of "Name <address>" (the ORGANIZER of an invite). */
export const addressOf = (from: string): string => /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim()

/**
 * What one delivery may read of the SMTP server's replies: a whole session (greeting, EHLO, MAIL,
 * RCPT, DATA, QUIT) is well under 4 KB; a server sending more, or endless continuation lines that
 * nodemailer would keep in memory, has its connection closed. After STARTTLS the TLS layer reads the
 * socket itself, so past that point the count is looked at every SMTP_READ_CHECK_MS.
 */
export const SMTP_REPLY_MAX_BYTES = 64 * 1024
const SMTP_READ_CHECK_MS = 20

/**
 * The connection nodemailer sends over (its getSocket hook): opened here so that it is bounded — at
 * most SMTP_REPLY_MAX_BYTES read, and closed timeout_ms after it was opened, whatever the server
 * trickles (nodemailer's own timeouts restart with every byte).
 */
function boundedSocket(s: Config['smtp']) {
  return (_options: unknown, done: (err: Error | null, socketOptions: object) => void) => {
    const raw: Socket = s.secure
      ? tlsConnect({ host: s.host, port: s.port, ...(isIP(s.host) ? {} : { servername: s.host }), rejectUnauthorized: s.reject_unauthorized })
      : netConnect({ host: s.host, port: s.port })
    const cut = (why: string) => raw.destroy(Object.assign(new Error(why), { code: 'ETIMEDOUT' }))
    const deadline = setTimeout(() => cut(`the SMTP delivery took longer than ${s.timeout_ms} ms`), s.timeout_ms)
    const tooMuch = () => {
      if (raw.bytesRead > SMTP_REPLY_MAX_BYTES) cut(`the SMTP server sent more than ${SMTP_REPLY_MAX_BYTES} bytes`)
    }
    // counted as each chunk arrives, once nodemailer reads the socket (a listener of ours before its
    // would start the flow early and the greeting would be lost to it)
    raw.on('newListener', function first(event) {
      if (event !== 'data') return
      raw.off('newListener', first)
      process.nextTick(() => raw.on('data', tooMuch))
    })
    const check = setInterval(tooMuch, SMTP_READ_CHECK_MS)
    raw.once('close', () => {
      clearTimeout(deadline)
      clearInterval(check)
    })
    let connected = false
    raw.once(s.secure ? 'secureConnect' : 'connect', () => {
      connected = true
      done(null, { connection: raw, secured: s.secure })
    })
    raw.once('error', (err) => {
      if (!connected) done(err, {})
    })
  }
}

export function createTransport(config: Pick<Config, 'smtp'>) {
  const s = config.smtp
  return nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.secure,
    requireTLS: s.require_tls,
    tls: { rejectUnauthorized: s.reject_unauthorized },
    ...(s.user ? { auth: { user: s.user, pass: s.password } } : {}),
    connectionTimeout: s.timeout_ms,
    greetingTimeout: s.timeout_ms,
    socketTimeout: s.timeout_ms,
    getSocket: boundedSocket(s),
  })
}

/**
 * The sender of kind 'email'. A permanent refusal of the recipient or the message (5xx to RCPT TO or
 * DATA) is not retried; anything else (server down, 4xx, authentication) is, with the outbox's backoff.
 */
export function emailSender(config: Pick<Config, 'smtp' | 'server'>): Sender {
  const transport = createTransport(config)
  const from = mailFrom(config)
  return async (row: OutboxRow) => {
    let msg: MailMessage
    try {
      msg = JSON.parse(row.body) as MailMessage
    } catch {
      throw new PermanentFailure('the stored message is not JSON')
    }
    if (msg.redacted) throw new PermanentFailure('the message was redacted after an earlier delivery')
    try {
      await transport.sendMail({
        from,
        to: msg.to,
        envelope: { from: addressOf(from), to: [row.target] },
        subject: msg.subject,
        text: msg.text,
        html: msg.html,
        ...(msg.ics ? { icalEvent: { method: msg.ics.method, content: msg.ics.content, filename: msg.ics.filename } } : {}),
        headers: { 'X-Arbiter-Delivery': String(row.id) },
      })
    } catch (err) {
      const { responseCode: code, command } = err as { responseCode?: number; command?: string }
      // only a refusal of this recipient or this message is final; a 5xx to AUTH or MAIL FROM is our
      // own configuration, which the admin can fix, so those mails wait for it
      if (typeof code === 'number' && code >= 500 && (command === 'RCPT TO' || command === 'DATA'))
        throw new PermanentFailure(`SMTP ${code}: ${(err as Error).message}`)
      throw err
    }
  }
}

/**
 * Blanks the links out of e-mails that are no longer waiting to be sent: an outbox row keeps the
 * subject and recipient for `cli outbox`, not a live sign-in link (links are otherwise only stored hashed).
 */
export function redactSentMail(db: Db): number {
  return db
    .update(outbox)
    .set({ body: sql`json_object('to', json_extract(${outbox.body}, '$.to'), 'subject', json_extract(${outbox.body}, '$.subject'), 'redacted', json('true'))` })
    .where(and(eq(outbox.kind, 'email'), inArray(outbox.state, ['delivered', 'superseded']), sql`json_extract(${outbox.body}, '$.redacted') is null`))
    .run().changes
}
