// Checks and clamps what a protocol adds to a job (model.ts JobSpec) against the admin's caps
// (limits.*): a file name that could leave the work directory, a base64 that is not one, an argv item
// that is not a string, a limit past its cap. Refusals are AppErrors the protocol's edge words its way;
// limits are clamped, never refused. The worker checks names again where it writes the files.
import type { Config } from '../config.ts'
import { AppError } from '../errors.ts'
import { isPlainName } from '../jobs/job-files.ts'
import { COMPILE_CHECK_MARKER, MAX_REPEAT } from '../jobs/types.ts'
import type { JobFile, JobSpec } from './model.ts'

export { isPlainName }


const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const MAX_ARGV_ITEMS = 256
const MAX_ARGV_ITEM_CHARS = 4096

function checkArgv(field: string, argv: unknown): string[] {
  if (!Array.isArray(argv) || argv.length > MAX_ARGV_ITEMS) throw new AppError('InvalidArgument', `${field} must be a list of at most ${MAX_ARGV_ITEMS} strings`, { [field]: argv })
  for (const a of argv) {
    if (typeof a !== 'string' || a.length > MAX_ARGV_ITEM_CHARS || a.includes('\0'))
      throw new AppError('InvalidArgument', `${field} items must be strings of at most ${MAX_ARGV_ITEM_CHARS} characters`, { [field]: a })
  }
  return argv as string[]
}

/** A file the protocol holds on this disk, never changed in place (a Jobe upload): linked at accept, not read. */
export interface LinkedFile {
  name: string
  linkFrom: string
  bytes: number
}

function checkFiles(limits: Config['limits'], files: JobFile[], linked: LinkedFile[] = []): JobFile[] {
  if (files.length + linked.length > limits.files_max_count)
    throw new AppError('PayloadTooLarge', `more than ${limits.files_max_count} files`, { files_max_count: limits.files_max_count })
  let total = 0
  const seen = new Set<string>()
  for (const f of files) {
    if (!isPlainName(f.name)) throw new AppError('InvalidArgument', `file name '${String(f.name)}' is not a plain file name`, { name: f.name })
    if (seen.has(f.name)) throw new AppError('InvalidArgument', `file name '${f.name}' is given twice`, { name: f.name })
    seen.add(f.name)
    const b64 = f.contentBase64.replace(/\s+/g, '')
    if (b64.length % 4 === 1 || !BASE64.test(b64)) throw new AppError('InvalidArgument', `file '${f.name}' is not valid base64`, { name: f.name })
    // the decoded size: padding is no byte (two files of exactly files_max_bytes / 2 fit)
    total += Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0)
    if (total > limits.files_max_bytes)
      throw new AppError('PayloadTooLarge', `the files are larger than ${limits.files_max_bytes} bytes`, { files_max_bytes: limits.files_max_bytes })
  }
  for (const f of linked) {
    if (!isPlainName(f.name)) throw new AppError('InvalidArgument', `file name '${String(f.name)}' is not a plain file name`, { name: f.name })
    if (seen.has(f.name)) throw new AppError('InvalidArgument', `file name '${f.name}' is given twice`, { name: f.name })
    seen.add(f.name)
    total += f.bytes
    if (total > limits.files_max_bytes)
      throw new AppError('PayloadTooLarge', `the files are larger than ${limits.files_max_bytes} bytes`, { files_max_bytes: limits.files_max_bytes })
  }
  return files.map((f) => ({ name: f.name, contentBase64: f.contentBase64.replace(/\s+/g, '') }))
}

const clampTo = (v: number | undefined, min: number, max: number, whole = false): number | undefined => {
  if (v === undefined || !Number.isFinite(v) || v <= 0) return undefined
  const c = Math.max(min, Math.min(v, max))
  return whole ? Math.round(c) : c
}

/**
 * The spec a submission stores: checked, clamped to the config's caps, absent fields left out. Its
 * files (inline and linked) are still to be stored on disk (storage/payloads.ts) by the accept.
 */
export function normaliseJobSpec(
  config: Config,
  input: JobSpec & { linkedFiles?: LinkedFile[] },
  timeLimitSec = config.limits.max_time_sec,
  outputMaxBytes = config.limits.output_cap_bytes
): JobSpec & { linkedFiles?: LinkedFile[] } {
  const l = config.limits
  const spec: JobSpec & { linkedFiles?: LinkedFile[] } = {}
  if (input.files?.length || input.linkedFiles?.length) {
    const files = checkFiles(l, input.files ?? [], input.linkedFiles)
    if (files.length) spec.files = files
    if (input.linkedFiles?.length) spec.linkedFiles = input.linkedFiles.map((f) => ({ name: f.name, linkFrom: f.linkFrom, bytes: f.bytes }))
  }
  if (input.sourceFileName !== undefined) {
    if (!isPlainName(input.sourceFileName)) throw new AppError('InvalidArgument', `source file name '${input.sourceFileName}' is not a plain file name`, { name: input.sourceFileName })
    if (spec.files?.some((f) => f.name === input.sourceFileName) || spec.linkedFiles?.some((f) => f.name === input.sourceFileName))
      throw new AppError('InvalidArgument', `a file is named as the source file '${input.sourceFileName}'`, { name: input.sourceFileName })
    spec.sourceFileName = input.sourceFileName
  }
  if (input.compileArgv !== undefined) spec.compileArgv = checkArgv('compileArgv', input.compileArgv)
  if (input.runArgv !== undefined) {
    spec.runArgv = checkArgv('runArgv', input.runArgv)
    if (!spec.runArgv.length) throw new AppError('InvalidArgument', 'runArgv is empty', {})
  }
  const set = <K extends keyof JobSpec>(key: K, v: JobSpec[K] | undefined) => {
    if (v !== undefined) spec[key] = v
  }
  // the wall clock may reach what the default rule gives the (clamped) CPU limit, or the config's largest
  set('wallTimeSec', clampTo(input.wallTimeSec, 0.05, Math.max(l.max_time_sec, timeLimitSec) * 2 + l.wall_extra_sec))
  // a further restriction under the jail's memory cap: only bounded by what the kernel accepts
  set('addressSpaceKb', clampTo(input.addressSpaceKb, 4096, 64 * 1024 * 1024, true))
  set('processes', clampTo(input.processes, 1, l.processes, true))
  set('outputBytes', clampTo(input.outputBytes, 1, outputMaxBytes, true))
  set('outputKeptBytes', clampTo(input.outputKeptBytes, 1, outputMaxBytes, true))
  set('compileTimeSec', clampTo(input.compileTimeSec, 0.1, l.compile_time_sec))
  set('compileMemoryKb', clampTo(input.compileMemoryKb, 16384, l.compile_memory_kb, true))
  // extra CPU time is at most what the largest time limit is
  set('cpuExtraSec', clampTo(input.cpuExtraSec, 0.001, l.max_time_sec))
  // a stack past the memory limit is never reached: only bounded by what the jail accepts
  set('stackKb', clampTo(input.stackKb, 1, 64 * 1024 * 1024, true))
  const repeat = clampTo(input.repeat, 1, MAX_REPEAT, true)
  if (repeat !== undefined && repeat > 1) spec.repeat = repeat
  if (input.redirectStderrToStdout) spec.redirectStderrToStdout = true
  if (input.outputEncoding === 'latin1') spec.outputEncoding = 'latin1'
  if (input.inputEncoding === 'latin1') spec.inputEncoding = 'latin1'
  if (input.compileStderrFails) spec.compileStderrFails = true
  if (input.compileCheckMarker !== undefined) {
    if (typeof input.compileCheckMarker !== 'string' || !COMPILE_CHECK_MARKER.test(input.compileCheckMarker))
      throw new AppError('InvalidArgument', 'compileCheckMarker must be 16 to 64 letters, digits, - or _', { compileCheckMarker: input.compileCheckMarker })
    spec.compileCheckMarker = input.compileCheckMarker
  }
  return spec
}
