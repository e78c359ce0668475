// Counts the elements of a JSON body's top-level "test_cases" array while the body streams in, so an
// upload with more tests than a problem may have is refused after the first bytes past the cap, before
// the whole body is read or parsed (600,000 empty tests in 20 MB would otherwise be parsed and
// validated one by one on the event loop). Linear in the bytes, constant memory, no backtracking.

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN = new Set([0x7b, 0x5b]) // { [
const CLOSE = new Set([0x7d, 0x5d]) // } ]
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

export interface TestCountScanner {
  /** Feeds the next chunk; returns the elements seen so far in test_cases. */
  push(chunk: Uint8Array): number
}

export function testCountScanner(): TestCountScanner {
  let depth = 0
  let inString = false
  let escaped = false
  /** The bytes of the string being read at depth 1 (a key candidate), capped: only "test_cases" matters. */
  let key: number[] | null = null
  let lastKey = ''
  let afterKey = false // a key at depth 1 was closed; waiting for its ':' then its value
  let inTests = false // inside the test_cases array (its elements are at depth 2)
  let elementOpen = false // an element of test_cases has started and not been followed by a comma
  let count = 0
  const WANTED = 'test_cases'

  return {
    push(chunk) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]
        if (inString) {
          if (escaped) escaped = false
          else if (b === BACKSLASH) escaped = true
          else if (b === QUOTE) {
            inString = false
            if (key) {
              lastKey = String.fromCharCode(...key)
              key = null
              afterKey = true
            }
          } else if (key && key.length <= WANTED.length) key.push(b)
          continue
        }
        if (isSpace(b)) continue
        if (inTests && depth === 2 && !elementOpen && b !== COMMA && !CLOSE.has(b)) {
          elementOpen = true
          count++
        }
        if (b === QUOTE) {
          inString = true
          // a string at depth 1 that is not a value is a key
          if (depth === 1 && !afterKey) key = []
          continue
        }
        if (b === COLON) continue
        if (b === COMMA) {
          if (depth === 1) afterKey = false
          if (inTests && depth === 2) elementOpen = false
          continue
        }
        if (OPEN.has(b)) {
          depth++
          if (depth === 2 && afterKey && lastKey === WANTED && b === 0x5b) {
            inTests = true
            elementOpen = false
          }
          continue
        }
        if (CLOSE.has(b)) {
          if (depth === 2 && inTests) inTests = false
          depth--
          if (depth === 1) afterKey = false
          continue
        }
        // a scalar value ends the key it belongs to at the next comma
      }
      return count
    },
  }
}
