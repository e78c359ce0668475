// zod shapes of the Piston v2 API: the execute request, its reply, runtimes, packages and the error
// body. The one source for request checks (parseExecuteRequest), reply tests and the OpenAPI document.
// A refused request gets Piston's own 400 text (api/src/api/v2.js) where Piston has one.
import { z } from 'zod'
import { AppError } from '../errors.ts'
import { isPlainName } from '../evaluation/job-spec.ts'

/** Piston skips a limit that is falsy (`if (!constraint_value) continue`): 0, null, false, '' = not given. */
const Limit = (unit: string) =>
  z.preprocess((v) => (v === 0 || v === null || v === false || v === '' ? undefined : v), z.number().finite().optional()).meta({
    description: `${unit}; -1 = the server's maximum; absent or 0 = the default; below the server's smallest (docs/api/piston.md), refused.`,
  })

/** A plain file name, the core's rule (jobs/job-files.ts): letters, digits, `_+=@,.- `, no '..', not hidden, at most 255. */
export const FileName = z.string().refine(isPlainName, 'a plain file name')

export const PistonFile = z.object({
  // aiopyston sends "" for a file without a name: Piston then names it file<i>.code, as here
  name: z.preprocess((v) => (v === '' || v === null ? undefined : v), FileName.optional()).meta({
    description: "A plain file name (letters, digits, `_+=@,.-` and space; no '/', no '..', not starting with '.'); the first file is the program. Default: the language's source name for the first, file<i>.code for others.",
  }),
  content: z.string().meta({ description: 'The content, in `encoding`.' }),
  encoding: z.enum(['utf8', 'base64', 'hex']).optional().meta({ description: 'utf8 (default), base64 or hex.' }),
})
export type PistonFile = z.infer<typeof PistonFile>

export const PistonExecuteRequest = z.object({
  language: z.string().min(1).meta({ description: 'A language name or alias of GET /api/v2/runtimes (case-sensitive).' }),
  version: z.string().min(1).meta({ description: "A semver range: '3.13.5', '3', '3.x', '>=3.8', '*' (the newest)." }),
  files: z.array(PistonFile).meta({ description: 'The program first, then any other files it reads or compiles with.' }),
  stdin: z.string().optional().meta({ description: 'Text on stdin (a final newline is added when missing, as Piston does).' }),
  args: z.array(z.string()).optional().meta({ description: "The program's command-line arguments." }),
  compile_timeout: Limit('Compile wall-clock milliseconds'),
  run_timeout: Limit('Run wall-clock milliseconds'),
  compile_cpu_time: Limit('Compile CPU milliseconds'),
  run_cpu_time: Limit('Run CPU milliseconds'),
  compile_memory_limit: Limit('Compile memory in bytes'),
  run_memory_limit: Limit('Run memory in bytes'),
})
export type PistonExecuteRequest = z.infer<typeof PistonExecuteRequest>

export const LIMIT_NAMES = ['compile_timeout', 'run_timeout', 'compile_cpu_time', 'run_cpu_time', 'compile_memory_limit', 'run_memory_limit'] as const
export type LimitName = (typeof LIMIT_NAMES)[number]

/** The message of one issue, Piston's wording where Piston checks the field. */
function issueMessage(issue: z.core.$ZodIssue): string {
  const [field, index, sub] = issue.path
  switch (field) {
    case 'language':
      return 'language is required as a string'
    case 'version':
      return 'version is required as a string'
    case 'files':
      if (index === undefined) return 'files is required as an array'
      if (sub === 'name') return `files[${String(index)}].name must be a plain file name (letters, digits and _+=@,.- and space; no '/', no '..', not starting with '.'; at most 255 characters)`
      if (sub === 'encoding') return `files[${String(index)}].encoding must be one of utf8, base64, hex`
      return `files[${String(index)}].content is required as a string`
    case 'stdin':
      return 'If specified, stdin must be a string'
    case 'args':
      return 'If specified, args must be an array of strings'
    default:
      return `If specified, ${String(field)} must be a number`
  }
}

/** Piston checks language, version, files and contents first: the first issue in that order is the one reported. */
const rank = (issue: z.core.$ZodIssue): number => {
  const [field, index, sub] = issue.path
  const order = ['language', 'version', 'files']
  if (field === 'files' && index !== undefined) return 3 + (sub === 'content' || sub === undefined ? 0 : 1)
  return order.includes(field as string) ? order.indexOf(field as string) : 5
}

/** The request, or an InvalidArgumentError carrying Piston's message for the first problem. */
export function parseExecuteRequest(body: unknown): PistonExecuteRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('InvalidArgument', 'the body must be a JSON object')
  const parsed = PistonExecuteRequest.safeParse(body)
  if (parsed.success) return parsed.data
  const first = [...parsed.error.issues].sort((a, b) => rank(a) - rank(b))[0]
  throw new AppError('InvalidArgument', issueMessage(first), { field: first.path.join('.') })
}

// ── replies ──

export const PistonStage = z.object({
  stdout: z.string(),
  stderr: z.string(),
  output: z.string().meta({ description: 'stdout followed by stderr.' }),
  code: z.number().int().nullable().meta({ description: 'Exit code; null when killed.' }),
  signal: z.string().nullable().meta({ description: "e.g. 'SIGKILL' (time, memory or output limit), 'SIGSEGV'." }),
  message: z.string().nullable().meta({ description: "e.g. 'Time limit exceeded', 'Exited with error status 1'; null when it exited 0." }),
  status: z
    .enum(['RE', 'SG', 'TO', 'OL', 'EL', 'XX'])
    .nullable()
    .meta({ description: 'RE exit ≠ 0, SG killed by a signal (memory included), TO time limit, OL/EL output limit, XX internal; null when it exited 0.' }),
  cpu_time: z.number().nullable().meta({ description: 'CPU milliseconds.' }),
  wall_time: z.number().nullable().meta({ description: 'Wall-clock milliseconds.' }),
  memory: z.number().nullable().meta({ description: 'Peak memory in bytes.' }),
})
export type PistonStage = z.infer<typeof PistonStage>

export const PistonExecuteReply = z.object({
  language: z.string(),
  version: z.string(),
  run: PistonStage.meta({ description: 'The run; after a failed compile, a copy of `compile` (as Piston does).' }),
  compile: PistonStage.optional().meta({ description: 'Present for compiled languages.' }),
})
export type PistonExecuteReply = z.infer<typeof PistonExecuteReply>

export const PistonRuntime = z.object({
  language: z.string(),
  version: z.string().meta({ description: '3-part semver of the real toolchain.' }),
  aliases: z.array(z.string()),
  runtime: z.string().optional().meta({ description: 'The toolchain that provides several languages (gcc, mono, node).' }),
})

export const PistonPackage = z.object({ language: z.string(), language_version: z.string(), installed: z.boolean() })

export const PistonErrorBody = z.object({ message: z.string() })
