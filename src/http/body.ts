// readBody(): reads the request body once, whatever the client says it is, into c.var.body.
// Real HackerEarth clients send JSON labelled as form data, form data labelled as JSON, and bodies with
// no Content-Type at all, so the label is only a hint: a body that looks like JSON is parsed as JSON,
// multipart is parsed as multipart, anything else as URL-encoded form fields.
import { isUtf8 } from 'node:buffer'
import { Readable } from 'node:stream'
import type { Context, MiddlewareHandler } from 'hono'
import { AppError } from '../errors.ts'
import { MAX_JSON_DEPTH } from '../json-limits.ts'
import { reserveBody } from './body-budget.ts'

export type Body = Record<string, unknown>

declare module 'hono' {
  interface ContextVariableMap {
    body: Body
  }
}

/**
 * Reads at most limitBytes; a larger body is refused before anything is parsed or stored. strictUtf8:
 * a body that is not valid UTF-8 is refused rather than read with replacement characters (a protocol
 * that hands the bytes of its strings through must not have them changed on the way).
 */
export function readBody(limitBytes: number, opts: { strictUtf8?: boolean } = {}): MiddlewareHandler {
  return async (c, next) => {
    const raw = await rawBody(c, limitBytes)
    if (opts.strictUtf8 && !isUtf8(raw)) throw new AppError('InvalidArgument', 'the body is not valid UTF-8', {})
    c.set('body', await parseBody(raw, c.req.header('content-type') ?? ''))
    await next()
  }
}

/** readUpTo's source passed its limit; the rest was never read. */
export class TooLarge extends Error {}
/** readUpTo's source failed before its end (the peer went away, a reset, a deadline). */
export class CutOff extends Error {}

/**
 * Every chunk of a stream (a request's body, a Node response), stopping as soon as the total passes
 * limit: TooLarge, and the source is cancelled unread. onChunk sees each chunk as it arrives and may
 * throw to refuse the rest. Chunked transfers carry no length, so the count is the only bound.
 */
export async function readUpTo(source: AsyncIterable<Uint8Array>, limit: number, onChunk?: (chunk: Uint8Array) => void): Promise<Buffer> {
  const it = source[Symbol.asyncIterator]()
  const stop = async (err: Error) => {
    await it.return?.().catch(() => {})
    return err
  }
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    let next: IteratorResult<Uint8Array>
    try {
      next = await it.next()
    } catch (err) {
      throw new CutOff(String(err))
    }
    if (next.done) break
    size += next.value.byteLength
    if (size > limit) throw await stop(new TooLarge(`larger than ${limit} bytes`))
    try {
      onChunk?.(next.value)
    } catch (err) {
      throw await stop(err as Error)
    }
    chunks.push(next.value)
  }
  return Buffer.concat(chunks)
}

/**
 * The body of a request node's HTTP server received (hono's node adapter gives it as c.env.incoming),
 * read from node's own stream: `c.req.raw.body` would first build a fetch Request, an AbortController
 * and two web streams around it, on every request. A body refused before its end (past its limit,
 * its budget, a scan) stops the iterator without destroying the request (destroyOnReturn: false): a
 * destroyed request takes the socket with it before the refusal is written, and an iterator left
 * listening keeps the adapter from draining what is left unread, so it closed the keep-alive
 * connection under the client's next request ("socket hang up").
 */
function nodeBody(c: Context): AsyncIterable<Uint8Array> | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming
  if (!(incoming instanceof Readable)) return undefined
  return { [Symbol.asyncIterator]: () => incoming.iterator({ destroyOnReturn: false }) }
}

/**
 * The raw body, refused (PayloadTooLargeError) past limit bytes, declared or counted while reading.
 * onChunk sees each chunk as it arrives and may throw to refuse the body before the rest is read.
 * Given the request's Context, it reads the body from node's stream when the server is node's, and
 * counts it against its client's budget of bytes still arriving (body-budget.ts).
 */
export async function rawBody(from: Request | Context, limit: number, onChunk?: (chunk: Uint8Array) => void): Promise<Uint8Array> {
  const tooLarge = () => new AppError('PayloadTooLarge', `request body is larger than ${limit} bytes`, { limit })
  const req = from instanceof Request ? from : from.req.raw
  const declared = Number(req.headers.get('content-length') ?? NaN)
  if (declared > limit) throw tooLarge()
  const source = from instanceof Request ? undefined : nodeBody(from)
  if (!source && !req.body) return new Uint8Array()
  // the bytes of the client's unfinished bodies are bounded together (body-budget.ts)
  const budget = from instanceof Request ? undefined : reserveBody(from)
  const counted = budget
    ? (chunk: Uint8Array) => {
        budget.take(chunk.byteLength)
        onChunk?.(chunk)
      }
    : onChunk
  try {
    return await readUpTo(source ?? req.body!, limit, counted)
  } catch (err) {
    if (err instanceof TooLarge) throw tooLarge()
    // the client went away mid-upload: its fault, nobody left to answer, nothing to log as ours
    if (err instanceof CutOff) throw new AppError('InvalidArgument', 'the request body was cut off before its end', {})
    throw err
  } finally {
    budget?.release()
  }
}

/** A UTF-16 surrogate not in a pair: a JSON string may hold one (`"\ud800"`), and no UTF-8 bytes stand for it. */
export const hasLoneSurrogate = (s: string): boolean => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

/**
 * JSON.parse, then refuses a value nested deeper than MAX_JSON_DEPTH (counted without recursion): such
 * a value could be accepted but not echoed back or stored, as JSON.stringify recurses.
 */
export function parseBoundedJson(text: string): unknown {
  const value: unknown = JSON.parse(text)
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length) {
    const [v, depth] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth > MAX_JSON_DEPTH) throw new AppError('InvalidArgument', `the body nests deeper than ${MAX_JSON_DEPTH} levels`, {})
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
  }
  return value
}

export async function parseBody(raw: Uint8Array, contentType: string): Promise<Body> {
  if (/^multipart\/form-data/i.test(contentType)) return parseMultipart(raw, contentType)
  const text = new TextDecoder().decode(raw)
  const trimmed = text.trimStart()
  if (trimmed === '') return {}
  if (trimmed.startsWith('{')) {
    let value: unknown
    try {
      value = parseBoundedJson(text)
    } catch (err) {
      if (err instanceof AppError) throw err
      throw new AppError('InvalidArgument', 'the body looks like JSON but does not parse', {})
    }
    return value as Body
  }
  if (trimmed.startsWith('[')) throw new AppError('InvalidArgument', 'the body must be a JSON object or form fields', {})
  const form: Body = {}
  // The first value of a repeated field wins, as Django's QueryDict.get does.
  for (const [key, value] of new URLSearchParams(text)) if (!(key in form)) form[key] = value
  return form
}

async function parseMultipart(raw: Uint8Array, contentType: string): Promise<Body> {
  let data: FormData
  try {
    data = await new Response(raw, { headers: { 'content-type': contentType } }).formData()
  } catch {
    throw new AppError('InvalidArgument', 'the multipart body does not parse', {})
  }
  const form: Body = {}
  for (const [key, value] of data) {
    if (key in form) continue
    // A file part (e.g. source uploaded as a file) counts as its text.
    form[key] = typeof value === 'string' ? value : await value.text()
  }
  return form
}
