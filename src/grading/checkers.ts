// The built-in checkers of graded submissions: pure functions comparing a program's output with the
// expected output. `lines` is the default. A custom checker program (testlib's protocol) runs in its
// own jail and is not here.
//
// The output is the program's, so every checker here is one pass over bytes: no regular expression
// runs over it (a backtracking one is quadratic on a long run of spaces or digits), and the output is
// compared as the bytes the program wrote (a decode to text would make every invalid byte the same
// U+FFFD). Whitespace is ASCII's: space, \t, \n, \v, \f, \r. A Budget given to check() bounds the time.
import type { z } from 'zod'
import { Budget, JudgeTimeout } from './budget.ts'
import type { CheckerSchema } from './checker-schema.ts'

// The checkers' one declaration is their zod schema (checker-schema.ts): the types below are read from it,
// so a new checker is its schema entry and its judging, not a type kept in step by hand.
export type CheckerSpec = z.infer<typeof CheckerSchema>
/** A checker program in a provisioned language (testlib's protocol), run in a jail of its own. */
export type ProgramChecker = Extract<CheckerSpec, { type: 'program' }>
/** The Kattis/ICPC default output validator with its flags (default-validator.ts), judged in the worker like a built-in. */
export type KattisDefaultChecker = Extract<CheckerSpec, { type: 'kattis' }>
/** A Kattis/ICPC output validator program: argv input judge_answer feedback_dir [flags], the output on stdin, exit 42/43; files lie beside its source. */
export type OutputValidatorChecker = Extract<CheckerSpec, { type: 'output_validator' }>
/** The pure comparisons judged here: 'exact', 'lines', 'tokens', 'unordered', {type: 'float'}. */
export type BuiltinChecker = Exclude<CheckerSpec, ProgramChecker | KattisDefaultChecker | OutputValidatorChecker>

export const isProgramChecker = (c: CheckerSpec): c is ProgramChecker => typeof c === 'object' && c.type === 'program'
export const isOutputValidator = (c: CheckerSpec): c is OutputValidatorChecker => typeof c === 'object' && c.type === 'output_validator'
/** A checker program's source and the files beside it, in bytes (all within limits.source_max_bytes). */
export const checkerSourceBytes = (c: ProgramChecker | OutputValidatorChecker) => Buffer.byteLength(c.source) + ('files' in c ? (c.files ?? []).reduce((n, f) => n + Buffer.byteLength(f.content), 0) : 0)
/** A checker that runs as a program of its own, in a jail: its language must be offered, its source within the cap. */
export const checkerProgram = (c: CheckerSpec): ProgramChecker | OutputValidatorChecker | undefined => (isProgramChecker(c) || isOutputValidator(c) ? c : undefined)

export interface CheckResult {
  ok: boolean
  /** Why not, for the test's checker_message: the first difference, short. */
  message: string
}

export { Budget, JudgeTimeout }
const UNBOUNDED = new Budget(Infinity)

type Text = string | Uint8Array
const bytesOf = (t: Text): Buffer => (typeof t === 'string' ? Buffer.from(t, 'utf8') : Buffer.isBuffer(t) ? t : Buffer.from(t.buffer, t.byteOffset, t.byteLength))

const AC: CheckResult = { ok: true, message: '' }
const wa = (message: string): CheckResult => ({ ok: false, message })
/** At most 40 bytes of a range, as text, quoted. */
const quote = (b: Buffer) => JSON.stringify(b.length > 40 ? `${b.subarray(0, 40).toString('utf8')}…` : b.toString('utf8'))

/** ASCII whitespace: space, \t \n \v \f \r. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13)
/** Trailing whitespace of a line: as isSpace, without \n (a line holds none). */
const isBlank = (c: number) => c === 32 || c === 9 || c === 11 || c === 12 || c === 13

/** Byte for byte. */
export function exact(expected: Text, actual: Text, budget = UNBOUNDED): CheckResult {
  const e = bytesOf(expected)
  const a = bytesOf(actual)
  if (e.equals(a)) return AC
  let i = 0
  for (const n = Math.min(e.length, a.length); i < n && e[i] === a[i]; i++) budget.tick()
  return wa(`differs at byte ${i}: expected ${quote(e.subarray(i))}, got ${quote(a.subarray(i))}`)
}

/**
 * Pieces of a text as [start, end) offsets, two numbers a piece in one typed array (a Buffer or a
 * JS array entry per piece costs more than the comparison itself).
 */
class Ranges {
  data = new Int32Array(64)
  length = 0
  push(start: number, end: number) {
    if (this.length + 2 > this.data.length) {
      const grown = new Int32Array(this.data.length * 2)
      grown.set(this.data)
      this.data = grown
    }
    this.data[this.length++] = start
    this.data[this.length++] = end
  }
  /** Pieces, not numbers. */
  get count() {
    return this.length / 2
  }
  start(i: number) {
    return this.data[2 * i]!
  }
  end(i: number) {
    return this.data[2 * i + 1]!
  }
}

/** Whether piece i of x equals piece i of y, byte by byte. */
function same(x: Buffer, xr: Ranges, y: Buffer, yr: Ranges, i: number): boolean {
  const xs = xr.start(i)
  const ys = yr.start(i)
  const n = xr.end(i) - xs
  if (yr.end(i) - ys !== n) return false
  for (let k = 0; k < n; k++) if (x[xs + k] !== y[ys + k]) return false
  return true
}
const piece = (b: Buffer, r: Ranges, i: number) => b.subarray(r.start(i), r.end(i))

/**
 * The lines of a text: CRLF and a lone CR end a line as LF does, each line's trailing whitespace and
 * the trailing blank lines are dropped. One pass (a line's trailing blanks are looked at twice at most).
 */
function lineRanges(text: Buffer, budget: Budget): Ranges {
  const out = new Ranges()
  let start = 0
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text[i] : 10
    if (c !== 10 && c !== 13) continue
    let end = i
    while (end > start && isBlank(text[end - 1]!)) end--
    budget.tick(i - start + 1)
    out.push(start, end)
    if (c === 13 && text[i + 1] === 10) i++
    start = i + 1
  }
  while (out.length && out.data[out.length - 1] === out.data[out.length - 2]) out.length -= 2
  return out
}

/** The significant lines of a text, as text. */
export function significantLines(text: Text): string[] {
  const b = bytesOf(text)
  const r = lineRanges(b, UNBOUNDED)
  return Array.from({ length: r.count }, (_, i) => piece(b, r, i).toString('utf8'))
}

/** Line by line, ignoring trailing whitespace, trailing blank lines and CRLF (the default). */
export function lines(expected: Text, actual: Text, budget = UNBOUNDED): CheckResult {
  const eb = bytesOf(expected)
  const ab = bytesOf(actual)
  const e = lineRanges(eb, budget)
  const a = lineRanges(ab, budget)
  const n = Math.min(e.count, a.count)
  for (let i = 0; i < n; i++) {
    budget.tick(e.end(i) - e.start(i) + 1)
    if (!same(eb, e, ab, a, i)) return wa(`line ${i + 1}: expected ${quote(piece(eb, e, i))}, got ${quote(piece(ab, a, i))}`)
  }
  if (a.length < e.length) return wa(`line ${n + 1}: expected ${quote(piece(eb, e, n))}, got end of output`)
  if (e.length < a.length) return wa(`line ${n + 1}: expected end of output, got ${quote(piece(ab, a, n))}`)
  return AC
}

/** Whitespace-separated tokens, in one pass. */
function tokenRanges(text: Buffer, budget: Budget): Ranges {
  const out = new Ranges()
  let i = 0
  while (i < text.length) {
    const from = i
    while (i < text.length && isSpace(text[i]!)) i++
    const start = i
    while (i < text.length && !isSpace(text[i]!)) i++
    if (i > start) out.push(start, i)
    budget.tick(i - from)
  }
  return out
}

const tokenOrEnd = (b: Buffer, r: Ranges, i: number) => (i >= r.count ? 'end of output' : quote(piece(b, r, i)))

/** Whitespace-separated tokens, however they are spaced or broken into lines. */
export function tokens(expected: Text, actual: Text, budget = UNBOUNDED): CheckResult {
  const eb = bytesOf(expected)
  const ab = bytesOf(actual)
  const e = tokenRanges(eb, budget)
  const a = tokenRanges(ab, budget)
  for (let i = 0; i < Math.max(e.count, a.count); i++) {
    if (i < e.count && i < a.count) {
      budget.tick(e.end(i) - e.start(i) + 1)
      if (same(eb, e, ab, a, i)) continue
    }
    return wa(`token ${i + 1}: expected ${tokenOrEnd(eb, e, i)}, got ${tokenOrEnd(ab, a, i)}`)
  }
  return AC
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 48 && c <= 57
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c)
/** Whether b[i, to) is the ASCII word w in any case. */
function wordAt(b: Buffer, i: number, to: number, w: string): boolean {
  if (to - i !== w.length) return false
  for (let k = 0; k < w.length; k++) if (lower(b[i + k]!) !== w.charCodeAt(k)) return false
  return true
}

/** How many '0' a string starts with. */
function zerosAt(s: string): number {
  let n = 0
  while (s.charCodeAt(n) === 48) n++
  return n
}

/**
 * A token as a number: [+-] then digits with an optional point (at least one digit) and an optional
 * exponent, or inf, infinity, nan in any case; null when it is not one. One pass over the token; the
 * conversion itself reads only its first few hundred significant characters.
 */
export function parseNumber(token: Text): number | null {
  const b = bytesOf(token)
  return parseNumberAt(b, 0, b.length)
}

function parseNumberAt(b: Buffer, from: number, to: number): number | null {
  let i = from
  let negative = false
  if (i < to && (b[i] === 43 || b[i] === 45)) negative = b[i++] === 45
  if (wordAt(b, i, to, 'nan')) return Number.NaN
  if (wordAt(b, i, to, 'inf') || wordAt(b, i, to, 'infinity')) return negative ? -Infinity : Infinity
  const digitsFrom = i
  let digits = 0
  while (i < to && isDigit(b[i])) i++, digits++
  if (i < to && b[i] === 46) {
    i++
    while (i < to && isDigit(b[i])) i++, digits++
  }
  if (!digits) return null
  const mantissaEnd = i
  let exponent = 0
  if (i < to && (b[i] === 101 || b[i] === 69)) {
    i++
    let sign = 1
    if (i < to && (b[i] === 43 || b[i] === 45)) sign = b[i++] === 45 ? -1 : 1
    if (!(i < to && isDigit(b[i]))) return null
    // a long exponent is as good as an infinite one: clamp instead of reading it all into a number
    while (i < to && isDigit(b[i])) exponent = Math.min(exponent * 10 + (b[i++]! - 48), 1e6)
    exponent *= sign
  }
  if (i !== to) return null
  // a short token (the usual case) is converted as it is; it has been checked to be a number
  if (to - from <= 64) return Number(b.toString('latin1', from, to))
  // a mantissa longer than doubles can tell apart is cut (its value moved into the exponent), so the
  // conversion stays short whatever the length of the digit run
  const mantissa = b.toString('latin1', digitsFrom, mantissaEnd)
  const point = mantissa.indexOf('.')
  let whole = point === -1 ? mantissa : mantissa.slice(0, point)
  let frac = point === -1 ? '' : mantissa.slice(point + 1)
  whole = whole.slice(zerosAt(whole))
  let shift = 0
  if (whole.length > 800) {
    shift = whole.length - 800
    whole = whole.slice(0, 800)
    frac = ''
  } else if (!whole.length) {
    const zeros = zerosAt(frac)
    if (zeros > 800) {
      shift = -(zeros - 1)
      frac = frac.slice(zeros - 1)
    }
  }
  if (frac.length > 800) frac = frac.slice(0, 800)
  const value = Number(`${whole || '0'}.${frac || '0'}e${exponent + shift}`)
  return negative ? -value : value
}

/** Equal within either tolerance (absolute or relative); NaN only equals NaN, infinities themselves; -0 = 0. */
export function closeEnough(e: number, a: number, abs: number, rel: number): boolean {
  if (Number.isNaN(e) || Number.isNaN(a)) return Number.isNaN(e) && Number.isNaN(a)
  if (!Number.isFinite(e) || !Number.isFinite(a)) return e === a
  const diff = Math.abs(e - a)
  return diff <= abs || diff <= rel * Math.abs(e)
}

/** Tokens; where the expected token is a number, the output's must be a number within abs or rel of it. */
export function float(expected: Text, actual: Text, abs = 1e-6, rel = 1e-6, budget = UNBOUNDED): CheckResult {
  const eb = bytesOf(expected)
  const ab = bytesOf(actual)
  const e = tokenRanges(eb, budget)
  const a = tokenRanges(ab, budget)
  for (let i = 0; i < Math.max(e.count, a.count); i++) {
    if (i >= e.count || i >= a.count) return wa(`token ${i + 1}: expected ${tokenOrEnd(eb, e, i)}, got ${tokenOrEnd(ab, a, i)}`)
    budget.tick(e.end(i) - e.start(i) + a.end(i) - a.start(i))
    const en = parseNumberAt(eb, e.start(i), e.end(i))
    if (en === null) {
      if (!same(eb, e, ab, a, i)) return wa(`token ${i + 1}: expected ${quote(piece(eb, e, i))}, got ${quote(piece(ab, a, i))}`)
      continue
    }
    const an = parseNumberAt(ab, a.start(i), a.end(i))
    if (an === null) return wa(`token ${i + 1}: expected a number near ${quote(piece(eb, e, i))}, got ${quote(piece(ab, a, i))}`)
    if (!closeEnough(en, an, abs, rel)) return wa(`token ${i + 1}: expected ${quote(piece(eb, e, i))}, got ${quote(piece(ab, a, i))} (beyond abs ${abs} and rel ${rel})`)
  }
  return AC
}

/** The significant lines as a multiset: any order, each line as many times as expected. */
export function unordered(expected: Text, actual: Text, budget = UNBOUNDED): CheckResult {
  const eb = bytesOf(expected)
  const ab = bytesOf(actual)
  const e = lineRanges(eb, budget)
  const a = lineRanges(ab, budget)
  const count = new Map<string, number>()
  // latin1 maps each byte to one character: the keys are the bytes themselves
  for (let i = 0; i < e.count; i++) {
    const k = eb.toString('latin1', e.start(i), e.end(i))
    count.set(k, (count.get(k) ?? 0) + 1)
  }
  for (let i = 0; i < a.count; i++) {
    budget.tick(a.end(i) - a.start(i) + 1)
    const k = ab.toString('latin1', a.start(i), a.end(i))
    const n = count.get(k)
    if (!n) return wa(`unexpected line ${quote(piece(ab, a, i))}`)
    count.set(k, n - 1)
  }
  const missing = [...count].find(([, n]) => n > 0)
  return missing ? wa(`missing line ${quote(Buffer.from(missing[0], 'latin1'))}`) : AC
}

/** Judges actual (the program's output, best as the bytes it wrote) against expected; throws JudgeTimeout past budget. */
export function check(spec: BuiltinChecker, expected: Text, actual: Text, budget = UNBOUNDED): CheckResult {
  if (typeof spec === 'object') return float(expected, actual, spec.abs ?? 1e-6, spec.rel ?? 1e-6, budget)
  return { exact, lines, tokens, unordered }[spec](expected, actual, budget)
}
