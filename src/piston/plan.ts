// Pure: a checked execute request and its runtime → what the core runs. Piston's limit rules (a value
// over the configured limit is refused with Piston's text; -1 means the server's maximum), its files
// (the first utf8 file is the program, compiled with the other utf8 files of its kind), its stdin rule.
import type { Config } from '../config.ts'
import { AppError } from '../errors.ts'
import { hasLoneSurrogate } from '../http/body.ts'
import { compileOverridesByCode, type Language } from '../languages.ts'
import type { Runtime } from './runtimes.ts'
import type { LimitName, PistonExecuteRequest } from './schemas.ts'

/** What the core is asked to run (the fields of the core's SubmissionInput the Piston API sets). */
export interface ExecutionPlan {
  lang: string
  source: string
  input: string
  /** run CPU seconds */
  timeLimit: number
  memoryLimit: number
  wallTimeSec: number
  compileTimeSec?: number
  compileMemoryKb?: number
  sourceFileName?: string
  files?: { name: string; contentBase64: string }[]
  compileArgv?: string[]
  runArgv?: string[]
}

/** Piston's own defaults when a request gives none (api/src/config.js), in milliseconds. */
const DEFAULT_RUN_TIMEOUT_MS = 3000

/** The configured limit of each Piston constraint for one language, in Piston's units (ms, bytes). */
export function configuredLimits(config: Config, langs: Map<string, Language>, lang: Language): Record<LimitName, number> {
  const l = config.limits
  const o = compileOverridesByCode(langs, config.languages.compile_overrides)[lang.code] ?? {}
  const compileSec = o.time_sec ?? lang.compileLimits.timeSec ?? l.compile_time_sec
  const compileKb = o.memory_kb ?? lang.compileLimits.memoryKb ?? l.compile_memory_kb
  return {
    compile_timeout: Math.round((compileSec * 2 + l.wall_extra_sec) * 1000),
    compile_cpu_time: Math.round(compileSec * 1000),
    compile_memory_limit: compileKb * 1024,
    run_timeout: Math.round((l.max_time_sec * 2 + l.wall_extra_sec) * 1000),
    run_cpu_time: Math.round(l.max_time_sec * 1000),
    run_memory_limit: l.max_memory_kb * 1024,
  }
}

/**
 * The smallest value of each constraint the core takes as it is, in Piston's units: below it the core
 * would raise the limit without a word (limits.min_time_sec and limits.min_memory_kb for the run; the
 * floors of evaluation/job-spec.ts normaliseJobSpec for the wall clock and the compile step), so it is
 * refused here instead. Piston itself has no floor; this server's jail does.
 */
export function configuredMinima(config: Config): Record<LimitName, number> {
  const l = config.limits
  return {
    compile_timeout: 100,
    compile_cpu_time: 100,
    compile_memory_limit: 16384 * 1024,
    run_timeout: 50,
    // whole milliseconds at or above the floor (0.1 s → 100)
    run_cpu_time: Math.ceil(l.min_time_sec * 1000 - 1e-9),
    run_memory_limit: l.min_memory_kb * 1024,
  }
}

/**
 * Each given limit checked in Piston's order (memory_limit, timeout, cpu_time × compile, run):
 * -1 = the configured limit; over it or another negative value → Piston's 400 text; under the server's
 * floor (which Piston does not have) → a 400 in the same words, never silently raised.
 */
export function resolveLimits(req: PistonExecuteRequest, max: Record<LimitName, number>, min: Record<LimitName, number>): Partial<Record<LimitName, number>> {
  const out: Partial<Record<LimitName, number>> = {}
  for (const constraint of ['memory_limit', 'timeout', 'cpu_time'] as const) {
    for (const type of ['compile', 'run'] as const) {
      const name: LimitName = `${type}_${constraint}`
      const value = req[name]
      if (value === undefined) continue
      if (value === -1) out[name] = max[name]
      else if (value > max[name]) throw new AppError('InvalidArgument', `${name} cannot exceed the configured limit of ${max[name]}`, { field: name })
      else if (value < 0) throw new AppError('InvalidArgument', `${name} must be non-negative`, { field: name })
      else if (value < min[name]) throw new AppError('InvalidArgument', `${name} cannot be less than the configured minimum of ${min[name]}`, { field: name })
      else out[name] = value
    }
  }
  return out
}

const decoders = {
  // a lone surrogate has no bytes: refused rather than written as U+FFFD's
  utf8: (s: string) => (hasLoneSurrogate(s) ? undefined : Buffer.from(s, 'utf8')),
  base64: (s: string) => {
    const clean = s.replace(/\s+/g, '')
    return clean.length % 4 !== 1 && /^[A-Za-z0-9+/]*={0,2}$/.test(clean) ? Buffer.from(clean, 'base64') : undefined
  },
  hex: (s: string) => (/^(?:[0-9a-fA-F]{2})*$/.test(s) ? Buffer.from(s, 'hex') : undefined),
}

const extension = (name: string) => /\.[^.]*$/.exec(name)?.[0] ?? ''

/** argv with the manifest's source name replaced by the given names (where the manifest names it). */
const withSources = (argv: string[], sourceFile: string, names: string[]) => argv.flatMap((a) => (a === sourceFile ? names : [a]))

/**
 * The run argv with the program's arguments after it. The JVM wrapper (toolchains/bin/jvm-run) appends
 * the main class that the compile recorded in .arbiter-main-class, so arguments after it would reach the
 * JVM instead: the JVM is called directly with that file as a java launcher @argfile in the main
 * class's place, which expands to the class name, and the arguments follow it.
 */
export function runWithArgs(run: string[], args: string[]): string[] {
  if (!args.length) return run
  if (run[0]?.endsWith('/jvm-run')) return [...run.slice(1), '@.arbiter-main-class', ...args]
  return [...run, ...args]
}

export function planExecution(config: Config, langs: Map<string, Language>, rt: Runtime, req: PistonExecuteRequest): ExecutionPlan {
  const lang = rt.lang
  const files = req.files.map((f, i) => {
    const encoding = f.encoding ?? 'utf8'
    const bytes = decoders[encoding](f.content)
    if (!bytes) {
      const why = encoding === 'utf8' ? ' text (it holds a lone surrogate): send bytes with encoding base64 or hex' : ''
      throw new AppError('InvalidArgument', `files[${i}].content is not valid ${encoding}${why}`, { field: `files.${i}.content` })
    }
    return { index: i, name: f.name, encoding, bytes }
  })
  // Piston: the code files are the utf8 ones; the first of them is the program, the others compile with it
  const code = files.filter((f) => f.encoding === 'utf8')
  if (!code.length) throw new AppError('InvalidArgument', 'files must include at least one utf8 encoded file', { field: 'files' })
  const limits = resolveLimits(req, configuredLimits(config, langs, lang), configuredMinima(config))

  const program = code[0]
  // the program keeps its own name where the manifest's argv names the source file, so the language
  // sees it (`__file__`, error messages); where a wrapper expects its fixed name (Java's Main.java) it keeps that
  const namedInArgv = [...(lang.compile ?? []), ...lang.run].includes(lang.sourceFile)
  const programName = program.name && namedInArgv ? program.name : lang.sourceFile
  const others = files.filter((f) => f !== program).map((f) => ({ ...f, name: f.name ?? `file${f.index}.code` }))
  const seen = new Map<string, number>([[programName, program.index]])
  for (const f of others) {
    if (seen.has(f.name))
      throw new AppError('InvalidArgument', `files[${f.index}].name repeats the name of files[${seen.get(f.name)}]`, { field: `files.${f.index}.name` })
    seen.set(f.name, f.index)
  }
  if (req.stdin !== undefined && hasLoneSurrogate(req.stdin))
    throw new AppError('InvalidArgument', 'stdin is not valid text (it holds a lone surrogate, which no bytes stand for)', { field: 'stdin' })
  const total = files.reduce((n, f) => n + f.bytes.length, 0)
  if (total > config.limits.source_max_bytes)
    throw new AppError('PayloadTooLarge', `files are larger than ${config.limits.source_max_bytes} bytes in all`, { source_max_bytes: config.limits.source_max_bytes })

  // every utf8 file of the program's kind is compiled with it, as Piston hands all code files to the compiler
  const companions = others.filter((f) => f.encoding === 'utf8' && extension(f.name) === extension(programName) && extension(programName)).map((f) => f.name)
  const args = req.args ?? []
  const plan: ExecutionPlan = {
    lang: lang.code,
    source: program.bytes.toString('utf8'),
    // Piston adds a final newline to stdin when it has none (job.js), even to an empty one
    input: (req.stdin ?? '').endsWith('\n') ? (req.stdin ?? '') : `${req.stdin ?? ''}\n`,
    timeLimit: 0,
    memoryLimit: 0,
    wallTimeSec: 0,
  }
  const wallMs = limits.run_timeout ?? DEFAULT_RUN_TIMEOUT_MS
  plan.wallTimeSec = wallMs / 1000
  plan.timeLimit = (limits.run_cpu_time ?? Math.min(wallMs, configuredLimits(config, langs, lang).run_cpu_time)) / 1000
  // no run_memory_limit is Piston's "no limit": here the server's default
  plan.memoryLimit = limits.run_memory_limit === undefined ? config.limits.default_memory_kb : Math.ceil(limits.run_memory_limit / 1024)
  // the compile step has one CPU limit (its wall clock is twice it plus limits.wall_extra_sec): the
  // tighter of the two asked for, and only when tighter than the language's own
  const compileMs = Math.min(limits.compile_cpu_time ?? Infinity, limits.compile_timeout ?? Infinity)
  const max = configuredLimits(config, langs, lang)
  if (compileMs < max.compile_cpu_time) plan.compileTimeSec = compileMs / 1000
  if (limits.compile_memory_limit !== undefined && limits.compile_memory_limit < max.compile_memory_limit)
    plan.compileMemoryKb = Math.ceil(limits.compile_memory_limit / 1024)
  if (programName !== lang.sourceFile) plan.sourceFileName = programName
  if (others.length) plan.files = others.map((f) => ({ name: f.name, contentBase64: f.bytes.toString('base64') }))
  if (lang.compile && (programName !== lang.sourceFile || companions.length))
    plan.compileArgv = withSources(lang.compile, lang.sourceFile, [programName, ...companions])
  const runArgv = runWithArgs(withSources(lang.run, lang.sourceFile, [programName]), args)
  if (runArgv.join('\0') !== lang.run.join('\0')) plan.runArgv = runArgv
  return plan
}
