// The language of a package's program (a submission, a validator) by its files' extensions, as
// problemtools' languages.yaml decides: the language most files match, ties broken by its priority;
// the main file is the only one, else main.*, else the first name in order. Extensions map to Arbiter's
// codes; where problemtools and DOMjudge differ, problemtools is followed (.pl is Prolog there, which
// Arbiter does not offer: such a submission is listed as in a language not offered).
export interface PackageLanguage {
  /** problemtools' name of the language. */
  name: string
  /** Arbiter's code, absent when Arbiter has no such language. */
  code?: string
  priority: number
  extensions: string[]
}

export const PACKAGE_LANGUAGES: PackageLanguage[] = [
  { name: 'C++', code: 'CPP17', priority: 1000, extensions: ['cc', 'C', 'cpp', 'cxx', 'c++'] },
  { name: 'C', code: 'C', priority: 950, extensions: ['c'] },
  { name: 'Python 3', code: 'PYTHON3', priority: 850, extensions: ['py'] },
  { name: 'Java', code: 'JAVA', priority: 800, extensions: ['java'] },
  { name: 'C#', code: 'CSHARP', priority: 700, extensions: ['cs'] },
  { name: 'Haskell', code: 'HASKELL', priority: 600, extensions: ['hs'] },
  { name: 'JavaScript', code: 'JAVASCRIPT_NODE', priority: 500, extensions: ['js'] },
  { name: 'Go', code: 'GO', priority: 400, extensions: ['go'] },
  { name: 'Objective C', code: 'OBJECTIVEC', priority: 300, extensions: ['m'] },
  { name: 'Kotlin', code: 'KOTLIN', priority: 250, extensions: ['kt'] },
  { name: 'Rust', code: 'RUST', priority: 575, extensions: ['rs'] },
  { name: 'Ruby', code: 'RUBY', priority: 200, extensions: ['rb'] },
  { name: 'PHP', code: 'PHP', priority: 300, extensions: ['php'] },
  { name: 'Scala', code: 'SCALA', priority: 550, extensions: ['scala'] },
  { name: 'Pascal', code: 'PASCAL', priority: 100, extensions: ['pas'] },
  { name: 'Swift', code: 'SWIFT', priority: 100, extensions: ['swift'] },
  { name: 'Prolog', priority: 100, extensions: ['pl'] },
  { name: 'Common Lisp', priority: 200, extensions: ['lisp', 'cl'] },
  { name: 'OCaml', priority: 375, extensions: ['ml'] },
  { name: 'F#', priority: 675, extensions: ['fs'] },
  { name: 'Cobol', priority: 50, extensions: ['cob'] },
]

const extOf = (name: string) => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '')

/** The language of a program's files and its main file; undefined when no file is in a known language. */
export function languageOfFiles(names: string[]): { lang: string; language: PackageLanguage; main: string } | undefined {
  let best: { language: PackageLanguage; files: string[] } | undefined
  for (const language of PACKAGE_LANGUAGES) {
    const files = names.filter((n) => language.extensions.includes(extOf(n)))
    if (!files.length) continue
    if (!best || files.length > best.files.length || (files.length === best.files.length && language.priority > best.language.priority)) best = { language, files }
  }
  if (!best) return undefined
  const sorted = [...best.files].sort()
  const main = sorted.length === 1 ? sorted[0] : (sorted.find((n) => /^main\./i.test(n)) ?? sorted[0])
  return { lang: best.language.code ?? '', language: best.language, main }
}
