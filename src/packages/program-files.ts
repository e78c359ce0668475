// A multi-file program (a package's submission folder, a v4 submission's files, `cli grade` of a folder)
// as one job: which file is the entry point, and how the others lie beside it, by the rules the judges
// use (problemtools' languages.yaml, DOMjudge):
// - a language compiled with all its sources on one command line (C, C++, Objective-C, Go, C#, Java,
//   Kotlin, Scala, OCaml, Fortran, COBOL: problemtools' `{files}`) gets every source of its kind
//   on the compile command; the linker (or the JVM's class with `main`) finds the entry;
// - Java's entry is the file whose class declares `static void main`; several such files and none
//   named Main.java: refused as ambiguous;
// - any other language runs one file: the only one of its kind, else main.* (Python's main.py); several
//   and none named main.*: refused as ambiguous;
// - an entry point given by name (v4's entry_point) wins.
// The entry point is written under the language's own source name (main.c, main.py, Main.java, which
// the manifest's commands name); the other files keep their names beside it.
import type { JobFile } from '../jobs/types.ts'
import type { Language } from '../languages.ts'
import { PACKAGE_LANGUAGES, type PackageLanguage } from './package-languages.ts'

export interface ProgramFile {
  /** A plain name (no folders). */
  name: string
  bytes: Buffer
}

/** What a multi-file program adds to a job. */
export interface ProgramPlan {
  /** The entry point among the given files. */
  main: string
  source: string
  files?: JobFile[]
  compileArgv?: string[]
  /** A build/run program's: its build script's name and run step (build-run.ts). */
  sourceFileName?: string
  runArgv?: string[]
}

/** A program whose files cannot be made into one job: the message says which rule. */
export class ProgramRefused extends Error {}

const extOf = (name: string) => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '')

/** The package language an Arbiter language stands for: by its code, else by its source file's extension. */
export function packageLanguageOf(lang: Language): PackageLanguage | undefined {
  const ext = extOf(lang.sourceFile)
  return (
    PACKAGE_LANGUAGES.find((l) => l.code === lang.code) ??
    PACKAGE_LANGUAGES.find((l) => l.extensions.includes(ext) && !l.shebang) ??
    PACKAGE_LANGUAGES.find((l) => l.extensions.includes(ext))
  )
}

/**
 * The file a package's declared entry point (submissions.yaml's `entrypoint`, submissions.json's
 * `entry_point`) names among a folder's files: the file itself (`main.py`, `Solver.java`); Java's
 * class (`Solver`, `pkg.Solver` → `Solver.java`); Kotlin's (`SolverKt` → `Solver.kt` or `solver.kt`);
 * or a name without its extension (`solve` → `solve.py`). Undefined when no file is named so.
 */
export function entryPointFile(entry: string, names: string[], language: PackageLanguage | undefined): string | undefined {
  const has = (n: string) => (names.includes(n) ? n : undefined)
  if (has(entry)) return entry
  const cls = entry.split('.').at(-1)!
  if (language?.code === 'JAVA') return has(`${cls}.java`)
  if (language?.code === 'KOTLIN' && cls.endsWith('Kt')) {
    const base = cls.slice(0, -2)
    return has(`${base}.kt`) ?? has(`${base[0]?.toLowerCase() ?? ''}${base.slice(1)}.kt`)
  }
  for (const ext of language?.extensions ?? []) if (has(`${entry}.${ext}`)) return `${entry}.${ext}`
  return undefined
}

/** A source that declares an entry point, as each family writes one (a hint, never a parse). */
const DECLARES_MAIN: Record<string, RegExp> = {
  java: /\bstatic\s+(?:final\s+)?(?:synchronized\s+)?void\s+main\s*\(/,
  c: /\bmain\s*\(/,
  go: /\bfunc\s+main\s*\(/,
}
const mainPattern = (language: PackageLanguage | undefined) =>
  language?.code === 'JAVA' ? DECLARES_MAIN.java : language?.code === 'GO' ? DECLARES_MAIN.go : language?.together ? DECLARES_MAIN.c : undefined

const isMainName = (n: string) => /^main\./i.test(n)
const text = (b: Buffer) => b.toString('utf8')

/** The entry point of the files, by the rules above; a refusal names the files and what to do. */
export function chooseMain(files: ProgramFile[], lang: Language, entryPoint?: string): string {
  const language = packageLanguageOf(lang)
  if (entryPoint !== undefined) {
    if (!files.some((f) => f.name === entryPoint)) throw new ProgramRefused(`entry_point '${entryPoint}' is not one of the files (${files.map((f) => f.name).join(', ')})`)
    return entryPoint
  }
  const ours = (language ? files.filter((f) => language.extensions.includes(extOf(f.name))) : files.filter((f) => extOf(f.name) === extOf(lang.sourceFile))).sort((a, b) => (a.name < b.name ? -1 : 1))
  const kind = language?.name ?? lang.name
  if (!ours.length) throw new ProgramRefused(`no ${kind} source among the files (${files.map((f) => f.name).join(', ')})`)
  if (ours.length === 1) return ours[0].name
  const named = ours.filter((f) => isMainName(f.name))
  const pattern = mainPattern(language)
  if (language?.code === 'JAVA') {
    const declaring = ours.filter((f) => pattern!.test(text(f.bytes)))
    if (declaring.length === 1) return declaring[0].name
    if (declaring.length > 1) {
      const main = declaring.find((f) => isMainName(f.name))
      if (main) return main.name
      throw new ProgramRefused(`ambiguous entry point: ${declaring.map((f) => f.name).join(', ')} each declare main; name the entry point Main.java or give its name (v4 entry_point, --entry-point)`)
    }
    return (named[0] ?? ours[0]).name
  }
  if (language?.together) {
    // every source is compiled: the entry only names the command's first source
    return (named[0] ?? ours.find((f) => pattern?.test(text(f.bytes))) ?? ours[0]).name
  }
  if (named.length === 1) return named[0].name
  const ext = extOf(lang.sourceFile)
  throw new ProgramRefused(
    named.length > 1
      ? `ambiguous entry point: ${named.map((f) => f.name).join(', ')} are all named main.*; give its name (v4 entry_point, --entry-point)`
      : `ambiguous entry point: several ${kind} files (${ours.map((f) => f.name).join(', ')}) and none is named main.${ext}; name the entry point main.${ext} or give its name (v4 entry_point, --entry-point)`
  )
}

/**
 * One job of a program's files in the language `lang`: the entry point as the source, the others beside
 * it, and, where the language compiles them together, its compile command with every source of its kind.
 * `compileArgv` is the command to extend (a package's own, e.g. C with -fpermissive), else the language's.
 */
export function planProgram(files: ProgramFile[], lang: Language, opts: { entryPoint?: string; compileArgv?: string[] } = {}): ProgramPlan {
  if (!files.length) throw new ProgramRefused('no files')
  const seen = new Set<string>()
  for (const f of files) {
    if (f.name.includes('/')) throw new ProgramRefused(`${f.name}: a program's files lie in one folder (no subfolders)`)
    if (seen.has(f.name)) throw new ProgramRefused(`${f.name}: a file name given twice`)
    seen.add(f.name)
  }
  const main = chooseMain(files, lang, opts.entryPoint)
  const mainFile = files.find((f) => f.name === main)!
  const others = files.filter((f) => f !== mainFile)
  const clash = others.find((f) => f.name === lang.sourceFile)
  if (clash) throw new ProgramRefused(`${clash.name} is not the entry point (${main}), but ${lang.code} names its entry point ${lang.sourceFile}: rename it`)
  const plan: ProgramPlan = { main, source: text(mainFile.bytes) }
  if (others.length) plan.files = others.map((f) => ({ name: f.name, contentBase64: f.bytes.toString('base64') }))
  const language = packageLanguageOf(lang)
  const base = opts.compileArgv ?? lang.compile
  const sources = language?.together ? others.filter((f) => language.extensions.includes(extOf(f.name)) && extOf(f.name) !== 'h').map((f) => f.name).sort() : []
  if (base?.length && sources.length) {
    // OCaml and Fortran compile a module before the files that use it: the entry point goes last
    const last = language?.code === 'OCAML' || language?.code === 'FORTRAN'
    const list = last ? [...sources, lang.sourceFile] : [lang.sourceFile, ...sources]
    // Java's wrapper (java-compile) appends the entry point itself after the given argv
    plan.compileArgv = base.includes(lang.sourceFile) ? base.flatMap((a) => (a === lang.sourceFile ? list : [a])) : [...base, ...sources]
  } else if (opts.compileArgv) plan.compileArgv = opts.compileArgv
  return plan
}
