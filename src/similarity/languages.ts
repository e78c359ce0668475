// Which of Arbiter's language codes Dolos can compare, and as which of its tree-sitter languages (a
// "family"): each manifest entry's `similarity` key (toolchains/README.md); this folder keeps no table of
// its own. A report compares the submissions of one family, since a Java and a Python solution share no
// tokens. Codes without a parser (Haskell, Kotlin, Ruby, …) are refused rather than compared as plain
// characters, which would rate any two programs of the same shape alike.
import type { Language } from '../languages.ts'

export interface Families {
  /** The families a report can be made for, in a stable (sorted) order. */
  families: readonly string[]
  /** The family of a stored submission's (canonical) code, or undefined when Dolos cannot parse it. */
  familyOfCode(code: string): string | undefined
  /** A request's `language`: a family name ("python") or an Arbiter code ("PYTHON3"); undefined if neither. */
  familyOfRequest(language: string): string | undefined
  /** The Arbiter codes of one family, in manifest order (for messages and the docs). */
  codesOf(family: string): string[]
}

const built = new WeakMap<ReadonlyMap<string, Language>, Families>()

/** The families the manifest names; built once per loaded manifest. */
export function similarityFamilies(langs: ReadonlyMap<string, Language>): Families {
  const seen = built.get(langs)
  if (seen) return seen
  const ofCode = new Map<string, string>()
  for (const l of langs.values()) if (l.similarity) ofCode.set(l.code, l.similarity)
  const families = [...new Set(ofCode.values())].sort()
  const familyOfCode = (code: string) => ofCode.get(code.toUpperCase())
  const made: Families = {
    families,
    familyOfCode,
    familyOfRequest(language) {
      const lower = language.trim().toLowerCase()
      if (families.includes(lower)) return lower
      return familyOfCode(language.trim())
    },
    codesOf: (family) => [...ofCode].filter(([, f]) => f === family).map(([code]) => code),
  }
  built.set(langs, made)
  return made
}
