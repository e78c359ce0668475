// Replies that carry submissions, bounded before they are built. One stored submission can be ~6 MB
// (stdin, expected output, source, a zip, stdout, stderr, compile output) and a batch read may name it
// 20 times, so the reply's size is first estimated from the stored lengths (SQL, nothing read into
// JavaScript) and refused when even that is over judge0.reply_max_bytes; then each distinct submission
// is read once, one at a time, shaped and counted exactly as it is encoded, and the building stops as
// soon as the count passes the budget (plain text's JSON escapes can make it up to 6x the bytes). The
// reply is sent as the encoded parts, a repeated token's part sent again rather than copied.
import { and, eq, sql } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import type { Client } from '../clients/clients.ts'
import { submissions } from '../storage/schema.ts'
import type { Submission } from '../evaluation/model.ts'
import { preparedPerDb } from '../storage/prepared.ts'
import { Judge0Reply } from './errors.ts'
import { JUDGE0, findSubmission, judge0Record } from './service.ts'
import { ALL_FIELDS, shapeField, type Field } from './replies.ts'

/** An encoded attribute past this size gives the event loop a turn before the next one is built. */
const YIELD_BYTES = 64 * 1024
/** A reply of several parts up to this size is sent as one buffer (a copy this small costs less than a write a part). */
export const ONE_WRITE_BYTES = 64 * 1024
const OPEN_OBJECT = Buffer.from('{')
const CLOSE_OBJECT = Buffer.from('}')

/** Room for everything but the text attributes of one submission (numbers, dates, names, keys). */
const FIXED_BYTES = 1024

/** Bytes of `"…"` holding Ruby's Base64.encode64 of n bytes: a "\n" (two characters in JSON) every 60. */
export function base64JsonBytes(n: number): number {
  const b64 = 4 * Math.ceil(n / 3)
  return 2 + b64 + 2 * Math.ceil(b64 / 60)
}

/** The reply is over the budget: a 413 in Judge0's `{error}` shape, saying what to ask instead. */
export const tooLarge = (bytes: number, budget: number, batch: boolean) =>
  new Judge0Reply(413, {
    error: `the reply would be larger than ${budget} bytes (at least ${bytes}), the most one reply may carry here: ask for ${batch ? 'fewer tokens at a time, ' : ''}fewer fields${batch ? '' : ' (fields=…)'}, or base64_encoded=true`,
  })

/** The stored lengths of what each text attribute shows (characters: never more than its bytes). */
const lengths = {
  source_code: sql<number>`length(${submissions.source})`,
  stdin: sql<number>`coalesce(length(json_extract(${submissions.protocolJson}, '$.stdin')), 0)`,
  expected_output: sql<number>`coalesce(length(json_extract(${submissions.protocolJson}, '$.expectedOutput')), 0)`,
  stdout: sql<number>`coalesce(length(${submissions.stdout}), 0)`,
  stderr: sql<number>`coalesce(length(${submissions.stderr}), 0)`,
  compile_output: sql<number>`coalesce(length(${submissions.compileStatus}), 0) + coalesce(length(json_extract(${submissions.rawResultJson}, '$.compile.stdout')), 0) + coalesce(length(json_extract(${submissions.rawResultJson}, '$.compile.stderr')), 0)`,
  message: sql<number>`coalesce(length(${submissions.failure}), 0)`,
  // Base64 text without line breaks: its bytes are three quarters of its length
  additional_files: sql<number>`coalesce(length(json_extract(${submissions.protocolJson}, '$.additionalFiles')), 0) * 3 / 4`,
}
export type Sized = keyof typeof lengths

/**
 * A lower bound of each submission's reply (by token), from the stored lengths: exact for Base64 but
 * for the fixed part, the bytes themselves for plain text (whose escapes only add to it).
 */
type LengthsQuery = { all(params: { clientId: number; tokens: string }): ({ token: string } & Record<Sized, number>)[] }

/**
 * The lengths of the named tokens' submissions, by the public id's unique index: `+client_id` keeps the
 * planner off the client's own index, which it took otherwise and then read every submission the client
 * ever made (a bloom filter on the tokens), ~0.85 ms a reply at 2,000 rows, on every wait=true reply and
 * GET. The client and face are checked on the few rows found.
 */
export const lengthsSelect = (db: Deps['db'], chosen: Sized[]) =>
  db
    .select({ token: submissions.publicId, ...Object.fromEntries(chosen.map((f) => [f, lengths[f]])) })
    .from(submissions)
    .where(
      and(
        sql`${submissions.publicId} in (select value from json_each(${sql.placeholder('tokens')}))`,
        sql`+${submissions.clientId} = ${sql.placeholder('clientId')}`,
        eq(submissions.api, JUDGE0)
      )
    )

/**
 * The lengths query of each set of fields, prepared once per database (at most 2^8 sets, keyed in a fixed
 * order): building and preparing it cost more than running it, on every wait=true reply and every GET.
 */
const lengthsQueries = preparedPerDb((db: Deps['db']) => {
  const byFields = new Map<string, LengthsQuery>()
  return (chosen: Sized[]): LengthsQuery => {
    const key = chosen.join(',')
    let q = byFields.get(key)
    if (!q) {
      q = lengthsSelect(db, chosen).prepare() as unknown as LengthsQuery
      byFields.set(key, q)
    }
    return q
  }
})

export function estimateReplies(deps: Pick<Deps, 'db'>, client: Client, tokens: readonly string[], fields: readonly Field[], base64: boolean): Map<string, number> {
  const chosen = (Object.keys(lengths) as Sized[]).filter((f) => fields.includes(f))
  const rows = lengthsQueries(deps.db)(chosen).all({ clientId: client.id, tokens: JSON.stringify(tokens) })
  const out = new Map<string, number>()
  for (const row of rows) {
    let n = FIXED_BYTES
    for (const f of chosen) n += base64 || f === 'additional_files' ? base64JsonBytes(row[f]) : 2 + row[f]
    out.set(row.token, n)
  }
  return out
}

export interface BoundedReply {
  /** The encoded JSON of each position, null where the token is not this client's Judge0 submission. */
  parts: (Buffer | null)[]
  bytes: number
}

/**
 * Each token's submission as JSON, within budget bytes in all (a repeated token counted each time it is
 * sent). Throws the 413 before reading a row when the estimate is over, or as soon as the exact count is;
 * replies.ts NotUtf8 as shapeSubmission does.
 */
export async function boundedSubmissions(
  deps: Pick<Deps, 'db'>,
  client: Client,
  tokens: readonly string[],
  fields: readonly Field[],
  base64: boolean,
  budget: number,
  overhead = 0
): Promise<BoundedReply> {
  const batch = tokens.length > 1
  const distinct = [...new Set(tokens)]
  const estimates = estimateReplies(deps, client, distinct, fields, base64)
  const times = new Map<string, number>()
  for (const t of tokens) times.set(t, (times.get(t) ?? 0) + 1)
  let estimate = overhead
  for (const [t, n] of estimates) estimate += n * times.get(t)!
  if (estimate > budget) throw tooLarge(estimate, budget, batch)

  const encoded = new Map<string, Buffer | null>()
  let bytes = overhead
  for (const [i, t] of distinct.entries()) {
    // the event loop gets a turn between submissions: other requests (/health) do not wait for a whole batch
    if (i) await new Promise((r) => setImmediate(r))
    // read one at a time: at most one stored row is held besides what is already encoded
    const row = estimates.has(t) ? findSubmission(deps, client, t) : undefined
    if (!row) {
      bytes += 4 * times.get(t)!
      encoded.set(t, null)
      continue
    }
    const part = await encodeSubmission(row, fields, base64, bytes, times.get(t)!, budget, batch)
    bytes += part.length * times.get(t)!
    encoded.set(t, part)
  }
  return { parts: tokens.map((t) => encoded.get(t)!), bytes }
}

/**
 * One submission's JSON, attribute by attribute (the JSON.stringify of the whole object, in the
 * serializer's order), counted as each is encoded: a 413 as soon as `used` plus the part sent `times`
 * passes the budget, and a turn for the event loop after each large attribute.
 */
async function encodeSubmission(row: Submission, fields: readonly Field[], base64: boolean, used: number, times: number, budget: number, batch: boolean): Promise<Buffer> {
  const record = judge0Record(row)
  const chosen = new Set(fields)
  const pieces: Buffer[] = []
  let size = 2
  for (const f of ALL_FIELDS) {
    if (!chosen.has(f)) continue
    const piece = Buffer.from(`${pieces.length ? ',' : ''}${JSON.stringify(f)}:${JSON.stringify(shapeField(record, f, base64))}`)
    size += piece.length
    if (used + size * times > budget) throw tooLarge(used + size * times, budget, batch)
    pieces.push(piece)
    if (piece.length > YIELD_BYTES) await new Promise((r) => setImmediate(r))
  }
  return Buffer.concat([OPEN_OBJECT, ...pieces, CLOSE_OBJECT])
}

/**
 * The reply of a wait=true submission from its completed row, which the waiting request already holds:
 * no estimate and no second read (both are there so a stored row is not read into memory before the
 * reply is known to fit; this one is in memory). Counted and refused as boundedSubmissions does.
 */
export function boundedCompleted(row: Submission, fields: readonly Field[], base64: boolean, budget: number): Promise<Buffer> {
  return encodeSubmission(row, fields, base64, 0, 1, budget, false)
}

/** A JSON body of parts (a repeated part is the same Buffer again), its length known: one buffer when small, else sent part by part. */
export function jsonParts(parts: readonly Buffer[], status = 200): Response {
  const length = parts.reduce((n, p) => n + p.length, 0)
  const headers = { 'content-type': 'application/json', 'content-length': String(length) }
  // One part, or small ones together: one buffer, which node writes with the headers in one go. A
  // stream writes the headers, then each part: two writes and two packets for every wait=true reply
  // (one part each). Large parts stay apart, never copied.
  if (parts.length === 1) return new Response(parts[0], { status, headers })
  if (length <= ONE_WRITE_BYTES) return new Response(Buffer.concat(parts, length), { status, headers })
  let i = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) controller.enqueue(parts[i++])
      else controller.close()
    },
  })
  return new Response(body, { status, headers })
}

const OPEN = Buffer.from('{"submissions":[')
const COMMA = Buffer.from(',')
const NULL = Buffer.from('null')
const CLOSE = Buffer.from(']}')

/** GET /submissions/batch's body: `{"submissions":[…]}`, within the budget. */
export async function batchReply(deps: Pick<Deps, 'db'>, client: Client, tokens: readonly string[], fields: readonly Field[], base64: boolean, budget: number): Promise<Response> {
  const overhead = OPEN.length + CLOSE.length + tokens.length - 1
  const { parts } = await boundedSubmissions(deps, client, tokens, fields, base64, budget, overhead)
  const body: Buffer[] = [OPEN]
  parts.forEach((p, i) => body.push(...(i ? [COMMA] : []), p ?? NULL))
  body.push(CLOSE)
  return jsonParts(body)
}
