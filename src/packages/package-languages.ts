// The language of a package's program (a submission, a validator) by its files' extensions, as
// problemtools' languages.yaml decides: the language most files match, ties broken by its priority;
// the main file is the only one, else main.*, else the first name in order (program-files.ts refines
// this for submissions). Every extension of problemtools' table and of DOMjudge's default languages maps
// to Arbiter's code. Where the two differ, problemtools is followed, with one exception: `.pl` is
// Prolog (problemtools) unless its first line is a `#!` naming perl or the package is DOMjudge's
// (a domjudge-problem.ini), where it is Perl as DOMjudge reads it (DOMjudge's Prolog is `.plg`).
export interface PackageLanguage {
  /** problemtools' (or DOMjudge's) name of the language. */
  name: string
  /** Arbiter's code, absent when Arbiter has no such language. */
  code?: string
  /** problemtools' priority; DOMjudge-only languages rank below every problemtools one. */
  priority: number
  extensions: string[]
  /** Files with these extensions count only when their first line matches (problemtools' shebang_files). */
  shebang?: { extensions: string[]; pattern: RegExp }
  /** Compiled with all its sources on one command line (problemtools' `{files}`), the linker finding the entry. */
  together?: boolean
  /**
   * The words a package names it by in submissions.yaml (the format's language codes) and
   * submissions.json (DOMjudge's language ids, both its short and its external ones), lower case.
   */
  ids: string[]
}

/** The language a package's submissions.yaml or submissions.json names (case-insensitive), if it is one of the table's. */
export const packageLanguageById = (word: string): PackageLanguage | undefined => PACKAGE_LANGUAGES.find((l) => l.ids.includes(word.toLowerCase()))

export const PACKAGE_LANGUAGES: PackageLanguage[] = [
  // problemtools' languages.yaml (1.20260907), its priorities and file patterns
  { name: 'C', ids: ['c'], code: 'C', priority: 950, extensions: ['c'], together: true },
  { name: 'C++', ids: ['cpp', 'c++'], code: 'CPP17', priority: 1000, extensions: ['cc', 'C', 'cpp', 'cxx', 'c++'], together: true },
  { name: 'C#', ids: ['csharp', 'cs'], code: 'CSHARP', priority: 700, extensions: ['cs', 'csharp'], together: true },
  { name: 'Cobol', ids: ['cobol', 'cob'], code: 'COBOL', priority: 50, extensions: ['cob'], together: true },
  { name: 'F#', ids: ['fsharp', 'fs'], priority: 675, extensions: ['fs'] },
  { name: 'Go', ids: ['go', 'golang'], code: 'GO', priority: 400, extensions: ['go'], together: true },
  { name: 'Haskell', ids: ['haskell', 'hs'], code: 'HASKELL', priority: 600, extensions: ['hs', 'lhs', 'c'] },
  { name: 'Java', ids: ['java'], code: 'JAVA', priority: 800, extensions: ['java'], together: true },
  { name: 'JavaScript', ids: ['javascript', 'js'], code: 'JAVASCRIPT_NODE', priority: 500, extensions: ['js'] },
  { name: 'Kotlin', ids: ['kotlin', 'kt'], code: 'KOTLIN', priority: 250, extensions: ['kt'], together: true },
  { name: 'Common Lisp', ids: ['lisp'], code: 'LISP', priority: 200, extensions: ['lisp', 'cl'] },
  { name: 'OCaml', ids: ['ocaml'], code: 'OCAML', priority: 375, extensions: ['ml'], together: true },
  { name: 'Objective C', ids: ['objectivec', 'objc'], code: 'OBJECTIVEC', priority: 300, extensions: ['m', 'c'], together: true },
  { name: 'Pascal', ids: ['pascal', 'pas'], code: 'PASCAL', priority: 350, extensions: ['pas', 'p'] },
  { name: 'PHP', ids: ['php'], code: 'PHP', priority: 450, extensions: ['php'] },
  // swipl -c {files}: every file is loaded, the goal main runs (verify's run command, cli-commands.ts)
  { name: 'Prolog', ids: ['prolog', 'plg'], code: 'PROLOG_SWI', priority: 100, extensions: ['pl', 'plg'], together: true },
  { name: 'Python 2', ids: ['python2', 'py2'], code: 'PYTHON', priority: 860, extensions: ['py', 'py2'], shebang: { extensions: ['py'], pattern: /^#!.*python2\b/ } },
  { name: 'Python 3', ids: ['python3', 'py3'], code: 'PYTHON3', priority: 850, extensions: ['py', 'py3'] },
  { name: 'Ruby', ids: ['ruby', 'rb'], code: 'RUBY', priority: 650, extensions: ['rb'] },
  { name: 'Rust', ids: ['rust', 'rs'], code: 'RUST', priority: 575, extensions: ['rs'] },
  { name: 'Scala', ids: ['scala'], code: 'SCALA', priority: 550, extensions: ['sc', 'scala'], together: true },
  // DOMjudge's default languages that problemtools does not know (.pl: see above)
  { name: 'Perl', ids: ['perl', 'pl'], code: 'PERL', priority: 110, extensions: ['pl'], shebang: { extensions: ['pl'], pattern: /^#!.*\bperl\b/ } },
  { name: 'Swift', ids: ['swift'], code: 'SWIFT', priority: 45, extensions: ['swift'] },
  { name: 'Ada', ids: ['ada', 'adb'], code: 'ADA', priority: 40, extensions: ['adb', 'ads'] },
  { name: 'AWK', ids: ['awk'], code: 'AWK', priority: 35, extensions: ['awk'] },
  { name: 'Bash', ids: ['bash', 'sh'], code: 'BASH', priority: 30, extensions: ['bash', 'sh'] },
  { name: 'Fortran', ids: ['fortran', 'f95', 'f90'], code: 'FORTRAN', priority: 25, extensions: ['f95', 'f90'], together: true },
  { name: 'Lua', ids: ['lua'], code: 'LUA', priority: 20, extensions: ['lua'] },
  { name: 'R', ids: ['r'], code: 'R', priority: 15, extensions: ['R'] },
]

const extOf = (name: string) => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '')

/** A program's file: its name (in its folder), and its bytes where a first line may decide (shebangs). */
export type ProgramName = string | { name: string; bytes?: Buffer }

export interface LanguageOptions {
  /** A DOMjudge package (domjudge-problem.ini): `.pl` is Perl. */
  domjudge?: boolean
}

const firstLine = (b: Buffer | undefined) => (b ? b.subarray(0, 256).toString('utf8').split('\n')[0] : '')

/** Whether a file counts for a language (its extension, and the first line where the language asks). */
function counts(language: PackageLanguage, file: { name: string; bytes?: Buffer }, opts: LanguageOptions): boolean {
  const ext = extOf(file.name)
  if (!language.extensions.includes(ext)) return false
  if (language.code === 'PERL' && opts.domjudge) return true
  if (language.shebang?.extensions.includes(ext)) return language.shebang.pattern.test(firstLine(file.bytes))
  return true
}

/** The language of a program's files and its main file; undefined when no file is in a known language. */
export function languageOfFiles(names: ProgramName[], opts: LanguageOptions = {}): { lang: string; language: PackageLanguage; main: string; files: string[] } | undefined {
  const all = names.map((n) => (typeof n === 'string' ? { name: n } : n))
  let best: { language: PackageLanguage; files: string[]; priority: number } | undefined
  for (const language of PACKAGE_LANGUAGES) {
    const files = all.filter((f) => counts(language, f, opts)).map((f) => f.name)
    if (!files.length) continue
    // a DOMjudge package's .pl is Perl before Prolog
    const priority = opts.domjudge && language.code === 'PERL' ? 1100 : language.priority
    if (!best || files.length > best.files.length || (files.length === best.files.length && priority > best.priority)) best = { language, files, priority }
  }
  if (!best) return undefined
  const sorted = [...best.files].sort()
  const main = sorted.length === 1 ? sorted[0] : (sorted.find((n) => /^main\./i.test(n.split('/').at(-1)!)) ?? sorted[0])
  return { lang: best.language.code ?? '', language: best.language, main, files: sorted }
}
