// zod shapes of the interview API (B1–B5 requests, replies, envelope): the one source for validation
// and for the OpenAPI document. A failing check's message is the spec's ecode; readRequest() turns the
// issues into one AppError by a fixed precedence.
import { parsePhoneNumberWithError, ParseError } from 'libphonenumber-js/max'
import { z } from 'zod'
import { AppError, type InterviewErrorCode } from '../errors.ts'
import { parseOffsetDateTime } from './datetime.ts'

export const MAX_INTERVIEWERS = 5
export const MAX_EVAL_PARAMS = 10

// ── field rules ────────────────────────────────────────────────────────────────────────────────────

/** A non-blank text. A blank object member never gets here (dropBlankMembers makes it missing). */
const text = (max: number) =>
  z
    .string()
    .min(1, 'BADDATA')
    .max(max, 'BADDATA')
    .refine((v) => v.trim() !== '', 'BADDATA')

const email = z.email({ error: 'INVALIDEMAIL' }).max(254, 'INVALIDEMAIL')

export function isHttpUrl(value: string): boolean {
  if (value.length > 2048 || !URL.canParse(value)) return false
  const u = new URL(value)
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''
}

const httpUrl = (ecode: InterviewErrorCode) =>
  z.string().max(2048, ecode).refine(isHttpUrl, ecode).meta({ format: 'uri' })

/** Why a contact number is refused, or null. It must carry its country code (+CC or 00CC). */
export function phoneProblem(value: string): 'INVALIDPHONENUMBER' | 'INVALIDCOUNTRYCODE' | null {
  // libphonenumber extracts a number from any text ("call +91…"); only phone characters are allowed here
  if (value.length > 40 || !/^[+\d\s().-]+$/.test(value)) return 'INVALIDPHONENUMBER'
  const trimmed = value.trim().replace(/^00/, '+')
  try {
    const n = parsePhoneNumberWithError(trimmed)
    return n.isValid() ? null : 'INVALIDPHONENUMBER'
  } catch (err) {
    if (err instanceof ParseError && err.message === 'INVALID_COUNTRY') return 'INVALIDCOUNTRYCODE'
    return 'INVALIDPHONENUMBER'
  }
}

/** E.164 form of a number phoneProblem() accepted. */
export const normalizePhone = (value: string): string =>
  parsePhoneNumberWithError(value.trim().replace(/^00/, '+')).number

const phone = z
  .string()
  .superRefine((v, ctx) => {
    const problem = phoneProblem(v)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })
  .meta({ description: 'With its country code, e.g. +91 98765 43210.', example: '+919876543210' })

const dateTime = z
  .string()
  .max(40, 'BADDATA')
  .refine((v) => parseOffsetDateTime(v) !== null, 'BADDATA')
  .meta({ format: 'date-time', description: 'ISO 8601 with a UTC offset.', example: '2030-05-01T10:00:00+05:30' })

const flag = z.boolean().nullish().meta({ description: 'Defaults to true.' })

// ── requests ───────────────────────────────────────────────────────────────────────────────────────

export const Credentials = z.object({
  client_id: z.string().meta({ description: '67-character key of the user.' }),
  client_secret: z.string().meta({ description: '40-character secret of the user.' }),
})

export const InterviewerInput = z.object({
  full_name: text(200),
  email_id: email,
  feedback_redirect_url: httpUrl('INVALIDURL').nullish(),
})
export type InterviewerInput = z.infer<typeof InterviewerInput>

const interviewWrite = {
  title: text(500),
  start_datetime: dateTime,
  interviewers: z
    .array(InterviewerInput)
    .min(1, 'MINONEINTERVIEWERREQUIRED')
    .max(MAX_INTERVIEWERS, 'MAXINTERVIEWERSLIMITCROSSED'),
  eval_params: z.array(text(200)).max(MAX_EVAL_PARAMS, 'MAXEVALPARAMSLIMITCROSSED').nullish(),
  inform_candidate: flag,
  inform_interviewers: flag,
}

// B2
export const InterviewCreate = Credentials.extend({
  ...interviewWrite,
  candidate_details: z.object({
    full_name: text(200),
    email_id: email,
    contact_number: phone.nullish(),
    resume_url: httpUrl('INVALIDRESUMEURL').nullish().meta({ description: 'A PDF of at most 2 MB, fetched at creation.' }),
  }),
  callback_url: httpUrl('INVALIDURL').nullish().meta({ description: 'Receives the report once the interview concludes.' }),
})
export type InterviewCreate = z.infer<typeof InterviewCreate>

// B3: resume_url and callback_url are not part of an update and are ignored when sent
export const InterviewUpdate = Credentials.extend({
  ...interviewWrite,
  candidate_details: z.object({
    full_name: text(200),
    email_id: email,
    contact_number: phone.nullish(),
  }),
})
export type InterviewUpdate = z.infer<typeof InterviewUpdate>

const interviewId = z.string().max(100, 'INTERVIEWNOTFOUND').meta({
  description: 'UUID as 32 lowercase hex characters (the hyphenated form is accepted too).',
  example: 'a3c1f0e2b4d64e7f9a8b7c6d5e4f3a2b',
})

// B4
export const ReportRequest = Credentials.extend({
  interview_id: interviewId,
  filters: z
    .object({
      interviewer_emails: z.array(z.string().max(254, 'BADDATA')).max(50, 'BADDATA').nullish(),
    })
    .nullish(),
})
export type ReportRequest = z.infer<typeof ReportRequest>

// B5
export const DeleteRequest = Credentials.extend({
  interview_id: interviewId,
  inform_candidate: flag,
  inform_interviewers: flag,
})
export type DeleteRequest = z.infer<typeof DeleteRequest>

// ── replies ────────────────────────────────────────────────────────────────────────────────────────

export const Envelope = z.object({
  mcode: z.string().meta({ example: 'success', description: '"success", or "FAILED".' }),
  message: z.string().meta({ example: 'success', description: '"success", or "Request failed".' }),
  ecode: z.array(z.string()).meta({ description: 'One error code on failure, empty on success.' }),
  emessage: z.array(z.string()),
})
export type Envelope = z.infer<typeof Envelope>

export const success = (): Envelope => ({ mcode: 'success', message: 'success', ecode: [], emessage: [] })

// B2, B3
export const InterviewLinks = Envelope.extend({
  interview_id: z.string(),
  candidate_interview_link: z.string(),
  interviewer_interview_links: z.record(z.string(), z.string()).meta({ description: 'Interviewer e-mail → link.' }),
})
export type InterviewLinks = z.infer<typeof InterviewLinks>

// B1
export const InterviewRead = Envelope.extend({
  interview_id: z.string(),
  title: z.string(),
  start_datetime: z.string(),
  status: z.enum(['upcoming', 'ongoing', 'completed']),
  candidate_details: z.object({
    full_name: z.string(),
    email_id: z.string(),
    contact_number: z.string().nullable(),
    resume_url: z.string().nullable().meta({ description: 'Signed link to the stored PDF on this server.' }),
  }),
  interviewers: z.array(z.object({ full_name: z.string(), email_id: z.string(), feedback_redirect_url: z.string().nullable() })),
  eval_params: z.array(z.string()),
})
export type InterviewRead = z.infer<typeof InterviewRead>

export const Rating = z.object({
  rating: z.string().nullable().meta({ description: '"1" (weakest) to "5".' }),
  comment: z.string().nullable(),
  verbose_name: z.string().nullable(),
  rating_message: z.string().nullable(),
})
export type Rating = z.infer<typeof Rating>

export const Feedback = z.object({
  result: z.string().nullable().meta({ description: 'STRONG_NO, NO, YES or STRONG_YES; null when not submitted.' }),
  ratings: z.record(z.string(), Rating).nullable(),
  eval_params_ratings: z
    .record(z.string(), Rating)
    .nullable()
    .meta({ description: 'eval_param → rating; {} when the interview has no eval_params; null when not submitted.' }),
})
export type Feedback = z.infer<typeof Feedback>

// B4
export const InterviewReport = Envelope.extend({
  interview_id: z.string(),
  start_datetime: z.string(),
  end_datetime: z.string(),
  status: z.enum(['upcoming', 'ongoing', 'completed']),
  interviewer_feedbacks: z
    .record(z.string(), Feedback)
    .nullable()
    .meta({ description: 'null until completed; then interviewer e-mail → feedback (members see only their own).' }),
})
export type InterviewReport = z.infer<typeof InterviewReport>

/** What each endpoint takes and answers (its route in routes.ts carries the OpenAPI description built from this). */
export const InterviewShapes = {
  B1: { query: Credentials, reply: InterviewRead, status: 200 },
  B2: { body: InterviewCreate, reply: InterviewLinks, status: 201 },
  B3: { body: InterviewUpdate, reply: InterviewLinks, status: 200 },
  B4: { body: ReportRequest, reply: InterviewReport, status: 200 },
  B5: { body: DeleteRequest, reply: Envelope, status: 200 },
} as const

// ── reading a request ──────────────────────────────────────────────────────────────────────────────

/** Which code wins when one request breaks several rules (field-level rules before cross-field ones). */
const PRECEDENCE: InterviewErrorCode[] = [
  'ARGMISSING',
  'BADDATA',
  'MINONEINTERVIEWERREQUIRED',
  'MAXINTERVIEWERSLIMITCROSSED',
  'MAXEVALPARAMSLIMITCROSSED',
  'INVALIDEMAIL',
  'INVALIDCOUNTRYCODE',
  'INVALIDPHONENUMBER',
  'INVALIDURL',
  'INVALIDRESUMEURL',
  'INTERVIEWNOTFOUND',
]

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Copy of the body where object members that are null or blank strings are left out: clients send ""
 * for "not given", and a required member that is blank is as missing as an absent one. Only the
 * schema's depth is walked; anything deeper is left for zod to refuse by type.
 */
export function dropBlankMembers(value: unknown, depth = 0): unknown {
  if (depth > 4) return value
  if (Array.isArray(value)) return value.map((v) => (isPlainObject(v) ? dropBlankMembers(v, depth + 1) : v))
  if (!isPlainObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    // no member of ours has this name, and assigning it would set the copy's prototype
    if (k === '__proto__') continue
    if (v === null || (typeof v === 'string' && v.trim() === '')) continue
    out[k] = dropBlankMembers(v, depth + 1)
  }
  return out
}

/** interviewers[0].email_id */
export const argumentName = (path: PropertyKey[]): string =>
  path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '')

const valueAt = (root: unknown, path: PropertyKey[]): unknown => {
  let cur = root
  for (const p of path) {
    if (Array.isArray(cur) && typeof p === 'number') cur = cur[p]
    else if (isPlainObject(cur) && typeof p === 'string' && Object.hasOwn(cur, p)) cur = cur[p]
    else return undefined
  }
  return cur
}

export const argMissing = (name: string) => new AppError('ARGMISSING', `Request argument missing: '${name}'`)

/** Parses a body against a schema; the first broken rule by PRECEDENCE becomes the AppError. */
export function readRequest<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const cleaned = dropBlankMembers(body)
  const parsed = schema.safeParse(cleaned)
  if (parsed.success) return parsed.data
  let best: { code: InterviewErrorCode; rank: number; path: PropertyKey[] } | undefined
  for (const issue of parsed.error.issues) {
    const raw = valueAt(cleaned, issue.path)
    let code: InterviewErrorCode
    if (raw === undefined && issue.code === 'invalid_type') code = 'ARGMISSING'
    else if (issue.code === 'invalid_type' || issue.code === 'unrecognized_keys') code = 'BADDATA'
    else code = PRECEDENCE.includes(issue.message as InterviewErrorCode) ? (issue.message as InterviewErrorCode) : 'BADDATA'
    const rank = PRECEDENCE.indexOf(code)
    if (!best || rank < best.rank) best = { code, rank, path: issue.path }
  }
  if (!best) throw new AppError('BADDATA')
  if (best.code === 'ARGMISSING') throw argMissing(argumentName(best.path))
  throw new AppError(best.code)
}

/** Rules across fields of B2/B3, checked once every field is valid. */
export function crossFieldProblem(input: {
  candidate_details: { email_id: string }
  interviewers: { email_id: string }[]
  eval_params?: string[] | null
}): InterviewErrorCode | null {
  const candidate = input.candidate_details.email_id.trim().toLowerCase()
  const emails = input.interviewers.map((i) => i.email_id.trim().toLowerCase())
  if (emails.includes(candidate)) return 'INTERVIEWERCANDIDATECONFLICT'
  if (new Set(emails).size !== emails.length) return 'DUPLICATEINTERVIEWER'
  // two identical criteria would collide as rating keys
  const params = input.eval_params ?? []
  if (new Set(params.map((p) => p.trim())).size !== params.length) return 'BADDATA'
  return null
}
