// zod shapes of the code-evaluation API: v3 form, v4 request, replies and callback bodies. The one
// source for request checks (parseRequest), reply tests and the OpenAPI document (http/openapi.ts).
// Requests are read the way real clients write them: numbers as strings, '' as "not given", unknown
// fields ignored, id and context of any JSON type.
import { z } from 'zod'
import { AppError } from '../errors.ts'
import type { Score as GradedScore } from '../evaluation/graded.ts'
import { CheckerSchema } from '../grading/checker-schema.ts'
import { TestStatus } from '../grading/types.ts'
import { PackageScore } from '../packages/stored-grading.ts'

const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v)

/** A text field: numbers become their text, '' and null mean "not given". */
const Text = z.preprocess((v) => {
  const b = blankToUndefined(v)
  return typeof b === 'number' || typeof b === 'boolean' ? String(b) : b
}, z.string().optional())

/** A required text field: '' or null counts as missing (→ ArgumentMissingError). */
const RequiredText = z.preprocess((v) => {
  const b = blankToUndefined(v)
  return typeof b === 'number' ? String(b) : b
}, z.string())

/** A number that may come as a string ("5", " 2.5 "); '' and null mean "use the default". */
const NumberLike = z.preprocess((v) => {
  const b = blankToUndefined(typeof v === 'string' ? v.trim() : v)
  if (typeof b === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(b)) return Number(b)
  return b
}, z.number().finite().optional())

/** async: 1 / "1" / true turn it on; 0, "0", false, '' and absence leave it off. */
const Flag = z.preprocess((v) => {
  const b = blankToUndefined(typeof v === 'string' ? v.trim().toLowerCase() : v)
  if (b === undefined || b === 0 || b === false || b === '0' || b === 'false') return 0
  if (b === 1 || b === true || b === '1' || b === 'true') return 1
  return b
}, z.union([z.literal(0), z.literal(1)]))

/** A client-chosen value echoed back as sent: string, number, object or null. */
const Echo = z.unknown().optional()

const common = {
  source: RequiredText.meta({ description: 'The program text.' }),
  lang: RequiredText.meta({ description: 'Language code (v3 or v4 value; case-insensitive; aliases such as C++ accepted).' }),
  input: Text.meta({ description: 'Text fed to the program on stdin.' }),
  time_limit: NumberLike.meta({ description: 'CPU seconds; larger values are clamped to limits.max_time_sec (5).' }),
  memory_limit: NumberLike.meta({ description: 'KB; larger values are clamped to limits.max_memory_kb (262144).' }),
  id: Echo.meta({ description: 'Client-chosen value, echoed back.' }),
  callback: Text.meta({ description: 'URL receiving the final result ("" = none; a missing scheme means http://).' }),
}

export const V3Request = z
  .object({
    client_secret: Text.meta({ description: '40-character client secret.' }),
    ...common,
    async: Flag.meta({ description: '1 = answer at once and POST the result to callback.' }),
  })
  .meta({ id: 'V3Request', description: 'v3 /code/run/ and /code/compile/ fields (form-encoded or JSON).' })
export type V3Request = z.infer<typeof V3Request>

/** A number or a numeric string, for fields inside test_cases. */
const PositiveNumber = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v), z.number().finite().nonnegative())

export const TestCase = z
  .object({
    input: z.string().meta({ description: 'stdin of this test.' }),
    expected_output: z.string().meta({ description: 'What the checker compares the program\'s stdout with.' }),
    points: PositiveNumber.optional().meta({ description: 'Points for passing it (default 1).' }),
    time_limit: PositiveNumber.optional().meta({ description: 'This test\'s CPU seconds (default: the submission\'s time_limit), clamped as time_limit is.' }),
  })
  .meta({ id: 'TestCase' })

/** "true"/"1"/true → true; absent, '' and "false"/"0"/false → false. */
const Bool = z.preprocess((v) => {
  const b = blankToUndefined(typeof v === 'string' ? v.trim().toLowerCase() : v)
  if (b === undefined || b === false || b === 0 || b === '0' || b === 'false') return false
  if (b === true || b === 1 || b === '1' || b === 'true') return true
  return b
}, z.boolean())

/** The most files a request may list before the config's own cap (limits.files_max_count) is checked. */
export const MAX_PROGRAM_FILES = 1024

export const ProgramFile = z
  .object({
    name: z.string().min(1).max(255).meta({ description: 'A plain file name (no folders).' }),
    content: z.string().meta({ description: 'The file\'s text.' }),
  })
  .meta({ id: 'ProgramFile' })

export const V4Request = z
  .object({
    ...common,
    context: Echo.meta({ description: 'Opaque client value (string or object), echoed back as sent.' }),
    client_secret: Text.meta({ description: 'Alternative to the client-secret header.' }),
    test_cases: z
      .array(TestCase)
      .optional()
      .meta({ description: 'Graded submission: the source is compiled once and run against each test in a fresh jail; input is then ignored. JSON bodies only.' }),
    problem_id: Text.meta({ description: 'Graded against a stored problem (its tests, checker and limits; checker, time_limit and memory_limit here override it).' }),
    checker: CheckerSchema.optional(),
    stop_on_first_failure: Bool.optional().meta({ description: 'Tests after the first that is not AC are SKIPPED (default false).' }),
    files: z
      .array(ProgramFile)
      .max(MAX_PROGRAM_FILES)
      .optional()
      .meta({
        description:
          "A multi-file program, in place of source (limits.files_max_count + 1 files, limits.source_max_bytes + limits.files_max_bytes bytes at most): the entry point is chosen as the judges choose it (Java: the class with main; C, C++ and other compiled languages: every source compiled together; Python and other interpreted languages: the only file of the language, else main.*), the others lie beside it. JSON bodies only.",
      }),
    entry_point: Text.meta({ description: "With files: the entry point's name, where the rules do not decide (several .py files without a main.py)." }),
  })
  .meta({ id: 'V4Request', description: 'v4 submission (JSON, form data, or JSON with any or no Content-Type).' })
export type V4Request = z.infer<typeof V4Request>

/** A v4 request with files: source may be left out. */
export const V4FilesRequest = V4Request.extend({ source: Text })

/** Validates a request body; the first problem becomes the spec's error (source is checked before lang). */
export function parseRequest<S extends z.ZodType>(schema: S, body: Record<string, unknown>): z.infer<S> {
  const parsed = schema.safeParse(body)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const field = String(issue.path[0] ?? 'body')
  const raw = body[field]
  if (raw === undefined || raw === null || raw === '') throw new AppError('ArgumentMissing', `${field} is needed!`)
  throw new AppError('InvalidArgument', `${field} is not valid (${issue.message})`, { [field]: raw })
}

// ── replies ────────────────────────────────────────────────────────────────────────────────────────

const RunStatusCode = z.enum(['AC', 'WA', 'TLE', 'MLE', 'RE', 'CE', 'IE', 'NA'])

export const V3RunStatus = z
  .object({
    status: RunStatusCode,
    time_limit: z.number().int(),
    memory_limit: z.number().int(),
    async: z.number().int(),
    time_used: z.string().optional(),
    memory_used: z.string().optional(),
    output: z.string().optional(),
    output_html: z.string().optional(),
    stderr: z.string().optional(),
    signal: z.string().optional(),
    status_detail: z.string().optional(),
    exit_code: z.string().optional(),
    request_OK: z.string().optional(),
  })
  .meta({ id: 'V3RunStatus' })

export const V3Reply = z
  .object({
    message: z.string().meta({ description: '"OK", or "InternalServerError: …" when the sandbox failed on our side.' }),
    errors: z.record(z.string(), z.unknown()),
    id: z.unknown(),
    code_id: z.string(),
    async: z.number().int(),
    compile_status: z.string().meta({ description: '"OK", "Compiling..." while pending, else the compiler\'s message.' }),
    web_link: z.string(),
    run_status: V3RunStatus.optional().meta({ description: '/code/run/ only.' }),
  })
  .meta({ id: 'V3Reply', description: 'v3 reply; also the JSON text of the callback\'s `payload` form field.' })
export type V3Reply = z.infer<typeof V3Reply>

export const RequestStatus = z.object({
  code: z.enum(['REQUEST_QUEUED', 'CODE_COMPILED', 'REQUEST_COMPLETED']),
  message: z.string(),
})

export const V4RunStatus = z
  .object({
    status: RunStatusCode,
    time_used: z.string(),
    memory_used: z.string(),
    signal: z.string(),
    exit_code: z.string(),
    status_detail: z.string(),
    stderr: z.string(),
    output: z.string().meta({ description: 'URL on this server serving the raw stdout as text/plain.' }),
    request_NOT_OK_reason: z.string(),
    request_OK: z.enum(['True', 'False']),
  })
  .partial()
  .meta({ id: 'V4RunStatus', description: '{status: "NA"} when queued, {} when compiled, every field when completed.' })

export const TestResult = z
  .object({
    id: z.string(),
    status: TestStatus,
    status_detail: z.string(),
    time_used: z.string(),
    memory_used: z.string(),
    exit_code: z.string(),
    points: z.number(),
    checker_message: z.string(),
    output: z.string().meta({ description: 'URL of this test\'s stdout (text/plain).' }),
  })
  .meta({ id: 'TestResult', description: 'One test of a graded submission, once it has run.' })

export type TestResult = z.infer<typeof TestResult>

/** The wire form of the core's Score (evaluation/graded.ts): the compiler keeps the two the same. */
export const Score = z
  .object({
    passed: z.number().int(),
    total: z.number().int(),
    points: z.number(),
    max_points: z.number(),
    package: PackageScore.optional().meta({ description: "A problem imported from a Kattis/ICPC package with groups or scores: its grading, which decides the verdict (docs/api/problem-packages.md)." }),
  })
  .meta({ id: 'Score' }) satisfies z.ZodType<GradedScore>

export const V4Reply = z
  .object({
    he_id: z.uuid(),
    request_status: RequestStatus,
    status_update_url: z.url(),
    context: z.unknown(),
    errors: z.record(z.string(), z.unknown()),
    result: z.object({
      run_status: V4RunStatus,
      compile_status: z.string(),
      tests: z.array(TestResult).optional().meta({ description: 'Graded submissions: the tests that have run, in order (filling in while it runs).' }),
      score: Score.optional().meta({ description: 'Graded submissions, once completed.' }),
      compile_cached: z.literal(true).optional().meta({ description: 'Present (true) when the compiled program came from the compile cache: a resubmission of the same source skipped the compile.' }),
    }),
  })
  .meta({ id: 'V4Reply', description: 'v4 reply to A3 and A4; also the JSON body POSTed to callback at CODE_COMPILED and REQUEST_COMPLETED.' })
export type V4Reply = z.infer<typeof V4Reply>

export const ErrorReply = z
  .object({
    message: z.string().meta({ description: '"<ErrorName>: <text>"' }),
    errors: z.record(z.string(), z.unknown()),
    request_status: z.object({ code: z.literal('REQUEST_FAILED'), message: z.string() }).optional().meta({ description: 'v4 only.' }),
  })
  .meta({ id: 'ErrorReply' })
