// A Judge0 submission request → the checked, decoded values the service stores, or Judge0's 422
// body. The schema (schemas.ts) checks each attribute; then the rules Judge0's model adds (the
// language exists, compiler options only for compiled languages, no network) and Arbiter's own caps
// (source and stdin sizes, the additional_files zip), each under its attribute's name.
import { hasLoneSurrogate } from '../http/body.ts'
import { parseCallbackUrl } from '../jobs/callback.ts'
import type { Language } from '../languages.ts'
import { compileArgvWith, runArgvWith, splitWords } from './argv.ts'
import { MULTI_FILE_ID, type Judge0LanguageEntry } from './languages.ts'
import { decode64 } from './replies.ts'
import { addError, submissionRequest, VALIDATION_ORDER, type FieldErrors, type Judge0Ranges, type Judge0SubmissionRequest } from './schemas.ts'
import { readFilesZip, ZipRefused, type PlainFile } from './zip.ts'

/** Judge0 CE's own defaults (its judge0.conf), each lowered to its maximum here. */
export const JUDGE0_DEFAULTS = {
  cpuTimeLimit: 5,
  cpuExtraTime: 1,
  wallTimeLimit: 10,
  memoryLimit: 128000,
  stackLimit: 64000,
  maxProcessesAndOrThreads: 60,
  maxFileSize: 1024,
  numberOfRuns: 1,
} as const

export interface CheckContext {
  ranges: Judge0Ranges
  /** The offered language of an id, or undefined (unknown, not provisioned, not enabled). */
  languageOf(id: number): { entry: Judge0LanguageEntry; lang: Language } | undefined
  sourceMaxBytes: number
  /** The cap of a program sent as it runs (a language with sourceExecutable: Judge0's Executable). */
  executableMaxBytes: number
  inputMaxBytes: number
  zip: { maxFiles: number; totalBytes: number }
}

/** Everything a submission keeps, decoded: source, stdin and expected output as the bytes sent, the zip as bytes. */
export interface Judge0Input {
  languageId: number
  language: Language
  sourceCode: Buffer
  stdin: Buffer | null
  expectedOutput: Buffer | null
  cpuTimeLimit: number
  cpuExtraTime: number
  wallTimeLimit: number
  memoryLimit: number
  stackLimit: number
  maxProcessesAndOrThreads: number
  maxFileSize: number
  numberOfRuns: number
  redirectStderrToStdout: boolean
  compilerOptions: string | null
  commandLineArguments: string | null
  /** Set only when options or arguments change the manifest's argv. */
  compileArgv?: string[]
  runArgv?: string[]
  callbackUrl: string | null
  additionalFiles: Buffer | null
  files: PlainFile[]
  /** Judge0's multi-file program (is_project): no source_code; the zip's run script stands in for it. */
  project?: true
  /** The source's file name when it is not the language's (a project's run.sh). */
  sourceFileName?: string
}

/** Judge0's project scripts, each first found first (its IsolateJob): run.sh before run, compile.sh before compile. */
const RUN_SCRIPTS = ['run.sh', 'run']
const COMPILE_SCRIPTS = ['compile.sh', 'compile']

export type CheckResult = { ok: true; input: Judge0Input } | { ok: false; errors: FieldErrors }

const rubyBlank = (s: string | undefined | null) => s === undefined || s === null || s.trim() === ''

/**
 * A text attribute as the bytes the program gets: with base64_encoded=true the decoded bytes whatever
 * they are (Ruby's Base64.decode64, as Judge0 stores them); else the text's UTF-8, refused when it holds a
 * lone surrogate (there are no bytes for it to stand for: the client is told to send bytes as Base64).
 */
function bytesOf(errors: FieldErrors, field: string, value: string | undefined, base64: boolean): Buffer | undefined {
  if (value === undefined) return undefined
  if (base64) return decode64(value)
  if (hasLoneSurrogate(value)) {
    addError(errors, field, 'is not valid Unicode text (it holds a lone surrogate), use base64_encoded=true query parameter to send bytes')
    return undefined
  }
  return Buffer.from(value, 'utf8')
}

/** Ruby's blank? for bytes: empty or only ASCII whitespace. */
const blankBytes = (b: Buffer) => /^[\t\n\v\f\r ]*$/.test(b.toString('latin1'))

/** Judge0's defaults within this server's ranges (a server floor above a default raises it: what runs is what is shown). */
export function defaultsFor(ranges: Judge0Ranges) {
  const d = JUDGE0_DEFAULTS
  return {
    cpuTimeLimit: Math.max(ranges.minCpuTimeLimit, Math.min(d.cpuTimeLimit, ranges.maxCpuTimeLimit)),
    cpuExtraTime: Math.min(d.cpuExtraTime, ranges.maxCpuExtraTime),
    wallTimeLimit: Math.min(d.wallTimeLimit, ranges.maxWallTimeLimit),
    memoryLimit: Math.max(ranges.minMemoryLimit, Math.min(d.memoryLimit, ranges.maxMemoryLimit)),
    stackLimit: Math.min(d.stackLimit, ranges.maxStackLimit),
    maxProcessesAndOrThreads: Math.min(d.maxProcessesAndOrThreads, ranges.maxMaxProcessesAndOrThreads),
    maxFileSize: Math.min(d.maxFileSize, ranges.maxMaxFileSize),
    numberOfRuns: Math.min(d.numberOfRuns, ranges.maxNumberOfRuns),
  }
}

/** Orders the keys as Judge0's model adds them; language_id sits at its presence check only when blank. */
function ordered(errors: FieldErrors, languageBlank: boolean): FieldErrors {
  const order: string[] = [...VALIDATION_ORDER]
  if (!languageBlank) {
    // its existence check runs after the attribute validators
    order.splice(order.indexOf('language_id'), 1)
    order.push('language_id')
  }
  order.push('compiler_options', 'command_line_arguments', 'callback_url', 'additional_files', 'enable_network', 'stdin', 'expected_output')
  const out: FieldErrors = {}
  for (const f of order) if (errors[f] && !out[f]) out[f] = errors[f]!
  for (const [f, m] of Object.entries(errors)) if (!out[f]) out[f] = m
  return out
}

export async function checkSubmission(raw: unknown, base64: boolean, ctx: CheckContext): Promise<CheckResult> {
  const body = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {}
  // each attribute on its own, so every refusal is reported at once (as Rails validates them all)
  const schema = submissionRequest(ctx.ranges)
  const errors: FieldErrors = {}
  const values: Partial<Judge0SubmissionRequest> = {}
  for (const [k, s] of Object.entries(schema.shape)) {
    const r = s.safeParse(body[k])
    if (r.success) (values as Record<string, unknown>)[k] = r.data
    else for (const issue of r.error.issues) addError(errors, k, issue.message)
  }
  const field = <K extends keyof Judge0SubmissionRequest>(k: K) => values[k]

  const sourceText = field('source_code')
  const sourceCode = bytesOf(errors, 'source_code', sourceText, base64)
  const stdin = bytesOf(errors, 'stdin', field('stdin'), base64)
  const expectedOutput = bytesOf(errors, 'expected_output', field('expected_output'), base64)
  const languageId = field('language_id')
  // Judge0's language_existence runs whether or not the id was given ("language with id  doesn't exist")
  const offered = languageId === undefined ? undefined : ctx.languageOf(languageId)
  // Judge0's is_project (of a language that exists): the multi-file program has no source, only its zip
  const project = languageId === MULTI_FILE_ID && !!offered

  // Ruby's blank?: Unicode spaces in text, ASCII ones in bytes (Base64.decode64 gives a binary string)
  const sourceBlank = sourceCode === undefined || (base64 ? blankBytes(sourceCode) : sourceText!.trim() === '')
  // a program sent as it runs (Executable) has its own cap, checked again where the job is built
  const sourceMax = offered?.lang.sourceExecutable ? ctx.executableMaxBytes : ctx.sourceMaxBytes
  if (project) {
    if (!sourceBlank && !errors.source_code) addError(errors, 'source_code', 'must be blank')
  } else if (sourceBlank) {
    if (!errors.source_code) addError(errors, 'source_code', "can't be blank")
  } else if (sourceCode!.length > sourceMax) addError(errors, 'source_code', `is too long (maximum is ${sourceMax} bytes)`)
  if (stdin !== undefined && stdin.length > ctx.inputMaxBytes) addError(errors, 'stdin', `is too long (maximum is ${ctx.inputMaxBytes} bytes)`)
  if (expectedOutput !== undefined && expectedOutput.length > ctx.inputMaxBytes)
    addError(errors, 'expected_output', `is too long (maximum is ${ctx.inputMaxBytes} bytes)`)
  if (languageId === undefined) addError(errors, 'language_id', "can't be blank")

  for (const k of ['enable_per_process_and_thread_time_limit', 'enable_per_process_and_thread_memory_limit'] as const)
    if (field(k) === true) addError(errors, k, 'this option cannot be enabled')

  if (!offered) addError(errors, 'language_id', `language with id ${languageId ?? ''} doesn't exist`)

  const compilerOptions = field('compiler_options')
  let options: string[] = []
  if (!rubyBlank(compilerOptions)) {
    if (offered && !offered.lang.compile) addError(errors, 'compiler_options', 'setting compiler options is only allowed for compiled languages')
    const split = splitWords(compilerOptions!.trim())
    if (!split.ok) addError(errors, 'compiler_options', split.error)
    else options = split.words
  }
  const commandLineArguments = field('command_line_arguments')
  let args: string[] = []
  if (!rubyBlank(commandLineArguments)) {
    const split = splitWords(commandLineArguments!.trim())
    if (!split.ok) addError(errors, 'command_line_arguments', split.error)
    else args = split.words
  }

  const callbackUrl = field('callback_url')
  if (!rubyBlank(callbackUrl)) {
    try {
      parseCallbackUrl(callbackUrl!)
    } catch {
      addError(errors, 'callback_url', 'is not an http(s) URL')
    }
  }

  if (field('enable_network') === true) addError(errors, 'enable_network', 'enabling network is not allowed')

  let files: PlainFile[] = []
  let additionalFiles: Buffer | null = null
  const zipText = field('additional_files')
  if (project && rubyBlank(zipText)) addError(errors, 'additional_files', "can't be blank")
  if (!rubyBlank(zipText)) {
    additionalFiles = decode64(zipText!)
    try {
      files = await readFilesZip(additionalFiles, ctx.zip)
    } catch (err) {
      if (!(err instanceof ZipRefused)) throw err
      addError(errors, 'additional_files', err.message)
    }
    if (!project && offered && files.some((f) => f.name === offered.lang.sourceFile)) files = files.filter((f) => f.name !== offered.lang.sourceFile)
  }
  // the project's run script becomes the job's source (Judge0 would run `bash run.sh` and fail with
  // exit 127 without one: refused here, where the client can be told why)
  const runScript = project ? RUN_SCRIPTS.find((n) => files.some((f) => f.name === n)) : undefined
  if (project && additionalFiles && !errors.additional_files && !runScript) addError(errors, 'additional_files', 'holds no run script (run.sh or run) for the multi-file program')
  // the run script is the job's source: within the source cap, as any source
  const runBytes = runScript ? files.find((f) => f.name === runScript)!.content.length : 0
  if (runBytes > ctx.sourceMaxBytes) addError(errors, 'additional_files', `holds a run script (${runScript}) longer than ${ctx.sourceMaxBytes} bytes`)

  if (Object.keys(errors).length) return { ok: false, errors: ordered(errors, languageId === undefined) }

  const lang = offered!.lang
  const d = defaultsFor(ctx.ranges)
  const input: Judge0Input = {
    languageId: languageId!,
    language: lang,
    sourceCode: project ? files.find((f) => f.name === runScript)!.content : sourceCode!,
    stdin: stdin ?? null,
    expectedOutput: expectedOutput ?? null,
    cpuTimeLimit: field('cpu_time_limit') ?? d.cpuTimeLimit,
    cpuExtraTime: field('cpu_extra_time') ?? d.cpuExtraTime,
    wallTimeLimit: field('wall_time_limit') ?? d.wallTimeLimit,
    memoryLimit: Math.trunc(field('memory_limit') ?? d.memoryLimit),
    stackLimit: Math.trunc(field('stack_limit') ?? d.stackLimit),
    maxProcessesAndOrThreads: Math.trunc(field('max_processes_and_or_threads') ?? d.maxProcessesAndOrThreads),
    maxFileSize: Math.trunc(field('max_file_size') ?? d.maxFileSize),
    numberOfRuns: Math.trunc(field('number_of_runs') ?? d.numberOfRuns),
    redirectStderrToStdout: field('redirect_stderr_to_stdout') ?? false,
    compilerOptions: compilerOptions ?? null,
    commandLineArguments: commandLineArguments ?? null,
    callbackUrl: rubyBlank(callbackUrl) ? null : callbackUrl!.trim(),
    additionalFiles,
    files,
  }
  if (project) {
    // the manifest's `bash run` names the script found; a compile script, when there is one, runs the
    // same way first (else no compile step); Judge0 passes no arguments to a project's scripts
    const named = (name: string) => lang.run.map((a) => (a === lang.sourceFile ? name : a))
    const compileScript = COMPILE_SCRIPTS.find((n) => files.some((f) => f.name === n))
    input.project = true
    input.sourceFileName = runScript!
    input.files = files.filter((f) => f.name !== runScript)
    input.compileArgv = compileScript ? named(compileScript) : []
    input.runArgv = named(runScript!)
    return { ok: true, input }
  }
  if (options.length && lang.compile) input.compileArgv = compileArgvWith(lang.compile, lang.sourceFile, options)
  if (args.length) input.runArgv = runArgvWith(lang.run, args)
  return { ok: true, input }
}
