// The language manifest: loads and validates toolchains/languages/*.toml into Language entries keyed
// by spec code, resolves codes and aliases, expands argv placeholders, and reads provisioning stamps.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { z } from 'zod'

export interface Language {
  /** canonical spec code, e.g. 'CPP17' */
  code: string
  /** other codes accepted for it, e.g. ['C++'] (case-insensitive lookup) */
  aliases: string[]
  /** display name, e.g. 'C++17 (g++ 14)' */
  name: string
  /** manifest file stem, e.g. 'gcc' */
  toolchain: string
  /** rootfs name, which is also its Debian suite: 'trixie' | 'bullseye' */
  root: string
  packages: string[]
  /** e.g. 'main.cpp' */
  sourceFile: string
  /** argv; absent for interpreted languages */
  compile?: string[]
  run: string[]
  version: string[]
  /** regex whose first group is the version in the version command's stdout + stderr */
  versionPattern: string
  env: Record<string, string>
  /** The manifest's own compile limits; a missing one is the config's limits.compile_* default. */
  compileLimits: { timeSec?: number; memoryKb?: number; processes?: number }
  /** added to the cgroup limit (JVM etc.), 0 by default */
  runMemoryHeadroomKb: number
  /** override of the default process limit if a runtime needs more threads */
  runProcesses?: number
  /** override of the default open-files limit (R refuses to start below ~170) */
  runOpenFiles?: number
  /** argv run once inside the root, as root, after its packages are installed (caches etc.) */
  prepare: string[][]
  /** files from the npm and Maven registries, pinned by version and sha256, laid into the root before prepare */
  artifacts: Artifact[]
  /** regex on stderr that means the runtime ran out of the memory it was given (JVM heap) */
  memoryErrorPattern?: string
  /** program that echoes one line of stdin (sourceIsOutput: any text, which the run prints as it is) */
  selftest: string
  /** program that must fail to compile (or, interpreted, fail to parse); '' when sourceIsOutput */
  selftestError: string
  /**
   * The program's output is its source (Plain Text): nothing can fail to parse and nothing can loop, so
   * the entry has no selftest_error nor endless_loop, and its self-test prints itself.
   */
  sourceIsOutput?: boolean
  /**
   * The source is the program itself (Judge0's Executable: an ELF binary, or a script with `#!`):
   * written with mode 0755 and run as it is; its size cap is limits.executable_max_bytes.
   */
  sourceExecutable?: boolean
  /** A form only Judge0 has (its Executable, its multi-file program): offered through Judge0 and nowhere else. */
  judge0Only?: boolean
  /** regex the compiler's (interpreter's) message for selftestError must match: a syntax error in its own words */
  selftestErrorMessage?: string
  /** a program that never ends, written so no optimiser removes the loop (the TLE test of every language) */
  endlessLoop?: string
  /** the room editor's syntax mode for this code (src/room/editor/modes.ts) */
  editorMode?: string
  note?: string
  /** Judge0's ids for it and its name under each (several ids may run one code); [] = not offered through Judge0 */
  judge0: Judge0Name[]
  /** Piston's language name and aliases for it; absent = not offered through Piston */
  piston?: PistonName
  /** Jobe's language_id for it (lowercase); the code in lowercase unless the entry names another */
  jobe: string
  /** the Dolos parser similarity reports compare it with; absent = not comparable */
  similarity?: string
}

/** One Judge0 id of a language: the name Judge0 lists, `{version}` standing for the provisioned version. */
export interface Judge0Name {
  id: number
  name: string
  /** the version `{version}` shows when provisioning recorded none (an API host whose languages run on sandbox hosts) */
  version?: string
}

/** Piston's name for a language, the other names a client may send, and Piston's `runtime` (the package providing several languages). */
export interface PistonName {
  name: string
  aliases: string[]
  runtime?: string
}

/**
 * Judge0 CE 1.13.1 uses ids 1–89 and Judge0 1.14 took 90–113: an id of Arbiter's own (a code Judge0 has
 * no id for) starts well clear of both. Ids never change: clients hard-code them.
 */
export const JUDGE0_OWN_ID_BASE = 1001

/**
 * One pinned file from a language registry (what Debian does not ship: Kotlin 2, Scala 3, TypeScript 5).
 * Fetched on the host with that registry's own client as configured there (mvn, npm), checked against
 * `sha256`, and laid into the root under `to`: a Maven jar as `<to>/<artifactId>.jar`, an npm package's
 * tarball unpacked into `<to>` (its `package/` folder stripped). See scripts/artifacts.ts.
 */
export type Artifact =
  | { maven: string; sha256: string; to: string }
  | { npm: string; sha256: string; to: string }

export const MANIFEST_DIR = join(import.meta.dirname, '..', 'toolchains', 'languages')

/** The clean environment every step starts from; a language's env is laid over it. */
export const BASE_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/tmp',
  LANG: 'C.UTF-8',
}

const DEFAULT_VERSION_PATTERN = '(\\d+(?:\\.\\d+)+)'
const PLACEHOLDERS = new Set(['memory_mb', 'memory_kb'])

const argv = z.array(z.string().min(1)).min(1)

// what Piston clients compare with ===: lowercase, no spaces (c++, objective-c, python3.9, c#)
const PISTON_NAME = /^[a-z0-9][a-z0-9+#._-]*$/
const PISTON_NAME_MESSAGE = 'a Piston name: lowercase, no spaces'

// compile and run argv are expanded per job, so a misspelt placeholder is caught here
const templateArgv = argv.superRefine((args, ctx) => {
  for (const arg of args) {
    for (const [, name] of arg.matchAll(/\{([^{}]*)\}/g)) {
      if (!PLACEHOLDERS.has(name))
        ctx.addIssue({ code: 'custom', message: `unknown placeholder {${name}}` })
    }
  }
})

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256: 64 lowercase hex digits')
// a folder of its own under /opt: replaced whole when a pin changes, so it must not be a system folder
const optDir = z.string().regex(/^\/opt\/[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/, 'a folder under /opt, e.g. /opt/kotlin2/lib')
const artifact = z.union([
  z.object({ maven: z.string().regex(/^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+:[A-Za-z0-9_.+-]+$/, 'groupId:artifactId:version'), sha256, to: optDir }).strict(),
  z.object({ npm: z.string().regex(/^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*@\d+\.\d+\.\d+[A-Za-z0-9.+-]*$/, 'name@exact-version'), sha256, to: optDir }).strict(),
])

const regex = z.string().refine(
  (s) => {
    try {
      return new RegExp(s).source.length > 0
    } catch {
      return false
    }
  },
  { message: 'not a valid regular expression' }
)

// Everything a language may set; the top of a file sets the same keys as defaults for its entries
const fields = {
  code: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'spec codes are upper case: A-Z, 0-9, _'),
  aliases: z.array(z.string().regex(/^\S+$/, 'no spaces')),
  name: z.string().min(1),
  root: z.string().regex(/^[a-z]+$/, 'a Debian suite name such as trixie'),
  packages: z.array(z.string().regex(/^[a-z0-9][a-z0-9+.-]+$/, 'not a Debian package name')).min(1),
  source_file: z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'a plain file name'),
  compile: templateArgv,
  run: templateArgv,
  version: argv,
  version_pattern: regex,
  env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'not an env variable name'), z.string()),
  compile_limits: z
    .object({
      time_sec: z.number().positive(),
      memory_kb: z.number().int().positive(),
      processes: z.number().int().positive(),
    })
    .partial()
    .strict(),
  run_memory_headroom_kb: z.number().int().min(0),
  run_processes: z.number().int().positive(),
  run_open_files: z.number().int().positive(),
  memory_error_pattern: regex,
  prepare: z.array(argv),
  artifacts: z.array(artifact),
  selftest: z.string().min(1),
  selftest_error: z.string().min(1),
  selftest_error_message: regex,
  endless_loop: z.string().min(1),
  editor_mode: z.string().regex(/^[a-z][a-z0-9-]*$/, 'a mode name such as cpp or clike-kotlin'),
  note: z.string().min(1),
  source_is_output: z.literal(true),
  source_executable: z.literal(true),
  judge0_only: z.literal(true),
  judge0: z
    .array(
      z
        .object({
          id: z
            .number()
            .int()
            .refine((id) => (id >= 1 && id <= 113) || id >= JUDGE0_OWN_ID_BASE, `Judge0's own ids are 1-113; Arbiter's own start at ${JUDGE0_OWN_ID_BASE}`),
          name: z.string().min(1),
          version: z.string().min(1).optional(),
        })
        .strict()
        .refine((j) => !/\{version\}/.test(j.name) || j.version !== undefined, { message: 'a name with {version} needs version (shown when provisioning recorded none)', path: ['version'] })
        .refine((j) => !/\{(?!version\})[^{}]*\}/.test(j.name), { message: 'the only placeholder of a Judge0 name is {version}', path: ['name'] })
    )
    .min(1),
  piston: z
    .object({
      name: z.string().regex(PISTON_NAME, PISTON_NAME_MESSAGE),
      aliases: z.array(z.string().regex(PISTON_NAME, PISTON_NAME_MESSAGE)).optional(),
      runtime: z.string().regex(PISTON_NAME, PISTON_NAME_MESSAGE).optional(),
    })
    .strict(),
  jobe: z.string().regex(/^[a-z0-9][a-z0-9_+.-]*$/, "Jobe's language_id: lowercase, no spaces"),
  similarity: z.string().regex(/^[a-z][a-z-]*$/, 'a Dolos language name such as python or c-sharp'),
}

// one file names many languages: what one API calls a language is said by its entry, never by the file
const Entry = z.object(fields).partial().strict()
const ManifestFile = Entry.omit({ code: true, aliases: true, judge0: true, piston: true, jobe: true, similarity: true, judge0_only: true })
  .extend({ language: z.array(Entry).min(1) })
  .strict()

// After the file's defaults are merged in, these must be present
const REQUIRED = [
  'code',
  'name',
  'root',
  'packages',
  'source_file',
  'run',
  'version',
  'selftest',
  'selftest_error',
] as const

export class ManifestError extends Error {}

type EntryData = z.infer<typeof Entry>

function issuePath(path: PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`))
    .join('')
}

function parseFile(file: string): z.infer<typeof ManifestFile> {
  let raw: unknown
  try {
    raw = parseToml(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new ManifestError(`${file}: not valid TOML: ${(err as Error).message}`)
  }
  const parsed = ManifestFile.safeParse(raw)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const keys = i.code === 'unrecognized_keys' ? ` (${i.keys.join(', ')})` : ''
      return `  ${issuePath(i.path) || '(top)'}${keys}: ${i.message}`
    })
    throw new ManifestError(`${file}: invalid manifest\n${lines.join('\n')}`)
  }
  return parsed.data
}

function toLanguage(file: string, index: number, defaults: EntryData, entry: EntryData): Language {
  const m: EntryData = {
    ...defaults,
    ...entry,
    env: { ...defaults.env, ...entry.env },
    compile_limits: { ...defaults.compile_limits, ...entry.compile_limits },
  }
  for (const key of REQUIRED) {
    // a text that is its own output has no syntax error to show
    if (key === 'selftest_error' && m.source_is_output) continue
    if (m[key] === undefined) {
      throw new ManifestError(
        `${file}: language[${index}].${key}: missing (set it in the entry or at the top of the file)`
      )
    }
  }
  if (m.judge0_only && (!m.judge0?.length || m.piston || m.jobe || m.similarity))
    throw new ManifestError(`${file}: language[${index}].judge0_only: needs a judge0 id and no piston, jobe or similarity name`)
  const limits = m.compile_limits ?? {}
  return {
    code: m.code!,
    aliases: m.aliases ?? [],
    name: m.name!,
    toolchain: basename(file, '.toml'),
    root: m.root!,
    packages: m.packages!,
    sourceFile: m.source_file!,
    ...(m.compile ? { compile: m.compile } : {}),
    run: m.run!,
    version: m.version!,
    versionPattern: m.version_pattern ?? DEFAULT_VERSION_PATTERN,
    env: m.env ?? {},
    // only what the manifest says: the rest comes from the config's limits.compile_* (jobs/worker.ts)
    compileLimits: {
      ...(limits.time_sec !== undefined && { timeSec: limits.time_sec }),
      ...(limits.memory_kb !== undefined && { memoryKb: limits.memory_kb }),
      ...(limits.processes !== undefined && { processes: limits.processes }),
    },
    runMemoryHeadroomKb: m.run_memory_headroom_kb ?? 0,
    ...(m.run_processes ? { runProcesses: m.run_processes } : {}),
    ...(m.run_open_files ? { runOpenFiles: m.run_open_files } : {}),
    ...(m.memory_error_pattern ? { memoryErrorPattern: m.memory_error_pattern } : {}),
    prepare: m.prepare ?? [],
    artifacts: m.artifacts ?? [],
    selftest: m.selftest!,
    selftestError: m.selftest_error ?? '',
    ...(m.source_is_output ? { sourceIsOutput: true } : {}),
    ...(m.source_executable ? { sourceExecutable: true } : {}),
    ...(m.judge0_only ? { judge0Only: true } : {}),
    ...(m.selftest_error_message ? { selftestErrorMessage: m.selftest_error_message } : {}),
    ...(m.endless_loop ? { endlessLoop: m.endless_loop } : {}),
    ...(m.editor_mode ? { editorMode: m.editor_mode } : {}),
    ...(m.note ? { note: m.note } : {}),
    judge0: m.judge0 ?? [],
    ...(m.piston ? { piston: { name: m.piston.name, aliases: m.piston.aliases ?? [], ...(m.piston.runtime ? { runtime: m.piston.runtime } : {}) } } : {}),
    jobe: m.jobe ?? m.code!.toLowerCase(),
    ...(m.similarity ? { similarity: m.similarity } : {}),
  }
}

/** Every language of one manifest file, its top-level keys applied as defaults. */
export function loadManifestFile(file: string): Language[] {
  const { language, ...defaults } = parseFile(file)
  return language.map((entry, i) => toLanguage(file, i, defaults, entry))
}

/**
 * Loads every *.toml of the manifest directory. A name two entries claim is an error: a code or alias,
 * a Judge0 id, a Jobe name; a Piston name or alias that would mean two different Piston languages.
 */
export function loadLanguages(dir: string = MANIFEST_DIR): Map<string, Language> {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.toml'))
    .sort()
  const langs = new Map<string, Language>()
  const claimed = new Map<string, string>()
  for (const f of files) {
    const file = join(dir, f)
    for (const lang of loadManifestFile(file)) {
      const claim = (key: string, what: string) => {
        const prev = claimed.get(key)
        if (prev) throw new ManifestError(`${file}: ${lang.code}: ${what} is already taken by ${prev}`)
        claimed.set(key, `${lang.code} in ${f}`)
      }
      for (const name of [lang.code, ...lang.aliases]) claim(`code\0${name.toUpperCase()}`, `code or alias ${name}`)
      for (const j of lang.judge0) claim(`judge0\0${j.id}`, `Judge0 id ${j.id}`)
      claim(`jobe\0${lang.jobe}`, `Jobe name ${lang.jobe}`)
      if (lang.piston) {
        // several entries may share a Piston name (its versions, e.g. python 2.7 and 3.13), but a name
        // or alias must always lead to that one Piston language
        for (const name of [lang.piston.name, ...lang.piston.aliases]) {
          const key = `piston\0${name}`
          const prev = claimed.get(key)
          if (prev && !prev.startsWith(`${lang.piston.name}\0`))
            throw new ManifestError(`${file}: ${lang.code}: Piston name or alias ${name} already means Piston's ${prev.split('\0')[0]} (${prev.split('\0')[1]})`)
          claimed.set(key, `${lang.piston.name}\0${lang.code} in ${f}`)
        }
        if (new Set(lang.piston.aliases).size !== lang.piston.aliases.length || lang.piston.aliases.includes(lang.piston.name))
          throw new ManifestError(`${file}: ${lang.code}: a Piston alias is listed twice`)
      }
      langs.set(lang.code, lang)
    }
  }
  return langs
}

/**
 * The language for a request's lang value: canonical codes and aliases, case-insensitive, trimmed.
 * `lang=C++` written into a form body without encoding arrives as "C  " ('+' is a space there): when
 * putting the pluses back names a language, that one is meant, not the "C" that trimming would leave.
 */
export function resolveLanguage(langs: Map<string, Language>, code: string): Language | undefined {
  const spaced = code.trimStart()
  if (/\S +/.test(spaced)) {
    const plussed = lookup(langs, spaced.replace(/ /g, '+').toUpperCase())
    if (plussed) return plussed
  }
  const want = code.trim().toUpperCase()
  return want ? lookup(langs, want) : undefined
}

function lookup(langs: Map<string, Language>, want: string): Language | undefined {
  const direct = langs.get(want)
  if (direct) return direct
  for (const lang of langs.values()) {
    if (lang.code.toUpperCase() === want || lang.aliases.some((a) => a.toUpperCase() === want))
      return lang
  }
  return undefined
}

/**
 * languages.compile_overrides keyed by canonical code: the config may name a code or an alias in any
 * case, like a request's lang. A key that names no language is an error, never silently ignored.
 */
export function compileOverridesByCode<T>(langs: Map<string, Language>, overrides: Record<string, T>): Record<string, T> {
  const byCode: Record<string, T> = {}
  const unknown: string[] = []
  for (const [key, value] of Object.entries(overrides)) {
    const lang = resolveLanguage(langs, key)
    if (lang) byCode[lang.code] = value
    else unknown.push(key)
  }
  if (unknown.length) throw new Error(`languages.compile_overrides: unknown language code(s) ${unknown.join(', ')}`)
  return byCode
}

/** Replaces {memory_mb} / {memory_kb} in each argument; nothing else is substituted. */
export function expandArgv(
  argv: string[],
  vars: { memory_kb: number; memory_mb: number }
): string[] {
  return argv.map((arg) =>
    arg.replace(/\{(memory_mb|memory_kb)\}/g, (_, name: 'memory_mb' | 'memory_kb') =>
      String(vars[name])
    )
  )
}

/** What the provisioner records once a toolchain's packages are installed into a root. */
export interface Stamp {
  toolchain: string
  root: string
  packages: string[]
  /** hash of the prepare commands and helper scripts that were run after the install */
  prepareKey: string
  provisionedAt: string
}

export function rootPath(toolchainsDir: string, root: string): string {
  return join(toolchainsDir, root)
}

export function stampPath(toolchainsDir: string, root: string, toolchain: string): string {
  return join(toolchainsDir, 'stamps', root, `${toolchain}.json`)
}

export function readStamp(
  toolchainsDir: string,
  root: string,
  toolchain: string
): Stamp | undefined {
  try {
    return JSON.parse(readFileSync(stampPath(toolchainsDir, root, toolchain), 'utf8')) as Stamp
  } catch {
    return undefined
  }
}

/** True when the provisioner has installed every package this language needs into its root. */
export function isProvisioned(toolchainsDir: string, lang: Language): boolean {
  if (!existsSync(join(rootPath(toolchainsDir, lang.root), 'usr', 'bin'))) return false
  const stamp = readStamp(toolchainsDir, lang.root, lang.toolchain)
  return !!stamp && lang.packages.every((p) => stamp.packages.includes(p))
}

/** What provisioning records of a language in <toolchains>/versions.json (scripts/provision.ts writes it). */
export interface VersionRecord {
  name: string
  toolchain: string
  root: string
  /** The version, as versionPattern found it in the version command's output. */
  version: string
  /** The line of that output that holds it. */
  reported: string
}

export const versionsFile = (toolchainsDir: string) => join(toolchainsDir, 'versions.json')

let versionsSeen: { file: string; mtimeMs: number; languages: Record<string, VersionRecord> } | undefined
/**
 * versions.json's record of each language code, re-read only when provisioning rewrites it (listings
 * ask on every request); {} where there is none or it does not parse.
 */
export function recordedVersions(toolchainsDir: string): Readonly<Record<string, VersionRecord | undefined>> {
  const file = versionsFile(toolchainsDir)
  try {
    const { mtimeMs } = statSync(file)
    if (versionsSeen?.file !== file || versionsSeen.mtimeMs !== mtimeMs) {
      versionsSeen = { file, mtimeMs, languages: JSON.parse(readFileSync(file, 'utf8')).languages ?? {} }
    }
    return versionsSeen.languages
  } catch {
    return {}
  }
}

// ── what this server offers ───────────────────────────────────────────────────────────────────────

/**
 * How long one provisioning check is trusted. isProvisioned reads and parses a stamp file (~20 µs,
 * synchronous, on the main thread): a burst of submissions reads it once, and a language provisioned
 * (or removed) while the server runs is offered (or refused) within this, no restart.
 */
export const PROVISIONED_TTL_MS = 5_000
const provisionedSeen = new Map<string, { at: number; ok: boolean }>()

/** isProvisioned, remembered for PROVISIONED_TTL_MS per toolchains directory and language. */
export function isProvisionedCached(toolchainsDir: string, lang: Language, now = Date.now()): boolean {
  const key = `${toolchainsDir}\0${lang.root}\0${lang.toolchain}\0${lang.packages.join(' ')}`
  const seen = provisionedSeen.get(key)
  if (seen && now - seen.at < PROVISIONED_TTL_MS) return seen.ok
  const ok = isProvisioned(toolchainsDir, lang)
  provisionedSeen.set(key, { at: now, ok })
  return ok
}

/** The parts of the config that decide what is offered (config.paths.toolchains, config.languages.enabled). */
export interface OfferConfig {
  paths: { toolchains: string }
  languages: { enabled: readonly string[] }
  /** With sandbox hosts (queue.redis_url) a language need not be provisioned here: it waits for a host that has it. */
  queue?: { redis_url: string }
}

export type Offer =
  | { ok: true; language: Language }
  | { ok: false; reason: 'unknown' | 'not enabled' | 'not provisioned'; detail: string; language?: Language }

/** The canonical codes languages.enabled names (codes or aliases, any case); undefined = every code. */
function enabledCodes(langs: Map<string, Language>, enabled: readonly string[]): Set<string> | undefined {
  if (!enabled.length) return undefined
  return new Set(enabled.map((e) => resolveLanguage(langs, e)?.code).filter((c): c is string => !!c))
}

function offer(lang: Language, config: OfferConfig, enabled: Set<string> | undefined, sent: string): Offer {
  if (enabled && !enabled.has(lang.code)) return { ok: false, reason: 'not enabled', detail: `lang '${sent}' is not enabled on this server`, language: lang }
  if (!config.queue?.redis_url && !isProvisionedCached(config.paths.toolchains, lang))
    return { ok: false, reason: 'not provisioned', detail: `lang '${sent}' is not provisioned on this server`, language: lang }
  return { ok: true, language: lang }
}

/**
 * THE rule for whether a code runs here, shared by the evaluation API and the interview room: a code or
 * alias of the manifest, named by languages.enabled when that is set, whose toolchain is provisioned.
 * `detail` is the client-facing text of a refusal.
 */
export function offeredLanguage(langs: Map<string, Language>, config: OfferConfig, code: string): Offer {
  const lang = resolveLanguage(langs, code)
  if (!lang) return { ok: false, reason: 'unknown', detail: `lang '${code}' is not supported` }
  return offer(lang, config, enabledCodes(langs, config.languages.enabled), code)
}

/** Every language offeredLanguage accepts, in manifest order (a sandbox host's advert: Judge0's own forms too). */
export function offeredLanguages(langs: Map<string, Language>, config: OfferConfig): Language[] {
  const enabled = enabledCodes(langs, config.languages.enabled)
  return [...langs.values()].filter((l) => offer(l, config, enabled, l.code).ok)
}

/** The languages every face lists (the room, Jobe, HackerEarth): the offered ones less Judge0's own forms (Language.judge0Only). */
export function offeredEverywhere(langs: Map<string, Language>, config: OfferConfig): Language[] {
  return offeredLanguages(langs, config).filter((l) => !l.judge0Only)
}
