// The Piston runtimes: Piston's language names and aliases for Arbiter's language codes, each with a
// 3-part semver taken from the provisioned toolchain's real version, and Piston's version matching.
import semver from 'semver'
import { offeredLanguages, recordedVersions, type Language, type OfferConfig } from '../languages.ts'

/** One line of the table: a Piston language name served by one Arbiter code. */
export interface RuntimeEntry {
  /** Piston's language name (what clients compare with `===`) */
  language: string
  /** the Arbiter code that runs it */
  code: string
  aliases: string[]
  /** Piston's `runtime` field: the package that provides several languages (gcc, mono, node) */
  runtime?: string
}

/**
 * Piston's names where Piston has the language (its own aliases kept), Arbiter's code lower-cased as an
 * alias. Clients pick "the newest" of a language by comparing version strings, so a language name holds
 * only versions whose string order is their semver order (runtimes.test.ts checks it): Python 2.7 and
 * 3.13 share `python` ("2…" < "3…"), Python 3.9 (the PYTHON3_8 code) gets its own name `python3.9`,
 * since "3.9.2" > "3.13.5" as strings. Codes that repeat another with the same toolchain and flags
 * (JAVA = JAVA8, JAVASCRIPT = JAVASCRIPT_NODE) are not listed twice.
 */
export const RUNTIME_TABLE: readonly RuntimeEntry[] = [
  { language: 'c', code: 'C', aliases: ['gcc'], runtime: 'gcc' },
  { language: 'c++', code: 'CPP', aliases: ['cpp', 'g++'], runtime: 'gcc' },
  { language: 'c++11', code: 'CPP11', aliases: ['cpp11'], runtime: 'gcc' },
  { language: 'c++14', code: 'CPP14', aliases: ['cpp14'], runtime: 'gcc' },
  { language: 'c++17', code: 'CPP17', aliases: ['cpp17'], runtime: 'gcc' },
  { language: 'objective-c', code: 'OBJECTIVEC', aliases: ['objc', 'objectivec'], runtime: 'gcc' },
  { language: 'clojure', code: 'CLOJURE', aliases: ['clj'] },
  { language: 'csharp', code: 'CSHARP', aliases: ['mono', 'mono-csharp', 'mono-c#', 'mono-cs', 'c#', 'cs'], runtime: 'mono' },
  { language: 'go', code: 'GO', aliases: ['golang'] },
  { language: 'haskell', code: 'HASKELL', aliases: ['hs'] },
  { language: 'java', code: 'JAVA14', aliases: ['java14'] },
  { language: 'java8', code: 'JAVA8', aliases: [] },
  { language: 'javascript', code: 'JAVASCRIPT_NODE', aliases: ['node-javascript', 'node-js', 'javascript_node', 'js', 'node', 'nodejs'], runtime: 'node' },
  { language: 'typescript', code: 'TYPESCRIPT', aliases: ['ts', 'node-ts', 'tsc'] },
  { language: 'kotlin', code: 'KOTLIN', aliases: ['kt'] },
  { language: 'pascal', code: 'PASCAL', aliases: ['freepascal', 'fpc', 'fp'] },
  { language: 'perl', code: 'PERL', aliases: ['pl'] },
  { language: 'php', code: 'PHP', aliases: [] },
  { language: 'python', code: 'PYTHON3', aliases: ['py', 'py3', 'python3'] },
  { language: 'python', code: 'PYTHON', aliases: ['py2', 'python2'] },
  { language: 'python3.9', code: 'PYTHON3_8', aliases: ['python3_8'] },
  { language: 'r', code: 'R', aliases: ['rscript'] },
  { language: 'ruby', code: 'RUBY', aliases: ['rb', 'ruby3'] },
  { language: 'rust', code: 'RUST', aliases: ['rs'] },
  { language: 'scala', code: 'SCALA', aliases: ['sc'] },
  { language: 'swift', code: 'SWIFT', aliases: [] },
  // the languages beyond the spec that Piston has, under Piston's names; Piston's prolog is
  // SWI-Prolog, its nasm 32-bit (ours is x86-64: nasm64)
  { language: 'bash', code: 'BASH', aliases: ['sh'] },
  { language: 'awk', code: 'AWK', aliases: ['gawk'], runtime: 'gawk' },
  { language: 'lua', code: 'LUA', aliases: [] },
  { language: 'fortran', code: 'FORTRAN', aliases: ['f90', 'gfortran'], runtime: 'gcc' },
  { language: 'nasm64', code: 'ASSEMBLY', aliases: ['asm64'], runtime: 'nasm' },
  { language: 'ocaml', code: 'OCAML', aliases: ['ml'] },
  { language: 'prolog', code: 'PROLOG_SWI', aliases: ['plg', 'swipl'] },
  { language: 'sqlite3', code: 'SQL', aliases: ['sqlite', 'sql'] },
  { language: 'lisp', code: 'LISP', aliases: ['cl', 'sbcl', 'commonlisp'] },
  { language: 'd', code: 'D', aliases: ['ldc'] },
  { language: 'erlang', code: 'ERLANG', aliases: ['erl', 'escript'] },
  { language: 'elixir', code: 'ELIXIR', aliases: ['exs'] },
  { language: 'cobol', code: 'COBOL', aliases: ['cob'] },
  { language: 'octave', code: 'OCTAVE', aliases: ['matlab', 'm'] },
]

/** A runtime this server serves now: a table entry whose code is offered, with its version. */
export interface Runtime extends RuntimeEntry {
  /** 3-part semver, e.g. '3.13.5' */
  version: string
  lang: Language
}

/**
 * A toolchain's version as 3-part semver: '21.0.13.1' → '21.0.13', '9.6' → '9.6.0'. Piston's versions are
 * semver and its clients match them with semver ranges; a fourth part or a suffix would not parse.
 */
export function semverOf(version: string): string | undefined {
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version.trim())
  if (!m) return undefined
  return [m[1], m[2] ?? '0', m[3] ?? '0'].map((n) => String(Number(n))).join('.')
}

/**
 * The version a runtime is listed with: the one provisioning recorded; without a record (an API host
 * whose languages run on sandbox hosts only) the version the language's display name states, e.g.
 * 'Python 3.13' → 3.13.0.
 */
export function runtimeVersion(lang: Language, versions: Readonly<Record<string, { version: string } | undefined>>): string | undefined {
  const real = versions[lang.code]?.version
  if (real) return semverOf(real)
  const named = /\d+(?:\.\d+)*/.exec(lang.name)
  return named ? semverOf(named[0]) : undefined
}

/** How long one listing is reused: each execute needs it, and building it costs ~0.3 ms of the main thread. */
export const RUNTIMES_TTL_MS = 1000
const listed = new WeakMap<object, WeakMap<object, { at: number; runtimes: Runtime[] }>>()

/** Every runtime served now (the offered codes of the table), in the table's order; rebuilt at most every RUNTIMES_TTL_MS. */
export function listRuntimes(langs: Map<string, Language>, config: OfferConfig, now = Date.now()): Runtime[] {
  let byConfig = listed.get(langs)
  if (!byConfig) listed.set(langs, (byConfig = new WeakMap()))
  const seen = byConfig.get(config)
  if (seen && now - seen.at < RUNTIMES_TTL_MS) return seen.runtimes
  const runtimes = buildRuntimes(langs, config)
  byConfig.set(config, { at: now, runtimes })
  return runtimes
}

function buildRuntimes(langs: Map<string, Language>, config: OfferConfig, table: readonly RuntimeEntry[] = RUNTIME_TABLE): Runtime[] {
  const offered = new Map(offeredLanguages(langs, config).map((l) => [l.code, l]))
  const versions = recordedVersions(config.paths.toolchains)
  const out: Runtime[] = []
  for (const entry of table) {
    const lang = offered.get(entry.code)
    const version = lang && runtimeVersion(lang, versions)
    if (lang && version) out.push({ ...entry, version, lang })
  }
  return out
}

/**
 * Piston's choice (runtime.js get_latest_runtime_matching_language_version): the runtimes whose name or
 * an alias equals `language` and whose version satisfies the semver range `version` ('*', '3', '3.x',
 * '>=3.8', '3.13.5'), the newest first.
 */
export function matchRuntime(runtimes: Runtime[], language: string, version: string): Runtime | undefined {
  // semver reads '' as '*'; Piston refuses an empty version before it matches
  if (!version) return undefined
  return runtimes
    .filter((rt) => (rt.language === language || rt.aliases.includes(language)) && satisfies(rt.version, version))
    .sort((a, b) => semver.rcompare(a.version, b.version))[0]
}

function satisfies(version: string, range: string): boolean {
  try {
    return semver.satisfies(version, range)
  } catch {
    return false
  }
}
