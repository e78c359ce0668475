// The streaming checks of a JSON problem upload: exact on every JSON shape and spelling, whatever the
// chunking; blind to brackets, quotes and keys inside strings or nested deeper; and refusing each kind
// of over-size body after the first bytes past its cap, not at its end.
import { describe, expect, it } from 'vitest'
import { AppError } from '../errors.ts'
import { jsonUploadCaps, uploadScanner, type UploadScanLimits } from './upload-scan.ts'

const roomy: UploadScanLimits = { maxTests: 1e9, testFileBytes: 1e12, totalBytes: 1e12, otherBytes: 1e12, maxValues: 1e12 }

const scan = (json: string | Buffer, chunk = 0, limits: Partial<UploadScanLimits> = {}) => {
  const s = uploadScanner({ ...roomy, ...limits })
  const bytes = typeof json === 'string' ? Buffer.from(json) : json
  if (!chunk) s.push(bytes)
  else for (let i = 0; i < bytes.length; i += chunk) s.push(bytes.subarray(i, i + chunk))
  return s.state()
}
const refusal = (f: () => unknown) => {
  try {
    f()
  } catch (err) {
    expect(err).toBeInstanceOf(AppError)
    return err as AppError
  }
  throw new Error('not refused')
}

/** Feeds `head`, then `body` over and over, until the scanner refuses; the bytes it took. */
function refusedAfter(limits: Partial<UploadScanLimits>, head: string, body: string, maxBytes = 200 << 20) {
  const s = uploadScanner({ ...roomy, ...limits })
  const piece = Buffer.from(body.repeat(Math.max(1, Math.floor(65536 / body.length))))
  let fed = head.length
  s.push(Buffer.from(head))
  try {
    while (fed < maxBytes) {
      s.push(piece)
      fed += piece.length
    }
  } catch (err) {
    return { fed, error: err as AppError }
  }
  throw new Error(`not refused after ${fed} bytes`)
}

describe('uploadScanner: the count of test_cases', () => {
  const cases: [string, number][] = [
    ['{"test_cases": []}', 0],
    ['{"test_cases": [{}]}', 1],
    ['{"lang":"C","test_cases":[{"input":"1","expected_output":"[,]"},{"input":"\\"],["}]}', 2],
    ['{"test_cases": [1, 2, 3, "x", null, [4, 5]]}', 6],
    ['{"a": {"test_cases": [1,2,3]}, "test_cases": [{}]}', 1],
    ['{"a": "test_cases", "b": [1,2,3]}', 0],
    ['["test_cases", [1,2,3]]', 0],
    ['{"name": "x", "checker": {"type": "lines"}, "test_cases" : [ {"input": "{[}]"} , {} ] }', 2],
    // a key is read as JSON.parse reads it: any escape, any mix of them
    ['{"test\\u005fcases": [1, 2]}', 2],
    ['{"test_\\u0063ases": [1]}', 1],
    ['{"\\u0074\\u0065\\u0073\\u0074\\u005F\\u0063\\u0061\\u0073\\u0065\\u0073": [{}, {}, {}]}', 3],
    ['{"test\\/cases": [1], "test_cases\\u0000": [1], "test_cases ": [1]}', 0],
    ['  \n{\n"test_cases"\n:\n[\n{}\n,\n{}\n]\n}', 2],
  ]
  it.each(cases)('%s → %i', (json, n) => {
    for (const size of [0, 1, 2, 3, 7]) expect(scan(json, size).tests).toBe(n)
    expect(n).toBe(JSON.parse(json).test_cases?.length ?? 0)
  })
  it('600,000 empty tests in ~20 MB are counted in one linear pass', () => {
    const body = `{"lang":"C","test_cases":[${Array(600_000).fill('{"input":"","expected_output":""}').join(',')}]}`
    expect(scan(body, 64 * 1024).tests).toBe(600_000)
  })
  it('refuses over the count at the first test past it, however the key is spelt', () => {
    for (const key of ['test_cases', 'test\\u005fcases', '\\u0074est_cases']) {
      const { fed, error } = refusedAfter({ maxTests: 20 }, `{"name":"flood","${key}":[`, '{"input":"","expected_output":""},')
      expect(error.code).toBe('PayloadTooLarge')
      expect(error.detail).toBe('more than 20 tests')
      expect(fed).toBeLessThan(200_000) // the first 64 KiB piece holds 1985 tests
    }
  })
  it('refuses a key JSON.parse would keep only the last of (the count would describe the dropped one)', () => {
    for (const json of [
      '{"test_cases": [{}], "test_cases": [{}, {}]}',
      '{"test_cases": [], "test\\u005fcases": []}',
      '{"test_cases": null, "name": "x", "test_cases": [{}]}',
    ]) {
      const e = refusal(() => scan(json))
      expect(e.code).toBe('InvalidArgument')
      expect(e.detail).toMatch(/test_cases is given twice/)
    }
    const e = refusal(() => scan('{"test_cases": [{"input": "", "expected_output": ""}, {"input": "a", "inp\\u0075t": "b"}]}'))
    expect(e.detail).toMatch(/test 2: input is given twice/)
    // the same key in different tests, or deeper, is no repeat
    expect(scan('{"test_cases": [{"input": "a", "x": {"input": 1, "test_cases": []}}, {"input": "b"}], "a": {"test_cases": []}}').tests).toBe(2)
  })
})

/** Every UTF-16 code unit as \\uXXXX (surrogate pairs as two escapes). */
const escapeAll = (text: string) => Array.from({ length: text.length }, (_, k) => `\\u${text.charCodeAt(k).toString(16).padStart(4, '0')}`).join('')

describe('uploadScanner: sizes', () => {
  it('measures inputs and expected outputs as the UTF-8 bytes they decode to (escapes, non-ASCII, surrogate pairs)', () => {
    const texts = ['', 'plain', 'line\nline\n', 'tab\t"quote"\\slash/', 'é ü ß', '€ 中文', '😀 𝄞', '\ud800 lone \udc00 \ud83d\ud83d\ude00', '\u0000\u0001\u001f', 'x'.repeat(100_000)]
    for (const t of texts) {
      const tests = texts.map((u) => ({ input: t, expected_output: u, points: 1 }))
      const json = JSON.stringify({ name: 'n', test_cases: tests })
      // the same text with every character escaped as \uXXXX (what some encoders do)
      const escaped = json.replace(/"input":"((?:[^"\\]|\\.)*)"/g, (_, s: string) => `"input":"${escapeAll(JSON.parse(`"${s}"`) as string)}"`)
      const expected = tests.reduce((sum, x) => sum + Buffer.byteLength(x.input) + Buffer.byteLength(x.expected_output), 0)
      for (const body of [json, escaped]) {
        expect(JSON.parse(body)).toEqual(JSON.parse(json))
        for (const size of [0, 1, 5, 4096]) expect(scan(body, size).dataBytes).toBe(expected)
      }
    }
  })
  it('agrees with JSON.parse + Buffer.byteLength on random texts (long plain runs, escapes, non-ASCII) in random chunks', () => {
    let seed = 42
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n)
    const pieces = ['a', 'quote"', 'back\\slash', '\n', '\t', '\u0001', 'é', '中', '😀', '\ud800', '\udfff', '\ud83d', '\ude00', '/', ' ']
    for (let round = 0; round < 40; round++) {
      const text = () => Array.from({ length: rand(30) }, () => (rand(4) === 0 ? 'p'.repeat(rand(200)) : pieces[rand(pieces.length)])).join('')
      const tests = Array.from({ length: 1 + rand(5) }, () => ({ input: text(), expected_output: text(), ...(rand(2) ? { points: 1 } : {}) }))
      const json = JSON.stringify({ name: text(), test_cases: tests, note: text() }, null, rand(2) ? 2 : undefined)
      const body = Buffer.from(rand(2) ? json : json.replace(/"input":"((?:[^"\\]|\\.)*)"/g, (_, x: string) => `"input":"${escapeAll(JSON.parse(`"${x}"`) as string)}"`))
      const expected = tests.reduce((sum, x) => sum + Buffer.byteLength(x.input) + Buffer.byteLength(x.expected_output), 0)
      const s = uploadScanner(roomy)
      for (let i = 0; i < body.length; ) {
        const size = 1 + rand(300)
        s.push(new Uint8Array(body.subarray(i, i + size))) // not a Buffer, as a web stream gives it
        i += size
      }
      expect(s.state(), json.slice(0, 200)).toMatchObject({ tests: tests.length, dataBytes: expected })
    }
  })
  it('only a test\'s input and expected_output are test data; everything else is counted as other bytes', () => {
    const json = '{"name": "abc", "x": "input", "test_cases": [{"input": "12345", "expected_output": "\\n", "points": "2", "input2": "zzzz"}], "input": "qq"}'
    const s = scan(json)
    expect(s.dataBytes).toBe(6)
    expect(s.otherBytes).toBe(Buffer.byteLength(json) - 5 - 2) // the 5 bytes of "12345", the 2 of "\n"
  })
  it('refuses a test file past testFileBytes within a chunk of the cap, in any spelling of its key', () => {
    for (const key of ['input', 'expected_output', 'inp\\u0075t']) {
      const { fed, error } = refusedAfter({ testFileBytes: 1 << 20 }, `{"name":"big","test_cases":[{"${key}":"`, 'a')
      expect(error.code).toBe('PayloadTooLarge')
      expect(error.detail).toBe(`test 1: ${JSON.parse(`"${key}"`)} is larger than 1048576 bytes`)
      expect(fed).toBeLessThan((1 << 20) + 70_000)
    }
    // escapes count as what they decode to: 2 MiB of "\n" is 1 MiB of newlines, refused just past it
    const { fed, error } = refusedAfter({ testFileBytes: 1 << 20 }, '{"test_cases":[{"input":"', '\\n')
    expect(error.detail).toMatch(/test 1: input is larger than 1048576 bytes/)
    expect(fed).toBeLessThan((2 << 20) + 70_000)
    // exactly at the cap is allowed
    expect(scan(JSON.stringify({ test_cases: [{ input: 'é'.repeat(512), expected_output: '' }] }), 7, { testFileBytes: 1024 }).dataBytes).toBe(1024)
    expect(refusal(() => scan(JSON.stringify({ test_cases: [{ input: 'é'.repeat(512) + 'x', expected_output: '' }] }), 7, { testFileBytes: 1024 })).detail).toMatch(/larger than 1024/)
  })
  it('refuses tests past totalBytes in all, at the test that passes it', () => {
    const test = `{"input":"${'a'.repeat(60_000)}","expected_output":"${'b'.repeat(60_000)}"},`
    const { fed, error } = refusedAfter({ testFileBytes: 65536, totalBytes: 1 << 20 }, '{"name":"many","test_cases":[', test)
    expect(error.detail).toBe('the tests are larger than 1048576 bytes in all')
    expect(fed).toBeLessThan((1 << 20) + 200_000)
  })
  it('refuses more than otherBytes of anything else: a giant string elsewhere, whitespace, many small values', () => {
    for (const [head, body] of [
      ['{"name":"', 'n'],
      ['{"test_cases":[{"input":"","expected_output":"","junk":"', 'j'],
      ['{"pad":[', '"a123456789",'],
      ['{', ' \n\t'],
      ['{"test_cases":[{"points":', '1'],
    ]) {
      const { fed, error } = refusedAfter({ otherBytes: 1 << 20 }, head, body)
      expect(error.detail, head).toBe("the body holds more than 1048576 bytes besides the tests' inputs and expected outputs")
      expect(fed).toBeLessThan((1 << 20) + 70_000)
    }
  })
  it('refuses more than maxValues values, and nesting deeper than parseBoundedJson allows', () => {
    expect(refusedAfter({ maxValues: 1000 }, '{"junk":[', '0,').error.detail).toBe('the body holds more than 1000 JSON values')
    expect(refusedAfter({ maxValues: 1000 }, '{"junk":[', '{},').fed).toBeLessThan(70_000)
    const deep = refusedAfter({}, '', '[')
    expect(deep.error.code).toBe('InvalidArgument')
    expect(deep.error.detail).toBe('the body nests deeper than 32 levels')
    expect(scan('['.repeat(32) + ']'.repeat(32)).values).toBe(32)
  })
  it('the caps for a configuration: the largest valid problem fits, with its checker escaped at worst', () => {
    const g = { max_tests: 3, test_max_bytes: 1000, total_max_bytes: 5000 }
    const caps = jsonUploadCaps(g, 2000)
    expect(caps.bodyBytes).toBe(Math.min(5000, 6000) + caps.otherBytes)
    const tests = [{ input: 'a'.repeat(1000), expected_output: 'b'.repeat(1000) }, { input: 'c'.repeat(1000), expected_output: 'd'.repeat(1000) }, { input: 'e'.repeat(1000), expected_output: '', points: 2, time_limit: 1.5 }]
    const source = '\u0001'.repeat(2000) // 12,000 bytes once escaped
    const body = JSON.stringify({ name: 'n'.repeat(200), test_cases: tests, checker: { type: 'program', lang: 'PYTHON3', source }, time_limit: 2, memory_limit: 65536, client_secret: 's'.repeat(40) }, null, 2)
    expect(Buffer.byteLength(body)).toBeLessThan(caps.bodyBytes)
    expect(scan(body, 100, caps)).toMatchObject({ tests: 3, dataBytes: 5000 })
  })
})
