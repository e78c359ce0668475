// The streaming count of test_cases: exact on every JSON shape, whatever the chunking, and blind to
// brackets, quotes and keys inside strings or nested deeper.
import { describe, expect, it } from 'vitest'
import { testCountScanner } from './test-count-scan.ts'

const countOf = (json: string, chunk = 0) => {
  const s = testCountScanner()
  const bytes = Buffer.from(json)
  let n = 0
  if (!chunk) return s.push(bytes)
  for (let i = 0; i < bytes.length; i += chunk) n = s.push(bytes.subarray(i, i + chunk))
  return n
}

describe('testCountScanner', () => {
  const cases: [string, number][] = [
    ['{"test_cases": []}', 0],
    ['{"test_cases": [{}]}', 1],
    ['{"lang":"C","test_cases":[{"input":"1","expected_output":"[,]"},{"input":"\\"],["}]}', 2],
    ['{"test_cases": [1, 2, 3, "x", null, [4, 5]]}', 6],
    ['{"a": {"test_cases": [1,2,3]}, "test_cases": [{}]}', 1],
    ['{"a": "test_cases", "b": [1,2,3]}', 0],
    ['{"name": "x", "checker": {"type": "lines"}, "test_cases" : [ {"input": "{[}]"} , {} ] }', 2],
    ['{"test_\\u0063ases": [1]}', 0], // escaped key: not counted here (JSON.parse's count, checked after, still applies)
    ['  \n{\n"test_cases"\n:\n[\n{}\n,\n{}\n]\n}', 2],
  ]
  it.each(cases)('%s → %i', (json, n) => {
    expect(countOf(json)).toBe(n)
    for (const size of [1, 2, 3, 7]) expect(countOf(json, size)).toBe(n)
    if (n) expect(n).toBe(JSON.parse(json).test_cases?.length)
  })
  it('600,000 empty tests in ~20 MB are counted in one linear pass', () => {
    const body = `{"lang":"C","test_cases":[${Array(600_000).fill('{"input":"","expected_output":""}').join(',')}]}`
    expect(countOf(body, 64 * 1024)).toBe(600_000)
  })
})
