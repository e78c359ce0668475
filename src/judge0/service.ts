// The Judge0 face of the submission core: its ranges from the admin's caps, the offered languages by
// id, a checked request → the core's SubmissionInput (what Judge0 keeps beyond the core's columns goes
// into the row's protocol data), and a stored row → the Judge0 record the replies are shaped from.
import type { Config } from '../config.ts'
import type { Deps } from '../deps.ts'
import type { Client } from '../clients/clients.ts'
import { protocolDataOf, rawResultOf, type Submission } from '../evaluation/model.ts'
import { acceptAndWait, acceptSubmission, getSubmission, type SubmissionInput } from '../evaluation/submissions.ts'
import { MAX_REPEAT } from '../jobs/types.ts'
import { offeredLanguage, offeredLanguages, PROVISIONED_TTL_MS, recordedVersions, type Language } from '../languages.ts'
import { describeLanguage, entryById, offeredJudge0Languages, type Judge0Language, type Judge0LanguageEntry } from './languages.ts'
import type { Judge0Record } from './replies.ts'
import type { Judge0Ranges } from './schemas.ts'
import { runReport, STATUS, statusById } from './statuses.ts'
import type { CheckContext, Judge0Input } from './validate.ts'

/** The protocol's name in submissions.api. */
export const JUDGE0 = 'judge0'

/**
 * Judge0 CE's default maxima (judge0.conf), each lowered to the admin's cap where that is lower, and its
 * minima, each raised to the admin's floor where that is higher: a request outside them is refused (422)
 * as Judge0 refuses it, never silently clamped or raised.
 */
export function judge0Ranges(config: Config): Judge0Ranges {
  const l = config.limits
  return {
    // Judge0's smallest is 0; the core raises anything under limits.min_time_sec, so that is refused instead
    minCpuTimeLimit: l.min_time_sec,
    maxCpuTimeLimit: Math.min(15, l.max_time_sec),
    // the core grants at most limits.max_time_sec of extra CPU time
    maxCpuExtraTime: Math.min(5, l.max_time_sec),
    maxWallTimeLimit: Math.min(20, l.max_time_sec * 2 + l.wall_extra_sec),
    // Judge0's smallest is 2048; the core raises anything under limits.min_memory_kb
    minMemoryLimit: Math.max(2048, l.min_memory_kb),
    maxMemoryLimit: Math.min(512000, l.max_memory_kb),
    maxStackLimit: 128000,
    maxMaxProcessesAndOrThreads: Math.min(120, l.processes),
    maxMaxFileSize: Math.min(4096, Math.floor(l.output_cap_bytes / 1024)),
    maxNumberOfRuns: Math.min(20, MAX_REPEAT),
  }
}

type LangDeps = Pick<Deps, 'config' | 'languages'>

/** The offered languages, sorted by name (GET /languages). */
export function judge0Languages(deps: LangDeps): Judge0Language[] {
  return offeredJudge0Languages(offeredLanguages(deps.languages, deps.config), recordedVersions(deps.config.paths.toolchains))
}

// versions.json as one submission's language name needs it: stat'ed at most once per PROVISIONED_TTL_MS
// (a stat per submission cost the main thread more than the rest of the request's checks); listings
// read it afresh
let versionsForSubmissions: { dir: string; at: number; versions: ReturnType<typeof recordedVersions> } | undefined
function submissionVersions(dir: string, now = Date.now()): ReturnType<typeof recordedVersions> {
  if (versionsForSubmissions?.dir !== dir || now - versionsForSubmissions.at >= PROVISIONED_TTL_MS) {
    versionsForSubmissions = { dir, at: now, versions: recordedVersions(dir) }
  }
  return versionsForSubmissions.versions
}

/** An offered language by Judge0 id. */
export function judge0Language(deps: LangDeps, id: number): { entry: Judge0LanguageEntry; lang: Language; described: Judge0Language } | undefined {
  const entry = entryById(deps.languages, id)
  if (!entry) return undefined
  // this one language's offer, not every language's (a Judge0 submission asks once)
  const offer = offeredLanguage(deps.languages, deps.config, entry.code)
  if (!offer.ok) return undefined
  const lang = offer.language
  return { entry, lang, described: describeLanguage(entry, lang, submissionVersions(deps.config.paths.toolchains)[entry.code]?.version) }
}

export function checkContext(deps: LangDeps): CheckContext {
  const l = deps.config.limits
  return {
    ranges: judge0Ranges(deps.config),
    languageOf: (id) => judge0Language(deps, id),
    sourceMaxBytes: l.source_max_bytes,
    executableMaxBytes: l.executable_max_bytes,
    inputMaxBytes: l.input_max_bytes,
    zip: { maxFiles: l.files_max_count, totalBytes: l.files_max_bytes },
  }
}

/** What a Judge0 submission keeps beyond the core's columns (row.protocolJson). */
export interface Judge0Data {
  languageId: number
  languageName: string
  /** With `bytes`, one character per byte (latin1); rows stored before it hold UTF-8 text. */
  stdin: string | null
  expectedOutput: string | null
  /** stdin, expectedOutput and the row's source are bytes, one character each (the core's inputEncoding latin1). */
  bytes?: true
  numberOfRuns: number
  cpuTimeLimit: number
  cpuExtraTime: number
  wallTimeLimit: number
  memoryLimit: number
  stackLimit: number
  maxProcessesAndOrThreads: number
  maxFileSize: number
  redirectStderrToStdout: boolean
  compilerOptions: string | null
  commandLineArguments: string | null
  callbackUrl: string | null
  /** The zip as sent, Base64 (shown back as additional_files). */
  additionalFiles: string | null
  /** A multi-file program: the row's source is its run script, shown back as no source_code (Judge0 keeps none). */
  project?: true
}

const latin1 = (b: Buffer | null): string | null => (b === null ? null : b.toString('latin1'))

export function submissionInput(input: Judge0Input, wait: boolean): SubmissionInput {
  const data: Judge0Data = {
    languageId: input.languageId,
    languageName: '',
    stdin: latin1(input.stdin),
    expectedOutput: latin1(input.expectedOutput),
    bytes: true,
    numberOfRuns: input.numberOfRuns,
    cpuTimeLimit: input.cpuTimeLimit,
    cpuExtraTime: input.cpuExtraTime,
    wallTimeLimit: input.wallTimeLimit,
    memoryLimit: input.memoryLimit,
    stackLimit: input.stackLimit,
    maxProcessesAndOrThreads: input.maxProcessesAndOrThreads,
    maxFileSize: input.maxFileSize,
    redirectStderrToStdout: input.redirectStderrToStdout,
    compilerOptions: input.compilerOptions,
    commandLineArguments: input.commandLineArguments,
    callbackUrl: input.callbackUrl,
    additionalFiles: input.additionalFiles ? input.additionalFiles.toString('base64') : null,
    ...(input.project ? { project: true as const } : {}),
  }
  return {
    api: JUDGE0,
    // a waiting client goes first, unless it also wants a callback (the core keeps callbacks of asynchronous submissions)
    async: !wait || !!input.callbackUrl,
    lang: input.language.code,
    // the bytes as sent reach the jail (Judge0 writes them with "wb"): no text decoding on the way
    inputEncoding: 'latin1',
    source: input.sourceCode.toString('latin1'),
    input: latin1(input.stdin) ?? '',
    // Judge0's 0 means "no CPU limit": here, the largest there is
    timeLimit: input.cpuTimeLimit > 0 ? input.cpuTimeLimit : Number.MAX_SAFE_INTEGER,
    memoryLimit: input.memoryLimit,
    ...(input.callbackUrl ? { callback: input.callbackUrl } : {}),
    wallTimeSec: input.wallTimeLimit,
    processes: input.maxProcessesAndOrThreads,
    outputBytes: Math.max(1, input.maxFileSize) * 1024,
    ...(input.redirectStderrToStdout ? { redirectStderrToStdout: true } : {}),
    // isolate's -x: stopped at the limit plus the extra, judged over the limit (0: none)
    cpuExtraSec: input.cpuExtraTime,
    // isolate's -k, where 0 is no stack limit: then the stack may take all of memory_limit
    stackKb: input.stackLimit > 0 ? input.stackLimit : input.memoryLimit,
    // Judge0 runs the program number_of_runs times and reports the mean time and memory (judge0Record)
    repeat: input.numberOfRuns,
    // the exact bytes: Base64 replies carry them, and plain replies must tell text that is not UTF-8
    outputEncoding: 'latin1',
    ...(input.files.length ? { files: input.files.map((f) => ({ name: f.name, contentBase64: f.content.toString('base64') })) } : {}),
    ...(input.sourceFileName ? { sourceFileName: input.sourceFileName } : {}),
    ...(input.compileArgv ? { compileArgv: input.compileArgv } : {}),
    ...(input.runArgv ? { runArgv: input.runArgv } : {}),
    protocolData: data,
  }
}

type ServiceDeps = Parameters<typeof acceptSubmission>[0]

/**
 * Stores one submission (the language's Judge0 name kept with it); with wait, holds until it is done or
 * judge0.wait_max_sec has passed (done: false, the row as it stands; it still runs).
 */
export async function createSubmission(
  deps: ServiceDeps,
  client: Client,
  input: Judge0Input,
  languageName: string,
  wait: boolean
): Promise<{ row: Submission; done: boolean }> {
  const sub = submissionInput(input, wait)
  sub.protocolData = { ...(sub.protocolData as Judge0Data), languageName }
  if (!wait) return { row: acceptSubmission(deps, client, sub), done: false }
  return acceptAndWait(deps, client, sub, deps.config.judge0.wait_max_sec * 1000)
}

/** A client's own Judge0 submission by token; another client's, or another protocol's, is not found. */
export function findSubmission(deps: Pick<Deps, 'db'>, client: Client, token: string): Submission | undefined {
  try {
    const row = getSubmission(deps, client, token)
    return row.api === JUDGE0 ? row : undefined
  } catch {
    return undefined
  }
}

const orNull = (s: string | null | undefined) => (s === null || s === undefined || s === '' ? null : s)
/** The run's output as bytes (the core stored it one character per byte: outputEncoding latin1). */
const bytesOf = (s: string | null | undefined): Uint8Array | null => (s ? Buffer.from(s, 'latin1') : null)

/** A stored input attribute: bytes when the row keeps bytes, else the text it was stored as. */
const inputOf = (d: Judge0Data, s: string | null): string | Uint8Array | null => (s === null ? null : d.bytes ? Buffer.from(s, 'latin1') : s)

/** A stored row as Judge0 shows it. */
export function judge0Record(row: Submission): Judge0Record {
  const d = protocolDataOf(row) as Judge0Data
  const raw = rawResultOf(row)
  const base = {
    source_code: d.project ? null : inputOf(d, row.source),
    language_id: d.languageId,
    stdin: inputOf(d, d.stdin),
    expected_output: inputOf(d, d.expectedOutput),
    created_at: row.createdAt,
    token: row.publicId,
    number_of_runs: d.numberOfRuns,
    cpu_time_limit: d.cpuTimeLimit,
    cpu_extra_time: d.cpuExtraTime,
    wall_time_limit: d.wallTimeLimit,
    memory_limit: d.memoryLimit,
    stack_limit: d.stackLimit,
    max_processes_and_or_threads: d.maxProcessesAndOrThreads,
    enable_per_process_and_thread_time_limit: false,
    enable_per_process_and_thread_memory_limit: false,
    max_file_size: d.maxFileSize,
    compiler_options: d.compilerOptions,
    command_line_arguments: d.commandLineArguments,
    redirect_stderr_to_stdout: d.redirectStderrToStdout,
    callback_url: d.callbackUrl,
    additional_files: d.additionalFiles ? Buffer.from(d.additionalFiles, 'base64') : null,
    enable_network: false,
    language: { id: d.languageId, name: d.languageName },
  }
  const pending = { stdout: null, stderr: null, compile_output: null, finished_at: null, time: null, memory: null, wall_time: null, exit_code: null, exit_signal: null, message: null }
  const withStatus = (id: number) => ({ status_id: id, status: statusById(id) })
  if (row.state !== 'completed') return { ...base, ...pending, ...withStatus(row.state === 'queued' ? STATUS.queue : STATUS.process) }
  const finished = row.completedAt ?? row.createdAt
  // the compiler's messages, also its warnings when it succeeded (Judge0 keeps them in compile_output)
  const compiled = raw?.compile ? orNull(`${raw.compile.stdout}${raw.compile.stderr}`) : null
  if (row.failure) return { ...base, ...pending, ...withStatus(STATUS.internal), finished_at: finished, compile_output: compiled, message: row.failure }
  if (row.verdict === 'CE') return { ...base, ...pending, ...withStatus(STATUS.compilationError), finished_at: finished, compile_output: orNull(row.compileStatus) ?? 'Compilation failed' }
  const run = raw?.run
  if (!run) return { ...base, ...pending, ...withStatus(STATUS.internal), finished_at: finished, message: 'the run step left no result' }
  const stdout = bytesOf(row.stdout)
  // Judge0 compares bytes (both decoded from its Base64 columns): the stored latin1 strings are them, one
  // character per byte; a row stored before bytes were kept compares its text with the output's UTF-8
  const report = runReport(run, d.expectedOutput, d.bytes ? (row.stdout ?? null) : stdout ? Buffer.from(stdout).toString('utf8') : null)
  // number_of_runs: Judge0 shows the mean time and memory of the runs made (its memory column is an
  // integer: the mean truncated); wall_time, the output and the status are the last run's
  const runs = raw?.repeats?.length ? raw.repeats : [run]
  const ms = (s: number) => Math.round(s * 1000) / 1000
  const mean = (f: (r: (typeof runs)[number]) => number) => runs.reduce((sum, r) => sum + f(r), 0) / runs.length
  return {
    ...base,
    ...withStatus(report.statusId),
    stdout,
    stderr: bytesOf(row.stderr),
    compile_output: compiled,
    finished_at: finished,
    time: mean((r) => ms(r.cpuSec)),
    wall_time: ms(run.wallSec),
    memory: Math.trunc(mean((r) => Math.round(r.memoryKb))),
    exit_code: report.exitCode,
    exit_signal: report.exitSignal,
    message: report.message,
  }
}
