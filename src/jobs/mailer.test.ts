import { eq } from 'drizzle-orm'
import { createServer as createNetServer, type Socket } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseConfig } from '../config.ts'
import { freePort } from '../testing/harness.ts'
import { openMemoryDb } from '../storage/db.ts'
import { outbox } from '../storage/schema.ts'
import { PermanentFailure } from './callback.ts'
import { addressOf, emailSender, mailFrom, redactSentMail, type MailMessage } from './mailer.ts'
import { enqueueDelivery, type OutboxRow } from './outbox.ts'

let server: SMTPServer
let port = 0
const got: { to: string[]; raw: string }[] = []

beforeAll(async () => {
  port = await freePort()
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(addr, _session, cb) {
      if (addr.address.startsWith('gone@')) return cb(Object.assign(new Error('no such user'), { responseCode: 550 }))
      if (addr.address.startsWith('busy@')) return cb(Object.assign(new Error('try later'), { responseCode: 451 }))
      cb()
    },
    onData(stream, session, cb) {
      let raw = ''
      stream.on('data', (d: Buffer) => (raw += d.toString()))
      stream.on('end', () => {
        got.push({ to: session.envelope.rcptTo.map((a) => a.address), raw })
        cb()
      })
    },
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()))
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const config = (smtp: Record<string, unknown> = {}) =>
  parseConfig({ server: { public_url: 'http://arbiter.test' }, smtp: { host: '127.0.0.1', port, timeout_ms: 3000, ...smtp } }, {}, '/nonexistent')

const message: MailMessage = {
  to: '"Cara" <cara@example.com>',
  subject: 'Interview invitation: X',
  text: 'hello http://arbiter.test/interviews/join/abc',
  html: '<p>hello</p>',
  ics: { method: 'REQUEST', content: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n', filename: 'invite.ics' },
}
const row = (target: string, msg: MailMessage = message) => ({ id: 9, kind: 'email', target, body: JSON.stringify(msg) }) as OutboxRow

describe('emailSender', () => {
  test('sends to the row target only, from smtp.from, with the .ics', async () => {
    await emailSender(config({ from: 'Acme <hr@acme.test>' }))(row('cara@example.com'))
    const m = got.at(-1)!
    expect(m.to).toEqual(['cara@example.com'])
    expect(m.raw).toMatch(/^From: Acme <hr@acme\.test>\r$/m)
    expect(m.raw).toMatch(/^X-Arbiter-Delivery: 9\r$/m)
    expect(m.raw).toMatch(/text\/calendar; charset=utf-8; method=REQUEST/)
    expect(m.raw).toMatch(/filename=invite\.ics/)
  })

  test('a recipient refused for good (5xx) is a permanent failure; a 4xx is retried', async () => {
    const send = emailSender(config())
    await expect(send(row('gone@example.com'))).rejects.toBeInstanceOf(PermanentFailure)
    const busy = await send(row('busy@example.com')).catch((e: unknown) => e)
    expect(busy).toBeInstanceOf(Error)
    expect(busy).not.toBeInstanceOf(PermanentFailure)
  })

  test('no server listening is retried, not given up', async () => {
    const err = await emailSender(config({ port: await freePort() }))(row('cara@example.com')).catch((e: unknown) => e)
    expect(String(err)).toMatch(/ECONNREFUSED/)
    expect(err).not.toBeInstanceOf(PermanentFailure)
  })

  test('a redacted message is never sent', async () => {
    await expect(emailSender(config())(row('cara@example.com', { ...message, redacted: true }))).rejects.toBeInstanceOf(PermanentFailure)
  })
})

test('mailFrom and addressOf', () => {
  expect(mailFrom(config({ from: ' HR <hr@acme.test> ' }))).toBe('HR <hr@acme.test>')
  expect(mailFrom(config())).toBe('Arbiter <arbiter@arbiter.test>')
  expect(mailFrom(parseConfig({ server: { public_url: 'http://10.0.0.5:8080' } }, {}, '/x'))).toBe('Arbiter <arbiter@[10.0.0.5]>')
  expect(addressOf('HR <hr@acme.test>')).toBe('hr@acme.test')
  expect(addressOf('hr@acme.test')).toBe('hr@acme.test')
})

test('redactSentMail blanks the links out of delivered mail and leaves waiting mail alone', () => {
  const db = openMemoryDb()
  const now = new Date()
  for (const target of ['a@x.test', 'b@x.test']) enqueueDelivery(db, { kind: 'email', target, body: JSON.stringify(message), contentType: 'application/json' }, now)
  db.update(outbox).set({ state: 'delivered' }).where(eq(outbox.target, 'a@x.test')).run()
  expect(redactSentMail(db)).toBe(1)
  expect(redactSentMail(db)).toBe(0)
  const bodies = Object.fromEntries(db.select().from(outbox).all().map((r) => [r.target, JSON.parse(r.body)]))
  expect(bodies['a@x.test']).toEqual({ to: message.to, subject: message.subject, redacted: true })
  expect(bodies['b@x.test']).toEqual(message)
})

describe("the SMTP server's replies are read at most SMTP_REPLY_MAX_BYTES, within timeout_ms", () => {
  // A server that greets, then answers EHLO with `reply`; it records what it wrote and when the
  // connection was closed from the other side.
  async function rawSmtp(reply: (sock: Socket, seen: { written: number }) => void) {
    const seen = { written: 0, closedAfterMs: -1 }
    const srv = createNetServer((sock) => {
      const started = Date.now()
      sock.on('error', () => {})
      sock.on('close', () => (seen.closedAfterMs = Date.now() - started))
      sock.write('220 relay.test ESMTP\r\n')
      sock.once('data', () => reply(sock, seen))
    })
    const p = await freePort()
    await new Promise<void>((r) => srv.listen(p, '127.0.0.1', r))
    return { port: p, seen, close: () => new Promise((r) => srv.close(r)) }
  }

  test.each([
    ['endless continuation lines', (sock: Socket, seen: { written: number }) => {
      const line = `250-${'x'.repeat(1000)}\r\n`
      const pump = () => {
        while (!sock.destroyed && sock.write(line)) seen.written += line.length
        if (!sock.destroyed) sock.once('drain', pump)
      }
      pump()
    }],
    ['one line that never ends', (sock: Socket, seen: { written: number }) => {
      const chunk = 'x'.repeat(64 * 1024)
      sock.write('250-')
      const pump = () => {
        while (!sock.destroyed && sock.write(chunk)) seen.written += chunk.length
        if (!sock.destroyed) sock.once('drain', pump)
      }
      pump()
    }],
    ['a reply trickled a byte every 20 ms (each byte restarts nodemailer\'s own timeouts)', (sock: Socket, seen: { written: number }) => {
      sock.write('250-')
      const t = setInterval(() => (sock.destroyed ? clearInterval(t) : (sock.write('x'), seen.written++)), 20)
    }],
  ])('%s: the delivery fails (to be retried) and the connection is closed', async (_, reply) => {
    const relay = await rawSmtp(reply)
    try {
      const started = Date.now()
      const err = await emailSender(config({ port: relay.port, timeout_ms: 1500 }))(row('cara@example.com')).then(() => null, (e: Error) => e)
      expect(err).toBeInstanceOf(Error)
      expect(err).not.toBeInstanceOf(PermanentFailure)
      expect(Date.now() - started).toBeLessThan(3000)
      await expect.poll(() => relay.seen.closedAfterMs, { timeout: 3000 }).toBeGreaterThanOrEqual(0)
      // what the server wrote: at most the bound, plus what the loopback's socket buffers took in
      expect(relay.seen.written).toBeLessThan(32 << 20)
    } finally {
      await relay.close()
    }
  }, 15_000)

  test('STARTTLS and TLS from the first byte still deliver through the bounded connection', { timeout: 15_000 }, async () => {
    for (const secure of [false, true]) {
      const p = await freePort()
      const delivered: string[] = []
      const tlsServer = new SMTPServer({
        secure,
        authOptional: true,
        disabledCommands: ['AUTH'],
        logger: false,
        onData(stream, session, cb) {
          stream.resume()
          stream.on('end', () => {
            delivered.push(`${session.secure}`)
            cb()
          })
        },
      })
      await new Promise<void>((r) => tlsServer.listen(p, '127.0.0.1', () => r()))
      try {
        await emailSender(config({ port: p, secure, require_tls: !secure, reject_unauthorized: false }))(row('cara@example.com'))
        expect(delivered).toEqual(['true'])
      } finally {
        await new Promise<void>((r) => tlsServer.close(() => r()))
      }
    }
  })
})
