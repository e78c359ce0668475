// The Judge0 language table: Judge0 CE 1.13.1's own ids (its db/languages/active.rb) for each Arbiter
// code whose language it has, with names in Judge0's style carrying the versions actually installed
// here; Arbiter's codes with no Judge0 counterpart get fixed ids from FREE_ID_BASE up. Ids never change:
// clients hard-code them.
import type { Language } from '../languages.ts'

/** Judge0 CE 1.13.1 uses ids 1–89; Judge0 1.14 took 90–113. Arbiter's own start well clear of both. */
export const FREE_ID_BASE = 1001

export interface Judge0LanguageEntry {
  id: number
  /** The Arbiter code it runs. */
  code: string
  /** Judge0's name for it, given the installed version. */
  name: (version: string) => string
  /** Version shown when the provisioner recorded none. */
  fallbackVersion: string
}

const entry = (id: number, code: string, name: (v: string) => string, fallbackVersion: string): Judge0LanguageEntry => ({
  id,
  code,
  name,
  fallbackVersion,
})

/**
 * One id per behaviour. Judge0's C 48/49 (older GCCs) are not offered: there is one GCC here, at 50.
 * C++ 52/53/54 were three GCCs (each defaulting to gnu++14); here they are GCC 14 in three dialects,
 * 54 its default (gnu++17). 52 stays the official SDK's `CPP`, so it is kept as gnu++17 too.
 * Judge0's 62 was OpenJDK 13: Java 14 (javac --release 14) is the nearest.
 */
export const JUDGE0_LANGUAGES: readonly Judge0LanguageEntry[] = [
  entry(50, 'C', (v) => `C (GCC ${v})`, '14'),
  entry(51, 'CSHARP', (v) => `C# (Mono ${v})`, '6.12'),
  entry(52, 'CPP17', (v) => `C++ (GCC ${v}, gnu++17)`, '14'),
  entry(53, 'CPP14', (v) => `C++ (GCC ${v}, gnu++14)`, '14'),
  entry(54, 'CPP', (v) => `C++ (GCC ${v})`, '14'),
  entry(60, 'GO', (v) => `Go (${v})`, '1.24'),
  entry(61, 'HASKELL', (v) => `Haskell (GHC ${v})`, '9.6'),
  entry(62, 'JAVA14', (v) => `Java (OpenJDK ${v}, --release 14)`, '21'),
  entry(63, 'JAVASCRIPT_NODE', (v) => `JavaScript (Node.js ${v})`, '20'),
  entry(67, 'PASCAL', (v) => `Pascal (FPC ${v})`, '3.2'),
  entry(68, 'PHP', (v) => `PHP (${v})`, '8.4'),
  entry(70, 'PYTHON', (v) => `Python (${v})`, '2.7'),
  entry(71, 'PYTHON3', (v) => `Python (${v})`, '3.13'),
  entry(72, 'RUBY', (v) => `Ruby (${v})`, '3.3'),
  entry(73, 'RUST', (v) => `Rust (${v})`, '1.85'),
  entry(74, 'TYPESCRIPT', (v) => `TypeScript (${v})`, '4.9'),
  entry(78, 'KOTLIN', (v) => `Kotlin (${v})`, '1.3.31'),
  entry(79, 'OBJECTIVEC', (v) => `Objective-C (GCC ${v}, GNUstep)`, '14'),
  entry(80, 'R', (v) => `R (${v})`, '4.5'),
  entry(81, 'SCALA', (v) => `Scala (${v})`, '2.11.12'),
  entry(83, 'SWIFT', (v) => `Swift (${v})`, '6.0'),
  entry(85, 'PERL', (v) => `Perl (${v})`, '5.40'),
  entry(86, 'CLOJURE', (v) => `Clojure (${v})`, '1.12'),
  // the languages beyond the spec, at Judge0's own ids
  entry(43, 'TEXT', () => 'Plain Text', '9.7'),
  entry(45, 'ASSEMBLY', (v) => `Assembly (NASM ${v})`, '2.16'),
  entry(46, 'BASH', (v) => `Bash (${v})`, '5.2'),
  entry(55, 'LISP', (v) => `Common Lisp (SBCL ${v})`, '2.5'),
  entry(56, 'D', (v) => `D (LDC ${v})`, '1.40'),
  entry(57, 'ELIXIR', (v) => `Elixir (${v})`, '1.18'),
  entry(58, 'ERLANG', (v) => `Erlang (OTP ${v})`, '27'),
  entry(59, 'FORTRAN', (v) => `Fortran (GFortran ${v})`, '14'),
  entry(64, 'LUA', (v) => `Lua (${v})`, '5.4'),
  entry(65, 'OCAML', (v) => `OCaml (${v})`, '5.3'),
  entry(66, 'OCTAVE', (v) => `Octave (${v})`, '9.4'),
  entry(69, 'PROLOG', (v) => `Prolog (GNU Prolog ${v})`, '1.4.5'),
  entry(75, 'C_CLANG', (v) => `C (Clang ${v})`, '19'),
  entry(76, 'CPP_CLANG', (v) => `C++ (Clang ${v})`, '19'),
  entry(77, 'COBOL', (v) => `COBOL (GnuCOBOL ${v})`, '3.2'),
  entry(82, 'SQL', (v) => `SQL (SQLite ${v})`, '3.46'),
  // Arbiter's own, no Judge0 id: fixed from FREE_ID_BASE
  entry(1001, 'JAVA', (v) => `Java (OpenJDK ${v}, --release 8)`, '21'),
  entry(1002, 'CPP11', (v) => `C++ (GCC ${v}, gnu++11)`, '14'),
  entry(1003, 'PYTHON3_8', (v) => `Python (${v}, for Python 3.8)`, '3.9'),
  entry(1004, 'AWK', (v) => `AWK (GNU Awk ${v})`, '5.2'),
  entry(1005, 'ADA', (v) => `Ada (GNAT ${v})`, '14'),
  entry(1006, 'PROLOG_SWI', (v) => `Prolog (SWI-Prolog ${v})`, '9.2'),
]

/**
 * Codes that behave exactly like one above and so get no id of their own (the v3/v4 APIs keep them
 * for HackerEarth's sake): JAVA8 is JAVA, JAVASCRIPT is JAVASCRIPT_NODE.
 */
export const SAME_AS: Readonly<Record<string, string>> = { JAVA8: 'JAVA', JAVASCRIPT: 'JAVASCRIPT_NODE' }

/** Judge0's "Multi-file program": user-written bash build scripts, never offered here. */
export const MULTI_FILE_ID = 89

export const entryById = (id: number): Judge0LanguageEntry | undefined => JUDGE0_LANGUAGES.find((e) => e.id === id)

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
 * The languages offered through Judge0: the entries whose Arbiter code is offered here (known,
 * enabled, provisioned), sorted by name as Judge0 sorts them.
 */
export function offeredJudge0Languages(offered: readonly Language[], versions: Readonly<Record<string, { version: string } | undefined>>): Judge0Language[] {
  const byCode = new Map(offered.map((l) => [l.code, l]))
  const out: Judge0Language[] = []
  for (const e of JUDGE0_LANGUAGES) {
    const lang = byCode.get(e.code)
    if (lang) out.push(describeLanguage(e, lang, versions[e.code]?.version))
  }
  return out.sort((a, b) => a.name.localeCompare(b.name, 'en') || a.id - b.id)
}
