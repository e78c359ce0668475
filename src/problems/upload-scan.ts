// A JSON problem upload checked while it streams in, so that a body over any of the caps is refused at
// the first byte past the cap, before the whole body is buffered or anything is parsed: JSON.parse,
// the depth walk and zod would otherwise hold the event loop for seconds (600,000 empty tests in 20 MB,
// or 100 MB of anything) before the caps in createProblem could refuse it.
//
// The scanner follows the JSON grammar (linear in the bytes, constant memory, no backtracking; long
// runs of plain string bytes skipped by memchr) and reads keys as JSON.parse does: escapes decoded, so
// "test\u005fcases" is test_cases. It measures each string as the UTF-8 bytes JSON.parse + Buffer.from
// make of it (a surrogate pair 4 bytes, a lone surrogate 3). On valid JSON every figure is exact (a raw
// byte that is not UTF-8 counts one, at most what TextDecoder makes of it), so a body the caps allow is
// never refused; on invalid JSON the scanner may refuse first, with a 4xx all the same. It refuses:
// - more elements in the top-level test_cases than maxTests;
// - a test's input or expected_output longer than testFileBytes, or all of them together longer than
//   totalBytes (the caps createProblem applies again, exactly, after parsing);
// - more than otherBytes of everything else (keys, punctuation, whitespace, numbers, the name, the
//   checker, unknown fields): what holds the event loop in JSON.parse is tokens and structure, and a
//   valid problem has little of either;
// - more than maxValues JSON values, and nesting deeper than MAX_JSON_DEPTH (as parseBoundedJson does);
// - a key JSON.parse would keep only the last of: test_cases twice at the top, input or expected_output
//   twice in a test (the counts would describe a value the parse then drops).
import { AppError } from '../errors.ts'
import { MAX_JSON_DEPTH } from '../json-limits.ts'

export interface UploadScanLimits {
  maxTests: number
  /** Each test's input, and each expected_output, in UTF-8 bytes once decoded. */
  testFileBytes: number
  /** All inputs and expected outputs together, decoded. */
  totalBytes: number
  /** The raw bytes of everything but the inputs' and expected outputs' contents. */
  otherBytes: number
  maxValues: number
}

export interface UploadScanState {
  /** Elements of the top-level test_cases so far. */
  tests: number
  /** Decoded bytes of the tests' inputs and expected outputs so far. */
  dataBytes: number
  /** Raw bytes that are not inside an input or expected_output. */
  otherBytes: number
  values: number
}

export interface UploadScanner {
  /** Feeds the next chunk; throws an AppError (413, or 400 for a repeated key or deep nesting) to refuse the body. */
  push(chunk: Uint8Array): void
  state(): UploadScanState
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const OPEN_ARRAY = 0x5b
const CLOSE_OBJECT = 0x7d
const CLOSE_ARRAY = 0x5d
const U = 0x75

/** The longest raw spelling of a key the scanner looks for: "expected_output" with every character escaped (\uXXXX). */
const KEY_RAW_MAX = 6 * 'expected_output'.length

// what a string being read is
const OTHER = 0 // a value that is not test data
const KEY = 1
const DATA = 2 // a test's input or expected_output

/** A hex digit's value (0 for a byte that is none: the body is not JSON then, and the parse refuses it). */
const hex = (b: number) => (b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : b >= 0x41 && b <= 0x46 ? b - 0x37 : 0)
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

const WANTED = ['test_cases', 'input', 'expected_output'] as const
type Wanted = (typeof WANTED)[number]
const WANTED_BYTES = WANTED.map((k) => Buffer.from(k))

/** The key looked for that raw (a key's bytes between its quotes) spells as JSON.parse reads it, or null. */
function wantedKey(raw: Uint8Array, length: number): Wanted | null {
  if (length > KEY_RAW_MAX) return null
  let escaped = false
  for (let i = 0; i < length; i++) {
    if (raw[i] >= 0x80) return null // the keys looked for are ASCII, however spelt
    if (raw[i] === BACKSLASH) escaped = true
  }
  if (!escaped) {
    next: for (let k = 0; k < WANTED.length; k++) {
      const w = WANTED_BYTES[k]
      if (w.length !== length) continue
      for (let i = 0; i < length; i++) if (w[i] !== raw[i]) continue next
      return WANTED[k]
    }
    return null
  }
  let key: unknown
  try {
    key = JSON.parse(`"${String.fromCharCode(...raw.subarray(0, length))}"`)
  } catch {
    return null // not JSON: the parse refuses the body
  }
  return (WANTED as readonly unknown[]).includes(key) ? (key as Wanted) : null
}

export function uploadScanner(limits: UploadScanLimits): UploadScanner {
  const tooLarge = (message: string, details: Record<string, unknown>) => new AppError('PayloadTooLarge', message, details)
  const invalid = (message: string) => new AppError('InvalidArgument', message, {})

  let depth = 0
  /** isObject[d]: the container at depth d (1 = the top-level value) is an object. */
  const isObject = new Uint8Array(MAX_JSON_DEPTH + 2)
  let keyNext = false // the next string at this depth is a key
  let inScalar = false // inside a number, true, false or null

  let inString = false
  let kind = OTHER
  /** 0 none; 1 after a backslash; 2-5 reading the 4 hex digits of \u. */
  let escape = 0
  let code = 0
  /** The last thing decoded in this string was \uXXXX of a high surrogate (counted as 3 bytes, a lone one's). */
  let afterHigh = false
  let stringBytes = 0 // decoded bytes of the current data string
  /** The raw bytes of a key the scanner may look for (at the top, or in a test), up to KEY_RAW_MAX + 1 of them. */
  const keyRaw = new Uint8Array(KEY_RAW_MAX + 1)
  let keyLength = 0
  let keyCaptured = false

  let topKey: Wanted | null = null // the last key read in the top-level object, if one looked for
  let testKey: Wanted | null = null // the last key read in the current test (an object in test_cases), if one looked for
  let sawTests = false
  let testsDepth = 0 // the depth of the top-level test_cases array while inside it, else 0
  let tests = 0
  let sawInput = false
  let sawOutput = false

  let dataBytes = 0
  let dataRaw = 0 // raw bytes inside data strings
  let raw = 0
  let values = 0

  const valueStarts = () => {
    if (++values > limits.maxValues) throw tooLarge(`the body holds more than ${limits.maxValues} JSON values`, { max_values: limits.maxValues })
    if (testsDepth && depth === testsDepth) {
      if (++tests > limits.maxTests) throw tooLarge(`more than ${limits.maxTests} tests`, { max_tests: limits.maxTests })
      sawInput = sawOutput = false
      testKey = null
    }
  }
  const addData = (n: number) => {
    stringBytes += n
    dataBytes += n
    if (stringBytes > limits.testFileBytes)
      throw tooLarge(`test ${tests}: ${testKey} is larger than ${limits.testFileBytes} bytes`, { test_max_bytes: limits.testFileBytes })
    if (dataBytes > limits.totalBytes) throw tooLarge(`the tests are larger than ${limits.totalBytes} bytes in all`, { total_max_bytes: limits.totalBytes })
  }
  const keyRead = () => {
    const key = wantedKey(keyRaw, keyLength)
    if (depth === 1) {
      topKey = key
      if (key === 'test_cases') {
        if (sawTests) throw invalid('test_cases is given twice (a JSON parser would keep only the last)')
        sawTests = true
      }
    } else if (testsDepth && depth === testsDepth + 1) {
      testKey = key
      if (key === 'input' || key === 'expected_output') {
        if (key === 'input' ? sawInput : sawOutput) throw invalid(`test ${tests}: ${key} is given twice (a JSON parser would keep only the last)`)
        if (key === 'input') sawInput = true
        else sawOutput = true
      }
    }
  }

  return {
    push(chunk) {
      raw += chunk.length
      const n = chunk.length
      // the next quote and backslash at or after where they were last looked for (-1 not yet; n none):
      // a long run of plain string bytes is skipped by Buffer.indexOf (memchr), ~20x the byte loop, and
      // each is searched again only once passed, so the chunk is never rescanned
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
      let nextQuote = -1
      let nextBackslash = -1
      for (let i = 0; i < n; i++) {
        if (inString) {
          if (kind === KEY) {
            const b = bytes[i]
            if (escape === 0 && b === QUOTE) {
              inString = false
              if (keyCaptured) keyRead()
              keyNext = false
            } else {
              if (keyCaptured && keyLength <= KEY_RAW_MAX) keyRaw[keyLength++] = b
              escape = escape === 0 && b === BACKSLASH ? 1 : 0 // a key is only compared: its escapes are decoded once it ends
            }
            continue
          }
          // a value: one tight loop to its closing quote or the chunk's end, counting what it decodes to
          const start = i
          let decoded = 0
          let esc = escape
          let cp = code
          let high = afterHigh
          let run = 0 // plain bytes since the last escape
          for (; i < n; i++) {
            const b = bytes[i]
            if (esc === 0) {
              if (b === QUOTE) break
              if (b === BACKSLASH) {
                esc = 1
                run = 0
              } else if (++run < 32) {
                decoded++
                high = false
              } else {
                // a long plain run (most test data): on to the next quote or backslash at once
                if (nextQuote < i) nextQuote = bytes.indexOf(QUOTE, i) >>> 0
                if (nextBackslash < i) nextBackslash = bytes.indexOf(BACKSLASH, i) >>> 0
                const end = Math.min(nextQuote, nextBackslash, n)
                decoded += end - i
                i = end - 1
                run = 0
                high = false
              }
            } else if (esc === 1) {
              if (b === U) {
                esc = 2
                cp = 0
              } else {
                esc = 0
                decoded++
                high = false
              }
            } else {
              cp = cp * 16 + hex(b)
              if (++esc === 6) {
                esc = 0
                // UTF-8 bytes: a high surrogate then its low one are a 4-byte pair; either alone 3 (U+FFFD)
                if (isLowSurrogate(cp)) decoded += high ? 1 : 3
                else decoded += cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3
                high = isHighSurrogate(cp)
              }
            }
          }
          escape = esc
          code = cp
          afterHigh = high
          if (kind === DATA) {
            dataRaw += i - start
            addData(decoded)
          }
          if (i < n) inString = false // at the closing quote
          continue
        }
        const b = bytes[i]
        switch (b) {
          case 0x20:
          case 0x0a:
          case 0x0d:
          case 0x09:
            inScalar = false
            continue
          case QUOTE:
            inScalar = false
            inString = true
            escape = 0
            if (keyNext) {
              kind = KEY
              // only the keys of the top-level object and of a test matter
              keyCaptured = depth === 1 || (testsDepth > 0 && depth === testsDepth + 1)
              keyLength = 0
              continue
            }
            valueStarts()
            afterHigh = false
            kind = testsDepth && depth === testsDepth + 1 && isObject[depth] && (testKey === 'input' || testKey === 'expected_output') ? DATA : OTHER
            stringBytes = 0
            continue
          case OPEN_OBJECT:
          case OPEN_ARRAY:
            inScalar = false
            valueStarts()
            if (++depth > MAX_JSON_DEPTH) throw invalid(`the body nests deeper than ${MAX_JSON_DEPTH} levels`)
            isObject[depth] = b === OPEN_OBJECT ? 1 : 0
            keyNext = b === OPEN_OBJECT
            if (b === OPEN_ARRAY && depth === 2 && isObject[1] && topKey === 'test_cases') testsDepth = 2
            continue
          case CLOSE_OBJECT:
          case CLOSE_ARRAY:
            inScalar = false
            if (testsDepth && depth === testsDepth) testsDepth = 0
            if (depth > 0) depth--
            keyNext = false
            continue
          case COMMA:
            inScalar = false
            keyNext = depth > 0 && isObject[depth] === 1
            continue
          case COLON:
            inScalar = false
            keyNext = false
            continue
          default:
            if (!inScalar) {
              inScalar = true
              valueStarts()
            }
        }
      }
      const other = raw - dataRaw
      if (other > limits.otherBytes)
        throw tooLarge(`the body holds more than ${limits.otherBytes} bytes besides the tests' inputs and expected outputs`, { other_max_bytes: limits.otherBytes })
    },
    state: () => ({ tests, dataBytes, otherBytes: raw - dataRaw, values }),
  }
}

/** The scanner's caps for a JSON problem upload, and the largest such body (see docs/api/grading.md, problems). */
export function jsonUploadCaps(g: { max_tests: number; test_max_bytes: number; total_max_bytes: number }, sourceMaxBytes: number): UploadScanLimits & { bodyBytes: number } {
  // the most test data a problem can hold: the total cap, or every test's two files full if that is less
  const data = Math.min(g.total_max_bytes, 2 * g.max_tests * g.test_max_bytes)
  // everything else: a checker program's source escaped at worst (\u00XX: 6 bytes a byte), 1 KiB of
  // keys, numbers and pretty-printing per test, 64 KiB for the name, the other fields and slack
  const otherBytes = 64 * 1024 + 6 * sourceMaxBytes + 1024 * g.max_tests
  return {
    maxTests: g.max_tests,
    testFileBytes: g.test_max_bytes,
    totalBytes: g.total_max_bytes,
    otherBytes,
    // per test: the object, input, expected_output, points, time_limit; 1024 for the rest
    maxValues: 1024 + 8 * g.max_tests,
    bodyBytes: data + otherBytes,
  }
}
