// zod shapes of the Judge0 CE 1.13.1 API: the submission request with Judge0's ranges and Rails'
// validation messages, the replies. Requests are read the way Rails reads them: numbers may be
// strings, booleans may be "true"/"1"/"false"/"0", null and absence mean "the default". A refusal is
// a 422 whose body is Judge0's `{field: [messages]}` (ActiveModel::Errors), its keys in the order
// Judge0's model validates them.
import { z } from 'zod'

/** The ranges a request is checked against (GET /config_info shows the same values). */
export interface Judge0Ranges {
  /** The smallest cpu_time_limit other than 0 (0 is Judge0's "no CPU limit": the largest allowed). */
  minCpuTimeLimit: number
  maxCpuTimeLimit: number
  maxCpuExtraTime: number
  maxWallTimeLimit: number
  /** Judge0's 2048, or the server's limits.min_memory_kb when larger: below it the core would raise the limit. */
  minMemoryLimit: number
  maxMemoryLimit: number
  maxStackLimit: number
  maxMaxProcessesAndOrThreads: number
  maxMaxFileSize: number
  maxNumberOfRuns: number
}

/** Rails prints a number in a message as Ruby does: a Float keeps its ".0". */
const rubyNumber = (n: number, float: boolean) => (float && Number.isInteger(n) ? `${n}.0` : String(n))

const blank = (v: unknown) => v === undefined || v === null

/** A number as Rails' numericality validator reads it (numeric strings count; '' and booleans do not). */
function numberLike(v: unknown): unknown {
  if (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) return Number(v)
  return v
}

interface Bound {
  gt?: number
  gte?: number
  /** 0 is accepted besides [gte, lte] (cpu_time_limit's "no limit"). */
  zero?: boolean
  lte: number
  float: boolean
}

/** Rails' numericality messages: the first failing check's, one per field. */
const numeric = ({ gt, gte, zero, lte, float }: Bound) =>
  z.preprocess(
    (v) => (blank(v) ? undefined : numberLike(v)),
    z
      .number({ error: 'is not a number' })
      .refine((n) => Number.isFinite(n), 'is not a number')
      .refine((n) => gt === undefined || n > gt, `must be greater than ${rubyNumber(gt ?? 0, float)}`)
      .refine((n) => gte === undefined || n >= gte || (zero === true && n === 0), `must be greater than or equal to ${rubyNumber(gte ?? 0, float)}`)
      .refine((n) => n <= lte, `must be less than or equal to ${rubyNumber(lte, float)}`)
      .optional()
  )

/** ActiveModel's boolean cast: false, 0, "0", "f", "false", "off" (any case) are false; '' is unset; anything else true. */
export function railsBoolean(v: unknown): boolean | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (v === false || v === 0) return false
  if (typeof v === 'string' && ['0', 'f', 'false', 'off'].includes(v.toLowerCase())) return false
  return true
}
const Bool = z.preprocess(railsBoolean, z.boolean().optional())

/** A text attribute: numbers and booleans become their text (Rails' to_s); other values are unset. */
const Text = z.preprocess((v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : typeof v === 'string' ? v : undefined), z.string().optional())

/** A string column with Rails' length validator. */
const limitedText = (max: number) => z.preprocess((v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : typeof v === 'string' ? v : undefined), z.string().max(max, `is too long (maximum is ${max} characters)`).optional())

/** language_id as Rails' integer cast reads it: "71" → 71, 71.9 → 71, "abc" → 0; '' and null are blank. */
export function railsInteger(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined
  if (v === true) return 1
  if (v === false) return 0
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : undefined
  if (typeof v === 'string') {
    if (v.trim() === '') return undefined
    const n = Number.parseInt(v.trim(), 10)
    return Number.isNaN(n) ? 0 : n
  }
  return undefined
}

const built = new Map<string, ReturnType<typeof buildRequest>>()
/** The request schema for these ranges (built once per set of ranges: requests reuse it). */
export function submissionRequest(r: Judge0Ranges): ReturnType<typeof buildRequest> {
  const key = JSON.stringify(r)
  let s = built.get(key)
  if (!s) built.set(key, (s = buildRequest(r)))
  return s
}

function buildRequest(r: Judge0Ranges) {
  return z
    .object({
      source_code: Text.meta({ description: "Program's source code (Base64 when base64_encoded=true). Required." }),
      language_id: z.preprocess(railsInteger, z.number().int().optional()).meta({ description: 'Language id (GET /languages). Required.' }),
      compiler_options: limitedText(512).meta({ description: 'Compiler flags, split into argv items like a shell splits words (nothing is expanded). Compiled languages only.' }),
      command_line_arguments: limitedText(512).meta({ description: "The program's arguments, split into argv items the same way." }),
      stdin: Text.meta({ description: 'Input for the program (Base64 when base64_encoded=true).' }),
      expected_output: Text.meta({ description: 'Compared with stdout, trailing whitespace of each line and trailing blank lines ignored: 3 Accepted or 4 Wrong Answer.' }),
      // a value the core would raise to its limits.min_time_sec is refused instead (0 stays Judge0's "no limit")
      cpu_time_limit: numeric({ gte: Math.max(0, r.minCpuTimeLimit), zero: true, lte: r.maxCpuTimeLimit, float: true }).meta({
        description: 'CPU seconds: 0 (the largest allowed) or from the server\'s smallest (GET /config_info shows the largest).',
      }),
      cpu_extra_time: numeric({ gte: 0, lte: r.maxCpuExtraTime, float: true }).meta({ description: 'Seconds a program past its CPU limit may run on before it is stopped; it is judged Time Limit Exceeded all the same, and its real time is reported.' }),
      wall_time_limit: numeric({ gte: 1, lte: r.maxWallTimeLimit, float: true }).meta({ description: 'Wall-clock seconds.' }),
      // Judge0's 2048, or the server's limits.min_memory_kb when larger: refused below it, never raised
      memory_limit: numeric({ gte: Math.max(2048, r.minMemoryLimit), lte: r.maxMemoryLimit, float: false }).meta({ description: "KB, from the larger of 2048 and the server's limits.min_memory_kb." }),
      stack_limit: numeric({ gte: 0, lte: r.maxStackLimit, float: false }).meta({ description: 'KB: the stack limit (whole MB, rounded up); 0 = as large as memory_limit.' }),
      max_processes_and_or_threads: numeric({ gt: 0, lte: r.maxMaxProcessesAndOrThreads, float: false }).meta({ description: 'Processes and threads alive at once.' }),
      enable_per_process_and_thread_time_limit: Bool.meta({ description: 'Only false: limits apply to the whole program.' }),
      enable_per_process_and_thread_memory_limit: Bool.meta({ description: 'Only false: limits apply to the whole program.' }),
      max_file_size: numeric({ gte: 0, lte: r.maxMaxFileSize, float: false }).meta({ description: 'KB the program may write to stdout (and to stderr, each).' }),
      redirect_stderr_to_stdout: Bool.meta({ description: 'stderr appended to stdout.' }),
      enable_network: Bool.meta({ description: 'Only false: programs never have a network.' }),
      number_of_runs: numeric({ gt: 0, lte: r.maxNumberOfRuns, float: false }).meta({ description: 'Runs of the program (each in a fresh box, until one does not end Accepted); time and memory are their mean.' }),
      additional_files: Text.meta({ description: 'Base64 of a .zip whose files (plain names, no folders) are put beside the source.' }),
      callback_url: Text.meta({ description: 'Receives a PUT with the submission when it is done.' }),
    })
    .meta({ id: 'Judge0SubmissionRequest' })
}
export type Judge0SubmissionRequest = z.infer<ReturnType<typeof submissionRequest>>

/** The attributes Judge0's model validates, in its order (the keys of a 422 body follow it). */
export const VALIDATION_ORDER = [
  'source_code',
  'additional_files',
  'language_id',
  'number_of_runs',
  'cpu_time_limit',
  'cpu_extra_time',
  'wall_time_limit',
  'memory_limit',
  'stack_limit',
  'max_processes_and_or_threads',
  'enable_per_process_and_thread_time_limit',
  'enable_per_process_and_thread_memory_limit',
  'max_file_size',
  'compiler_options',
  'command_line_arguments',
] as const

/** `{field: [messages]}`, keys in insertion order. */
export type FieldErrors = Record<string, string[]>

export function addError(errors: FieldErrors, field: string, message: string): void {
  ;(errors[field] ??= []).push(message)
}

// ── replies ──────────────────────────────────────────────────────────────────────────────────────

export const Judge0StatusReply = z.object({ id: z.number().int(), description: z.string() }).meta({ id: 'Judge0Status' })

const text = (d: string) => z.string().nullable().meta({ description: d })
const decimal = (d: string) => z.string().nullable().meta({ description: `${d} A decimal number as a string, e.g. "0.012".` })

/** Every attribute `fields=*` returns; a reply carries the requested subset (default: 8 of them). */
export const Judge0Submission = z
  .object({
    source_code: text('Base64 (with line breaks every 60 characters) when base64_encoded=true, as are the other text attributes.'),
    language_id: z.number().int(),
    stdin: text('stdin'),
    expected_output: text('expected_output'),
    stdout: text('stdout'),
    status_id: z.number().int(),
    created_at: z.string().meta({ description: 'ISO 8601 with milliseconds and Z.' }),
    finished_at: z.string().nullable(),
    time: decimal('CPU seconds.'),
    memory: z.number().int().nullable().meta({ description: 'Peak memory, KB.' }),
    stderr: text('stderr'),
    token: z.string().meta({ description: 'The submission token (a UUID).' }),
    number_of_runs: z.number().int(),
    cpu_time_limit: decimal('CPU limit.'),
    cpu_extra_time: decimal('Extra CPU time.'),
    wall_time_limit: decimal('Wall-clock limit.'),
    memory_limit: z.number().int(),
    stack_limit: z.number().int(),
    max_processes_and_or_threads: z.number().int(),
    enable_per_process_and_thread_time_limit: z.boolean(),
    enable_per_process_and_thread_memory_limit: z.boolean(),
    max_file_size: z.number().int(),
    compile_output: text("The compiler's messages."),
    exit_code: z.number().int().nullable(),
    exit_signal: z.number().int().nullable(),
    message: text('Why the run ended (isolate\'s wording), e.g. "Exited with error status 1".'),
    wall_time: decimal('Wall-clock seconds.'),
    compiler_options: z.string().nullable(),
    command_line_arguments: z.string().nullable(),
    redirect_stderr_to_stdout: z.boolean(),
    callback_url: z.string().nullable(),
    additional_files: z.string().nullable(),
    enable_network: z.boolean(),
    status: Judge0StatusReply,
    language: z.object({ id: z.number().int(), name: z.string() }),
  })
  .partial()
  .meta({ id: 'Judge0Submission' })

export const Judge0Language = z
  .object({
    id: z.number().int(),
    name: z.string(),
    is_archived: z.boolean().optional(),
    source_file: z.string().optional(),
    compile_cmd: z.string().nullable().optional(),
    run_cmd: z.string().optional(),
  })
  .meta({ id: 'Judge0Language' })

export const Judge0Error = z.object({ error: z.string() }).meta({ id: 'Judge0Error' })
export const Judge0FieldErrors = z.record(z.string(), z.array(z.string())).meta({ id: 'Judge0FieldErrors', description: '422: attribute → messages.' })
