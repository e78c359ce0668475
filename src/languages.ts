// The language manifest: loads and validates toolchains/languages/*.toml into Language entries keyed
// by spec code, resolves codes and aliases, expands argv placeholders, and reads provisioning stamps.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { z } from 'zod'
import type { Artifact, Judge0Name, Language, PistonName } from './languages-types.ts'

export type { Artifact, Judge0Name, Language, PistonName }

/**
 * Judge0 CE 1.13.1 uses ids 1–89 and Judge0 1.14 took 90–113: an id of Arbiter's own (a code Judge0 has
 * no id for) starts well clear of both. Ids never change: clients hard-code them.
 */
export const JUDGE0_OWN_ID_BASE = 1001

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

/**
 * The compile command a job runs, undefined when it has no compile step: a protocol's own
 * (`compileArgv`, where [] means none) replaces the manifest's.
 */
export function compileCommandOf(lang: Pick<Language, 'compile'>, spec: { compileArgv?: string[] }): string[] | undefined {
  return spec.compileArgv ? (spec.compileArgv.length ? spec.compileArgv : undefined) : lang.compile
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
// by toolchains directory, then by what decides a language's check (its root, toolchain and packages),
// that key made once per Language object: offeredLanguages checks every language of the manifest
const provisionedSeen = new Map<string, Map<string, { at: number; ok: boolean }>>()
const provisionedKeys = new WeakMap<Language, string>()
function provisionedKey(lang: Language): string {
  let key = provisionedKeys.get(lang)
  if (key === undefined) provisionedKeys.set(lang, (key = `${lang.root}\0${lang.toolchain}\0${lang.packages.join(' ')}`))
  return key
}

/** isProvisioned, remembered for PROVISIONED_TTL_MS per toolchains directory and language. */
export function isProvisionedCached(toolchainsDir: string, lang: Language, now = Date.now()): boolean {
  let inDir = provisionedSeen.get(toolchainsDir)
  if (!inDir) provisionedSeen.set(toolchainsDir, (inDir = new Map()))
  const key = provisionedKey(lang)
  const seen = inDir.get(key)
  if (seen && now - seen.at < PROVISIONED_TTL_MS) return seen.ok
  const ok = isProvisioned(toolchainsDir, lang)
  inDir.set(key, { at: now, ok })
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
