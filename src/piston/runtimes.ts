// The Piston runtimes: Piston's language names and aliases for Arbiter's language codes (each manifest
// entry's `piston` key; this folder keeps no table of its own), each with a 3-part semver taken from the
// provisioned toolchain's real version, and Piston's version matching.
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
 * Every Piston runtime the manifest names (each entry's `piston` key), in manifest order. Piston's names
 * where Piston has the language, with its own aliases; an Arbiter code lower-cased among them. Clients
 * pick "the newest" of a language by comparing version strings, so a language name holds only versions
 * whose string order is their semver order (runtimes.test.ts checks it): Python 2.7 and 3.13 share
 * `python` ("2…" < "3…"), Python 3.9 (the PYTHON3_8 code) has its own name `python3.9`, since "3.9.2" >
 * "3.13.5" as strings. Codes that repeat another with the same toolchain and flags (JAVA = JAVA8,
 * JAVASCRIPT = JAVASCRIPT_NODE) have no `piston` key, so are not listed twice.
 */
export function runtimeTable(langs: ReadonlyMap<string, Language>): RuntimeEntry[] {
  const out: RuntimeEntry[] = []
  for (const l of langs.values()) {
    if (l.piston) out.push({ language: l.piston.name, code: l.code, aliases: l.piston.aliases, ...(l.piston.runtime ? { runtime: l.piston.runtime } : {}) })
  }
  return out
}

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
type Listed = { at: number; runtimes: Runtime[]; codes: string; versions: ReturnType<typeof recordedVersions> }
const listed = new WeakMap<object, WeakMap<object, Listed>>()

/**
 * Every runtime served now (the offered codes the manifest names for Piston), in listingOrder; looked at
 * again at most every RUNTIMES_TTL_MS, and rebuilt only when what it is built from changed (the offered
 * codes, the recorded versions): a client that executes less often than that (a bench alternating five
 * faces, a class's occasional runs) no longer pays the build, ~3/4 of the cost, on every request.
 */
export function listRuntimes(langs: Map<string, Language>, config: OfferConfig, now = Date.now()): Runtime[] {
  let byConfig = listed.get(langs)
  if (!byConfig) listed.set(langs, (byConfig = new WeakMap()))
  const seen = byConfig.get(config)
  if (seen && now - seen.at < RUNTIMES_TTL_MS) return seen.runtimes
  const offered = offeredLanguages(langs, config)
  const codes = offered.map((l) => l.code).join(',')
  const versions = recordedVersions(config.paths.toolchains)
  if (seen && seen.codes === codes && seen.versions === versions) {
    seen.at = now
    return seen.runtimes
  }
  const runtimes = buildRuntimes(langs, offered, versions)
  byConfig.set(config, { at: now, runtimes, codes, versions })
  return runtimes
}

function buildRuntimes(langs: Map<string, Language>, offeredList: Language[], versions: ReturnType<typeof recordedVersions>): Runtime[] {
  const offered = new Map(offeredList.map((l) => [l.code, l]))
  const out: Runtime[] = []
  for (const entry of runtimeTable(langs)) {
    const lang = offered.get(entry.code)
    const version = lang && runtimeVersion(lang, versions)
    if (lang && version) out.push({ ...entry, version, lang })
  }
  return listingOrder(out)
}

/**
 * Manifest order, but the versions of one language name together where its first one is, the newest
 * first: a client that takes the first runtime of a name (rather than comparing versions) gets the newest.
 */
export function listingOrder(runtimes: Runtime[]): Runtime[] {
  const first = new Map<string, number>()
  runtimes.forEach((rt, i) => first.has(rt.language) || first.set(rt.language, i))
  return [...runtimes].sort((a, b) => first.get(a.language)! - first.get(b.language)! || semver.rcompare(a.version, b.version))
}

/**
 * Piston's choice (runtime.js get_latest_runtime_matching_language_version): the runtimes whose name or
 * an alias equals `language` and whose version satisfies the semver range `version` ('*', '3', '3.x',
 * '>=3.8', '3.13.5'), the newest first.
 */
export function matchRuntime(runtimes: Runtime[], language: string, version: string): Runtime | undefined {
  // semver reads '' as '*'; Piston refuses an empty version before it matches
  if (!version) return undefined
  // a listing is kept while nothing it is built from changes, and clients ask for the same few runtimes:
  // each answer is kept with its listing (semver parses the range and every candidate's version each time)
  let answers = matched.get(runtimes)
  if (!answers) matched.set(runtimes, (answers = new Map()))
  const key = `${language}\0${version}`
  if (answers.has(key)) return answers.get(key)
  // what clients send is theirs: the kept answers are bounded
  if (answers.size >= MATCHES_KEPT) answers.clear()
  const found = findRuntime(runtimes, language, version)
  answers.set(key, found)
  return found
}

const MATCHES_KEPT = 256
const matched = new WeakMap<Runtime[], Map<string, Runtime | undefined>>()

function findRuntime(runtimes: Runtime[], language: string, version: string): Runtime | undefined {
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
