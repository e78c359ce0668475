// A real SMTP server on loopback (smtp-server) that keeps every message it accepts, can be stopped and
// started again on the same port (an outage), and a small MIME reader for what nodemailer sends
// (multipart, quoted-printable, base64), so tests can read the text, the links and the .ics attachment.
import { SMTPServer } from 'smtp-server'
import { freePort } from './harness.ts'

export interface Mail {
  /** RCPT TO addresses of the envelope. */
  to: string[]
  from: string
  headers: Record<string, string>
  /** The leaf parts, decoded. */
  parts: MimePart[]
  raw: string
}

export interface MimePart {
  contentType: string
  /** The attachment's file name, when it is one. */
  filename: string | null
  text: string
}

export interface SmtpSink {
  port: number
  received: Mail[]
  start(): Promise<void>
  stop(): Promise<void>
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const port = await freePort()
  let server: SMTPServer | undefined
  const sink: SmtpSink = {
    port,
    received: [],
    async start() {
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS', 'AUTH'],
        logger: false,
        onData(stream, session, done) {
          const chunks: Buffer[] = []
          stream.on('data', (d: Buffer) => chunks.push(d))
          stream.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8')
            const env = session.envelope
            sink.received.push({
              to: env.rcptTo.map((a) => a.address),
              from: env.mailFrom ? env.mailFrom.address : '',
              ...parseMessage(raw),
              raw,
            })
            done()
          })
        },
      })
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject)
        server!.listen(port, '127.0.0.1', () => resolve())
      })
    },
    async stop() {
      const s = server
      server = undefined
      if (s) await new Promise<void>((r) => s.close(() => r()))
    },
  }
  await sink.start()
  return sink
}

// ── MIME ───────────────────────────────────────────────────────────────────────────────────────────

function splitHead(entity: string): { headers: Record<string, string>; body: string } {
  const at = entity.indexOf('\r\n\r\n')
  const head = at < 0 ? entity : entity.slice(0, at)
  const body = at < 0 ? '' : entity.slice(at + 4)
  const headers: Record<string, string> = {}
  // unfold continuation lines, then one header per line
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { headers, body }
}

const param = (header: string | undefined, name: string): string | null =>
  new RegExp(`;\\s*${name}="?([^";]+)"?`, 'i').exec(header ?? '')?.[1] ?? null

function decode(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
    case 'quoted-printable':
      return Buffer.from(
        body
          .replace(/=\r\n/g, '')
          .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
        'latin1'
      ).toString('utf8')
    default:
      return body
  }
}

function leaves(entity: string): MimePart[] {
  const { headers, body } = splitHead(entity)
  const type = headers['content-type'] ?? 'text/plain'
  const boundary = param(type, 'boundary')
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    const sections = body.split(`--${boundary}`).slice(1)
    return sections.filter((p) => !p.startsWith('--')).flatMap((p) => leaves(p.replace(/^\r\n/, '').replace(/\r\n$/, '')))
  }
  return [
    {
      contentType: type.split(';')[0].trim().toLowerCase(),
      filename: param(headers['content-disposition'], 'filename') ?? param(type, 'name'),
      text: decode(body, headers['content-transfer-encoding']),
    },
  ]
}

export function parseMessage(raw: string): { headers: Record<string, string>; parts: MimePart[] } {
  return { headers: splitHead(raw).headers, parts: leaves(raw) }
}

/** The text/plain body of a mail. */
export const textOf = (m: Mail): string => m.parts.find((p) => p.contentType === 'text/plain' && !p.filename)?.text ?? ''

/** Every part of a mail, decoded, one after the other (text, HTML, calendar). */
export const decodedOf = (m: Mail): string => m.parts.map((p) => p.text.replace(/\r\n /g, '')).join('\n')

/** The .ics attachment of a mail, unfolded (RFC 5545 continuation lines joined). */
export const icsOf = (m: Mail): string | null => {
  const part = m.parts.find((p) => p.filename?.endsWith('.ics'))
  return part ? part.text.replace(/\r\n /g, '') : null
}

/** Every interview link in a text. */
export const linksIn = (text: string): string[] => text.match(/https?:\/\/[^\s"<>]+\/interviews\/join\/[A-Za-z0-9_-]{43}/g) ?? []
