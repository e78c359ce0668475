// readBody(): reads the request body once, whatever the client says it is, into c.var.body.
// Real HackerEarth clients send JSON labelled as form data, form data labelled as JSON, and bodies with
// no Content-Type at all, so the label is only a hint: a body that looks like JSON is parsed as JSON,
// multipart is parsed as multipart, anything else as URL-encoded form fields.
import type { MiddlewareHandler } from 'hono'
import { AppError } from '../errors.ts'

export type Body = Record<string, unknown>

declare module 'hono' {
  interface ContextVariableMap {
    body: Body
  }
}

/** Reads at most limitBytes; a larger body is refused before anything is parsed or stored. */
export function readBody(limitBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const raw = await readCapped(c.req.raw, limitBytes)
    c.set('body', await parseBody(raw, c.req.header('content-type') ?? ''))
    await next()
  }
}

/**
 * The raw body, refused (PayloadTooLargeError) past limit bytes, declared or counted while reading.
 * onChunk sees each chunk as it arrives and may throw to refuse the body before the rest is read.
 */
export async function readCapped(req: Request, limit: number, onChunk?: (chunk: Uint8Array) => void): Promise<Uint8Array> {
  const tooLarge = () => new AppError('PayloadTooLargeError', `request body is larger than ${limit} bytes`, { limit })
  const declared = Number(req.headers.get('content-length') ?? NaN)
  if (declared > limit) throw tooLarge()
  if (!req.body) return new Uint8Array()
  // Chunked bodies carry no length: count while reading and stop at the cap.
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = req.body.getReader()
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>
    try {
      chunk = await reader.read()
    } catch {
      // the client went away mid-upload: its fault, nobody left to answer, nothing to log as ours
      throw new AppError('InvalidArgumentError', 'the request body was cut off before its end', {})
    }
    const { done, value } = chunk
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    if (onChunk) {
      try {
        onChunk(value)
      } catch (err) {
        await reader.cancel().catch(() => {})
        throw err
      }
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

/** Deepest nesting accepted in a JSON body: real requests nest 2-3 levels (an `id` or `context` a few more). */
export const MAX_JSON_DEPTH = 32

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
    if (depth > MAX_JSON_DEPTH) throw new AppError('InvalidArgumentError', `the body nests deeper than ${MAX_JSON_DEPTH} levels`, {})
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
      throw new AppError('InvalidArgumentError', 'the body looks like JSON but does not parse', {})
    }
    return value as Body
  }
  if (trimmed.startsWith('[')) throw new AppError('InvalidArgumentError', 'the body must be a JSON object or form fields', {})
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
    throw new AppError('InvalidArgumentError', 'the multipart body does not parse', {})
  }
  const form: Body = {}
  for (const [key, value] of data) {
    if (key in form) continue
    // A file part (e.g. source uploaded as a file) counts as its text.
    form[key] = typeof value === 'string' ? value : await value.text()
  }
  return form
}
