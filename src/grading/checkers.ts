// The built-in checkers of graded submissions (issue 10): pure functions comparing a program's output
// with the expected output. `lines` is the default. A custom checker program (testlib's protocol) runs
// in its own jail and is not here.
export type BuiltinChecker = 'exact' | 'lines' | 'tokens' | 'unordered' | { type: 'float'; abs?: number; rel?: number }

/** A checker program in a provisioned language (testlib's protocol), run in a jail of its own. */
export interface ProgramChecker {
  type: 'program'
  lang: string
  source: string
}

export type CheckerSpec = BuiltinChecker | ProgramChecker

export const isProgramChecker = (c: CheckerSpec): c is ProgramChecker => typeof c === 'object' && c.type === 'program'

export interface CheckResult {
  ok: boolean
  /** Why not, for the test's checker_message: the first difference, short. */
  message: string
}

const AC: CheckResult = { ok: true, message: '' }
const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s)
const wa = (message: string): CheckResult => ({ ok: false, message })

/** Byte for byte. */
export function exact(expected: string, actual: string): CheckResult {
  if (expected === actual) return AC
  let i = 0
  while (i < expected.length && expected[i] === actual[i]) i++
  return wa(`differs at byte ${i}: expected ${JSON.stringify(clip(expected.slice(i)))}, got ${JSON.stringify(clip(actual.slice(i)))}`)
}

/** The lines of a text: CRLF as LF, each line's trailing whitespace and the trailing blank lines dropped. */
export function significantLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map((l) => l.replace(/[ \t\f\v\r]+$/, ''))
  while (lines.length && lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** Line by line, ignoring trailing whitespace, trailing blank lines and CRLF (the default). */
export function lines(expected: string, actual: string): CheckResult {
  const e = significantLines(expected)
  const a = significantLines(actual)
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    if (e[i] === a[i]) continue
    if (a[i] === undefined) return wa(`line ${i + 1}: expected ${JSON.stringify(clip(e[i]))}, got end of output`)
    if (e[i] === undefined) return wa(`line ${i + 1}: expected end of output, got ${JSON.stringify(clip(a[i]))}`)
    return wa(`line ${i + 1}: expected ${JSON.stringify(clip(e[i]))}, got ${JSON.stringify(clip(a[i]))}`)
  }
  return AC
}

const tokensOf = (text: string) => text.split(/\s+/).filter(Boolean)

/** Whitespace-separated tokens, however they are spaced or broken into lines. */
export function tokens(expected: string, actual: string): CheckResult {
  const e = tokensOf(expected)
  const a = tokensOf(actual)
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    if (e[i] === a[i]) continue
    return wa(`token ${i + 1}: expected ${e[i] === undefined ? 'end of output' : JSON.stringify(clip(e[i]))}, got ${a[i] === undefined ? 'end of output' : JSON.stringify(clip(a[i]))}`)
  }
  return AC
}

const NUMBER = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)$/i

function parseNumber(token: string): number | null {
  if (!NUMBER.test(token)) return null
  const t = token.toLowerCase().replace(/^\+/, '')
  if (t === 'nan' || t === '-nan') return Number.NaN
  if (/^-?inf/.test(t)) return t.startsWith('-') ? -Infinity : Infinity
  return Number(t)
}

/** Equal within either tolerance (absolute or relative); NaN only equals NaN, infinities themselves; -0 = 0. */
export function closeEnough(e: number, a: number, abs: number, rel: number): boolean {
  if (Number.isNaN(e) || Number.isNaN(a)) return Number.isNaN(e) && Number.isNaN(a)
  if (!Number.isFinite(e) || !Number.isFinite(a)) return e === a
  const diff = Math.abs(e - a)
  return diff <= abs || diff <= rel * Math.abs(e)
}

/** Tokens; where the expected token is a number, the output's must be a number within abs or rel of it. */
export function float(expected: string, actual: string, abs = 1e-6, rel = 1e-6): CheckResult {
  const e = tokensOf(expected)
  const a = tokensOf(actual)
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    if (e[i] === undefined || a[i] === undefined) return tokens(e.slice(i).join(' '), a.slice(i).join(' '))
    const en = parseNumber(e[i])
    if (en === null) {
      if (e[i] !== a[i]) return wa(`token ${i + 1}: expected ${JSON.stringify(clip(e[i]))}, got ${JSON.stringify(clip(a[i]))}`)
      continue
    }
    const an = parseNumber(a[i])
    if (an === null) return wa(`token ${i + 1}: expected a number near ${e[i]}, got ${JSON.stringify(clip(a[i]))}`)
    if (!closeEnough(en, an, abs, rel)) return wa(`token ${i + 1}: expected ${e[i]}, got ${a[i]} (beyond abs ${abs} and rel ${rel})`)
  }
  return AC
}

/** The significant lines as a multiset: any order, each line as many times as expected. */
export function unordered(expected: string, actual: string): CheckResult {
  const count = new Map<string, number>()
  for (const l of significantLines(expected)) count.set(l, (count.get(l) ?? 0) + 1)
  for (const l of significantLines(actual)) {
    const n = count.get(l)
    if (!n) return wa(`unexpected line ${JSON.stringify(clip(l))}`)
    count.set(l, n - 1)
  }
  const missing = [...count].find(([, n]) => n > 0)
  return missing ? wa(`missing line ${JSON.stringify(clip(missing[0]))}`) : AC
}

export function check(spec: BuiltinChecker, expected: string, actual: string): CheckResult {
  if (typeof spec === 'object') return float(expected, actual, spec.abs ?? 1e-6, spec.rel ?? 1e-6)
  return { exact, lines, tokens, unordered }[spec](expected, actual)
}
