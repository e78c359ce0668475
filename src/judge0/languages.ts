// Judge0's languages: each manifest entry's `judge0` ids (toolchains/README.md, "Each API's name for it"),
// named in Judge0's style with the versions actually installed here. Judge0 CE 1.13.1's own ids where it
// has the language; Arbiter's codes with no Judge0 counterpart have ids from JUDGE0_OWN_ID_BASE up. Ids
// never change: clients hard-code them. This folder keeps no table of its own.
import { JUDGE0_OWN_ID_BASE, type Language } from '../languages.ts'

export { JUDGE0_OWN_ID_BASE }

export interface Judge0LanguageEntry {
  id: number
  /** The Arbiter code it runs. */
  code: string
  /** Judge0's name for it, given the installed version. */
  name: (version: string) => string
  /** Version shown when the provisioner recorded none. */
  fallbackVersion: string
}

/** Judge0's "Multi-file program": no source, a zip of scripts (additional_files). */
export const MULTI_FILE_ID = 89

/** A language's Judge0 ids as entries: `{version}` in the manifest's name is the version shown. */
const entriesOf = (lang: Language): Judge0LanguageEntry[] =>
  lang.judge0.map((j) => ({ id: j.id, code: lang.code, name: (v) => j.name.replaceAll('{version}', v), fallbackVersion: j.version ?? '' }))

const tables = new WeakMap<ReadonlyMap<string, Language>, ReadonlyMap<number, Judge0LanguageEntry>>()

/** Every Judge0 id the manifest names, in manifest order (the loader refused an id named twice); built once per manifest. */
export function judge0Entries(langs: ReadonlyMap<string, Language>): ReadonlyMap<number, Judge0LanguageEntry> {
  let table = tables.get(langs)
  if (!table) {
    const byId = new Map<number, Judge0LanguageEntry>()
    for (const lang of langs.values()) for (const e of entriesOf(lang)) byId.set(e.id, e)
    tables.set(langs, (table = byId))
  }
  return table
}

/**
 * Judge0 CE 1.13.1's ids (its db/languages/active.rb: 43 Plain Text … 89 Multi-file program). An id here
 * that no manifest entry claims answers 422 as an unknown id does; docs/api/judge0.md lists each under
 * "Not offered" with the reason (docs-table.test.ts holds the page to it).
 */
export const JUDGE0_CE_IDS: readonly number[] = Array.from({ length: 89 - 43 + 1 }, (_, i) => 43 + i)

/**
 * The codes that have no Judge0 id because they run exactly as one that has (same toolchain, source
 * file, commands, environment and limits: JAVA8 as JAVA, JAVASCRIPT as JAVASCRIPT_NODE): code → that one.
 */
export function sameAs(langs: ReadonlyMap<string, Language>): Record<string, string> {
  const key = (l: Language) => JSON.stringify([l.toolchain, l.root, l.sourceFile, l.compile, l.run, l.env, l.compileLimits, l.runMemoryHeadroomKb, l.runProcesses, l.runOpenFiles, l.memoryErrorPattern])
  const withId = new Map([...langs.values()].filter((l) => l.judge0.length).map((l) => [key(l), l.code]))
  const out: Record<string, string> = {}
  for (const l of langs.values()) {
    const same = !l.judge0.length && withId.get(key(l))
    if (same) out[l.code] = same
  }
  return out
}

export const entryById = (langs: ReadonlyMap<string, Language>, id: number): Judge0LanguageEntry | undefined => judge0Entries(langs).get(id)

/** One language as Judge0 describes it (GET /languages/{id}: its LanguageSerializer's attributes). */
export interface Judge0Language {
  id: number
  name: string
  is_archived: boolean
  source_file: string
  compile_cmd: string | null
  run_cmd: string
}

/** Judge0 shows its commands as strings, `%s` where compiler options go; these are the argv joined. */
const shown = (argv: readonly string[]) => argv.map((a) => (/[\s'"\\]/.test(a) ? JSON.stringify(a) : a)).join(' ')

export function describeLanguage(e: Judge0LanguageEntry, lang: Language, version: string | undefined): Judge0Language {
  const compile = lang.compile
  let compileCmd: string | null = null
  if (compile) {
    const at = compile.lastIndexOf(lang.sourceFile)
    const withSlot = at < 0 ? [...compile, '%s'] : [...compile.slice(0, at), '%s', ...compile.slice(at)]
    compileCmd = shown(withSlot)
  }
  return {
    id: e.id,
    name: e.name(version ?? e.fallbackVersion),
    is_archived: false,
    source_file: lang.sourceFile,
    compile_cmd: compileCmd,
    run_cmd: shown(lang.run),
  }
}

/**
 * The languages offered through Judge0: the Judge0 ids of the languages offered here (known, enabled,
 * provisioned), sorted by name as Judge0 sorts them.
 */
export function offeredJudge0Languages(offered: readonly Language[], versions: Readonly<Record<string, { version: string } | undefined>>): Judge0Language[] {
  const out: Judge0Language[] = []
  for (const lang of offered) {
    for (const e of entriesOf(lang)) out.push(describeLanguage(e, lang, versions[e.code]?.version))
  }
  return out.sort((a, b) => a.name.localeCompare(b.name, 'en') || a.id - b.id)
}
