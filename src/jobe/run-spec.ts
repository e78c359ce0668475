// Pure: a POST runs body → what the run needs, refused with Jobe's own texts (JobeError: a status and
// the JSON string body Jobe answers). Jobe's rules: unknown members are ignored, language_id is
// case-insensitive, a numeric parameter given as something else takes its default, cputime past the
// server's maximum is a 400, 'prog.java' as a source file name is ignored (an old CodeRunner habit).
import { isPlainName } from '../jobs/job-files.ts'
import { javaMainClass, type JobeArgs, type JobeLanguage } from './languages.ts'
import { splitWords } from './words.ts'

export class JobeError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 413 | 500,
    message: string
  ) {
    super(message)
  }
}

export interface JobeRun {
  language: JobeLanguage
  source: string
  sourceFileName: string
  input: string
  /** [file id, file name] pairs; ids are looked up in the client's file cache. */
  files: [string, string][]
  cputime: number
  /** MB; 0 = no address-space limit. */
  memorylimit: number
  /** undefined: the toolchain's own process limit. */
  numprocs?: number
  /** MB. */
  streamsize: number
  args: JobeArgs
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const NUMERIC = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/

/** Jobe's getParam: the request's value if numeric (a number or a numeric string), else the default. */
function numeric(params: Record<string, unknown>, key: string, fallback: number): number {
  const v = params[key]
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string' && NUMERIC.test(v)) return Number(v)
  return fallback
}

/** An argument list: each item a string, split into words as Jobe's shell would (but run without one). */
function argList(params: Record<string, unknown>, key: string, fallback: string[]): string[] {
  const v = key in params ? params[key] : fallback
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new JobeError(400, `Parameter '${key}' must be a list of strings`)
  return (v as string[]).flatMap((item) => {
    const words = splitWords(item)
    if (!words) throw new JobeError(400, `Parameter '${key}' has an unterminated quote: ${item}`)
    return words
  })
}

/** Jobe's sourcefilename check: nothing a file system or URL reserves, no control characters, not hidden. */
function isJobeFileName(name: string): boolean {
  const sanitised = name.replace(/[<>:"/\\|?*]|[\x00-\x1F]|[\x7F\xA0\xAD]|[#[\]@!$&'()+,;=]|[{}^~`]/g, '-').replace(/^[.-]+/, '')
  return sanitised === name && isPlainName(name)
}

/** Jobe's file specifier: [id, name] (a third member is allowed), id alphanumeric of 8 or more, name of letters, digits, - _ . */
function isFileSpec(f: unknown): f is [string, string] {
  return (
    Array.isArray(f) &&
    (f.length === 2 || f.length === 3) &&
    typeof f[0] === 'string' &&
    typeof f[1] === 'string' &&
    f[0].length >= 8 &&
    /^[A-Za-z0-9]+$/.test(f[0]) &&
    f[1].length > 0 &&
    /^[A-Za-z0-9._-]+$/.test(f[1]) &&
    isPlainName(f[1])
  )
}

/** `find`: the offered language of that (lowercase) name, or undefined. */
export function parseRunSpec(body: unknown, maxCpuTime: number, find: (name: string) => JobeLanguage | undefined): JobeRun {
  if (!isObject(body)) throw new JobeError(400, 'Non-JSON post data received')
  const run = body.run_spec
  if (!isObject(run)) throw new JobeError(400, 'No run_spec attribute found in post data')
  for (const attr of ['sourcecode', 'language_id']) {
    if (run[attr] === undefined || run[attr] === null) throw new JobeError(400, `run_spec is missing the required attribute '${attr}'`)
    if (typeof run[attr] !== 'string') throw new JobeError(400, `run_spec attribute '${attr}' must be a string`)
  }
  const name = (run.language_id as string).toLowerCase()
  const language = find(name)
  if (!language) throw new JobeError(400, `Language '${name}' is not known`)
  if (run.input !== undefined && run.input !== null && typeof run.input !== 'string') throw new JobeError(400, "run_spec attribute 'input' must be a string")
  const params = run.parameters === undefined || run.parameters === null ? {} : run.parameters
  if (!isObject(params) && !(Array.isArray(params) && params.length === 0)) throw new JobeError(400, "run_spec attribute 'parameters' must be an object")
  const p = isObject(params) ? params : {}
  const cputime = numeric(p, 'cputime', 5)
  // Jobe compares the integer part
  if (Math.trunc(cputime) > maxCpuTime) throw new JobeError(400, `cputime exceeds maximum allowed on this Jobe server (${maxCpuTime} secs)`)

  const source = run.sourcecode as string
  let sourceFileName = language.defaultFileName(source)
  if (run.sourcefilename !== undefined && run.sourcefilename !== null && run.sourcefilename !== '') {
    if (typeof run.sourcefilename !== 'string' || !isJobeFileName(run.sourcefilename)) throw new JobeError(400, 'The sourcefilename for the run_spec is illegal')
    if (run.sourcefilename !== 'prog.java' && !language.fixedFileName) sourceFileName = run.sourcefilename
  }
  const list = run.file_list === undefined || run.file_list === null ? [] : run.file_list
  if (!Array.isArray(list)) throw new JobeError(400, 'Invalid file specifier: file_list must be a list')
  const files: [string, string][] = []
  for (const f of list) {
    if (!isFileSpec(f)) throw new JobeError(400, `Invalid file specifier: ${JSON.stringify(f)}`)
    if (f[1] === sourceFileName) throw new JobeError(400, `Invalid file specifier: ${JSON.stringify(f)} has the source file's name`)
    files.push([f[0], f[1]])
  }
  if (new Set(files.map((f) => f[1])).size !== files.length) throw new JobeError(400, 'Invalid file specifier: a file name is given twice')

  const d = language.defaults
  const numprocs = numeric(p, 'numprocs', d.numprocs ?? NaN)
  const mainClass = typeof p.main_class === 'string' && p.main_class ? p.main_class : undefined
  if (mainClass !== undefined && !/^[A-Za-z_$][\w$.]*$/.test(mainClass)) throw new JobeError(400, "Parameter 'main_class' is not a class name")
  return {
    language,
    source,
    sourceFileName,
    input: (run.input as string | undefined) ?? '',
    files,
    cputime: cputime > 0 ? cputime : 5,
    // Java disregards memorylimit (Jobe sets it to 0) and keeps its toolchain's process limit
    memorylimit: language.noAddressSpaceLimit ? 0 : Math.max(0, numeric(p, 'memorylimit', d.memorylimit)),
    ...(!language.ownProcessLimit && !Number.isNaN(numprocs) && { numprocs: Math.max(1, Math.trunc(numprocs)) }),
    streamsize: numeric(p, 'streamsize', 2),
    args: {
      compileargs: argList(p, 'compileargs', d.compileargs),
      linkargs: argList(p, 'linkargs', []),
      interpreterargs: argList(p, 'interpreterargs', d.interpreterargs),
      runargs: argList(p, 'runargs', []),
      ...(mainClass && { mainClass }),
    },
  }
}

export { javaMainClass }
