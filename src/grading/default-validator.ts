// The Kattis/ICPC problem format's default output validator, with its flags (case_sensitive,
// space_change_sensitive, float_relative_tolerance, float_absolute_tolerance, float_tolerance): the
// same answer as problemtools' default validator (support/default_validator) on the same files, read
// from its behaviour, written here as one pass over bytes with a Budget (no regular expression runs
// over the team's output). Its rules, where they differ from the `tokens`/`float` checkers:
// - whitespace is C's isspace (space, \t \n \v \f \r); tokens compare case-insensitively (ASCII)
//   unless case_sensitive; a token compares only up to a NUL byte, as C strings do;
// - a token is a float only when strtod reads all of it (decimal or hex, e.g. 0x1p-2) as a finite
//   number: inf and nan are words; only with a tolerance given, and only where the judge's token is
//   a float, are numbers compared by value (|d| <= abs or |d| <= rel·|judge|);
// - space_change_sensitive: every whitespace character must be the judge's, trailing ones too.
import { Budget, JudgeTimeout } from './budget.ts'

export const DEFAULT_VALIDATOR_FLAGS = ['case_sensitive', 'space_change_sensitive', 'float_relative_tolerance', 'float_absolute_tolerance', 'float_tolerance'] as const

export interface DefaultValidatorOptions {
  caseSensitive: boolean
  spaceChangeSensitive: boolean
  /** -1: not given (as problemtools keeps it). */
  absTol: number
  relTol: number
}

/** Flags as problem.yaml's validator_flags gives them (split on whitespace) → options; throws on what problemtools' validator would refuse (a judge error). */
export function parseValidatorFlags(flags: string[]): DefaultValidatorOptions {
  const o: DefaultValidatorOptions = { caseSensitive: false, spaceChangeSensitive: false, absTol: -1, relTol: -1 }
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]
    if (f === 'case_sensitive') o.caseSensitive = true
    else if (f === 'space_change_sensitive') o.spaceChangeSensitive = true
    else if (f === 'float_absolute_tolerance' || f === 'float_relative_tolerance' || f === 'float_tolerance') {
      const v = i + 1 < flags.length ? strtodToken(Buffer.from(flags[i + 1])) : null
      if (v === null) throw new Error(`${f} needs a finite number after it`)
      if (f !== 'float_relative_tolerance') o.absTol = v
      if (f !== 'float_absolute_tolerance') o.relTol = v
      i++
    } else throw new Error(`unknown flag ${JSON.stringify(f)} (the default validator takes ${DEFAULT_VALIDATOR_FLAGS.join(', ')})`)
  }
  return o
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13)
const isDigit = (c: number) => c >= 48 && c <= 57
const hexValue = (c: number) => (isDigit(c) ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1)

/** The bytes of a token up to its first NUL (C's view of it). */
function cString(b: Buffer): Buffer {
  const nul = b.indexOf(0)
  return nul === -1 ? b : b.subarray(0, nul)
}

/**
 * sscanf(s, "%lf%10s") == 1 and finite, as problemtools' isfloat: the whole token is a number strtod
 * reads (decimal with optional exponent, or hex with optional binary exponent); null otherwise.
 */
export function strtodToken(token: Buffer): number | null {
  const b = cString(token)
  let i = 0
  let negative = false
  if (b[i] === 43 || b[i] === 45) negative = b[i++] === 45
  let value: number
  if (b[i] === 48 && (b[i + 1] === 120 || b[i + 1] === 88)) {
    // hex: digits [. digits] [p [+-] digits]
    i += 2
    let mantissa = 0
    let digits = 0
    let scale = 0
    while (i < b.length && hexValue(b[i]!) >= 0) (mantissa = mantissa * 16 + hexValue(b[i++]!)), digits++
    if (b[i] === 46) {
      i++
      while (i < b.length && hexValue(b[i]!) >= 0) (mantissa = mantissa * 16 + hexValue(b[i++]!)), digits++, (scale -= 4)
    }
    if (!digits) return null
    let exponent = 0
    if (b[i] === 112 || b[i] === 80) {
      i++
      let sign = 1
      if (b[i] === 43 || b[i] === 45) sign = b[i++] === 45 ? -1 : 1
      if (!isDigit(b[i] ?? -1)) return null
      while (i < b.length && isDigit(b[i]!)) exponent = Math.min(exponent * 10 + (b[i++]! - 48), 1e6)
      exponent *= sign
    }
    if (i !== b.length) return null
    value = mantissa * 2 ** (scale + exponent)
    if (!Number.isFinite(value) && mantissa !== 0) return null
    if (Number.isNaN(value)) value = 0
  } else {
    const from = i
    let digits = 0
    while (i < b.length && isDigit(b[i]!)) i++, digits++
    if (b[i] === 46) {
      i++
      while (i < b.length && isDigit(b[i]!)) i++, digits++
    }
    if (!digits) return null
    if (b[i] === 101 || b[i] === 69) {
      i++
      if (b[i] === 43 || b[i] === 45) i++
      if (!isDigit(b[i] ?? -1)) return null
      while (i < b.length && isDigit(b[i]!)) i++
    }
    if (i !== b.length) return null
    // JavaScript's conversion rounds correctly, as glibc's strtod does
    value = Number(b.toString('latin1', from, i))
  }
  if (!Number.isFinite(value)) return null
  return negative ? -value : value
}

const lowerByte = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c)

function sameToken(judge: Buffer, team: Buffer, caseSensitive: boolean): boolean {
  const a = cString(judge)
  const b = cString(team)
  if (a.length !== b.length) return false
  if (caseSensitive) return a.equals(b)
  for (let k = 0; k < a.length; k++) if (lowerByte(a[k]!) !== lowerByte(b[k]!)) return false
  return true
}

/** problemtools' truncate: at most limit bytes (+5 of slack), not cutting a UTF-8 character, then "...". */
function truncate(b: Buffer, limit = 30): Buffer {
  if (b.length <= limit + 5) return b
  let cut = limit
  while (cut < b.length && cut < limit + 4 && (b[cut]! & 0xc0) === 0x80) cut++
  return Buffer.concat([b.subarray(0, cut), Buffer.from('...')])
}

function truncatePair(a: Buffer, b: Buffer): [string, string] {
  let d = 0
  while (d < a.length && d < b.length && a[d] === b[d]) d++
  const prefix = truncate(a.subarray(0, d), 15)
  return [Buffer.concat([prefix, truncate(a.subarray(d), 15)]).toString('utf8'), Buffer.concat([prefix, truncate(b.subarray(d), 15)]).toString('utf8')]
}

/** C's %le: 6 decimals, an exponent of at least two digits. */
function le(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf'
  const [m, e] = x.toExponential(6).split('e')
  const n = Number(e)
  return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`
}

export interface ValidatorVerdict {
  /** 42 accepted, 43 wrong answer (problemtools' exit codes). */
  accepted: boolean
  /** judgemessage.txt: why not, as problemtools' validator words it. */
  message: string
}

class Reader {
  pos = 0
  line = 1
  constructor(readonly b: Buffer) {}
  peek(): number {
    return this.pos < this.b.length ? this.b[this.pos]! : -1
  }
  get(): number {
    return this.pos < this.b.length ? this.b[this.pos++]! : -1
  }
  /** The next whitespace-separated token (whitespace before it skipped), or null at the end. */
  token(budget: Budget): Buffer | null {
    while (this.pos < this.b.length && isSpace(this.b[this.pos]!)) {
      if (this.b[this.pos] === 10) this.line++
      this.pos++
    }
    const start = this.pos
    while (this.pos < this.b.length && !isSpace(this.b[this.pos]!)) this.pos++
    budget.tick(this.pos - start + 1)
    return this.pos > start ? this.b.subarray(start, this.pos) : null
  }
}

const UNBOUNDED = new Budget(Infinity)

/** Judges the team's output against the judge's answer as problemtools' default validator does; throws JudgeTimeout past budget. */
export function defaultValidator(judgeAnswer: Uint8Array, teamOutput: Uint8Array, opts: DefaultValidatorOptions, budget: Budget = UNBOUNDED): ValidatorVerdict {
  const toBuf = (u: Uint8Array) => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength))
  const judge = new Reader(toBuf(judgeAnswer))
  const team = new Reader(toBuf(teamOutput))
  const useFloats = opts.absTol >= 0 || opts.relTol >= 0
  const wa = (msg: string): ValidatorVerdict => ({ accepted: false, message: `Wrong answer on line ${team.line} of output (corresponding to line ${judge.line} in answer file)\n${msg}` })
  // stdin_pos of problemtools: what of the team's output has been read (whitespace included)
  for (let token = 0; ; token++) {
    while (isSpace(judge.peek())) {
      budget.tick()
      const c = judge.get()
      if (opts.spaceChangeSensitive) {
        const d = team.get()
        if (c !== d) return wa(`Space change error: got ${d} expected ${c}`)
        if (d === 10) team.line++
      }
      if (c === 10) judge.line++
    }
    while (isSpace(team.peek())) {
      budget.tick()
      const d = team.get()
      if (opts.spaceChangeSensitive) return wa(`Space change error: judge out of space, got ${d} from user`)
      if (d === 10) team.line++
    }
    const j = judge.token(budget)
    if (!j) break
    const t = team.token(budget)
    if (!t) {
      const next = truncate(j).toString('utf8')
      if (token > 0) return wa(`User EOF while judge had more output\n(Next judge token: ${next})`)
      const what = team.pos === 0 ? 'user output was empty' : 'user output contained only whitespace'
      return wa(`User EOF while judge had more output; ${what}.\n(Next judge token: ${next})`)
    }
    const jv = useFloats ? strtodToken(j) : null
    if (jv !== null) {
      const tv = strtodToken(t)
      if (tv === null) return wa(`Expected float, got: ${truncate(t).toString('utf8')}`)
      const diff = Math.abs(jv - tv)
      if (!(diff <= opts.absTol) && !(diff <= opts.relTol * Math.abs(jv))) {
        const rel = jv === 0 ? `undefined, judge value is 0 (rel tolerance ${le(opts.relTol)})` : `${le(diff / Math.abs(jv))} (rel tolerance ${le(opts.relTol)})`
        return wa(`Too large difference.\n Judge: ${truncate(j).toString('utf8')}\n User:  ${truncate(t).toString('utf8')}\n Absolute error: ${le(diff)} (abs tolerance ${le(opts.absTol)})\n Relative error: ${rel}`)
      }
    } else if (!sameToken(j, t, opts.caseSensitive)) {
      const [jt, tt] = truncatePair(j, t)
      return wa(`String tokens mismatch\nJudge: "${jt}"\nUser: "${tt}"`)
    }
  }
  const trailing = team.token(budget)
  if (trailing) return wa(`Trailing output:\n${truncate(trailing).toString('utf8')}`)
  return { accepted: true, message: '' }
}

export { JudgeTimeout }
