// Which of Arbiter's language codes Dolos can compare, and as which of its tree-sitter languages (a
// "family"): a report compares the submissions of one family, since a Java and a Python solution share
// no tokens. Codes without a parser here (Haskell, Kotlin, Ruby, …) are refused rather than compared
// as plain characters, which would rate any two programs of the same shape alike.

/** Arbiter code → Dolos language name (the name `@dodona/dolos-lib` loads a parser by). */
export const DOLOS_LANGUAGE_OF: Readonly<Record<string, string>> = {
  C: 'c',
  CPP: 'cpp',
  CPP11: 'cpp',
  CPP14: 'cpp',
  CPP17: 'cpp',
  CSHARP: 'c-sharp',
  GO: 'go',
  JAVA: 'java',
  JAVA8: 'java',
  JAVA14: 'java',
  JAVASCRIPT: 'javascript',
  JAVASCRIPT_NODE: 'javascript',
  TYPESCRIPT: 'typescript',
  PHP: 'php',
  PYTHON: 'python',
  PYTHON3: 'python',
  PYTHON3_8: 'python',
  R: 'r',
  RUST: 'rust',
  SCALA: 'scala',
}

/** The families a report can be made for, in a stable order. */
export const FAMILIES: readonly string[] = [...new Set(Object.values(DOLOS_LANGUAGE_OF))].sort()

/** The family of a stored submission's (canonical) code, or undefined when Dolos cannot parse it. */
export const familyOfCode = (code: string): string | undefined => DOLOS_LANGUAGE_OF[code.toUpperCase()]

/** A request's `language`: a family name ("python") or an Arbiter code ("PYTHON3"); undefined if neither. */
export function familyOfRequest(language: string): string | undefined {
  const lower = language.trim().toLowerCase()
  if (FAMILIES.includes(lower)) return lower
  return familyOfCode(language.trim())
}

/** The Arbiter codes of one family (for messages and the docs). */
export const codesOf = (family: string): string[] =>
  Object.entries(DOLOS_LANGUAGE_OF)
    .filter(([, f]) => f === family)
    .map(([code]) => code)
