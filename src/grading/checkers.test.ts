import { describe, expect, test } from 'vitest'
import { check, closeEnough, significantLines } from './checkers.ts'

describe('exact', () => {
  test.each([
    ['1\n', '1\n', true],
    ['1\n', '1', false], // missing final newline
    ['1\n', '1\r\n', false],
    ['1\n', '1 \n', false],
    ['', '', true],
    ['', '\n', false],
  ])('%j vs %j → %s', (e, a, ok) => expect(check('exact', e, a).ok).toBe(ok))
  test('says where it differs', () => expect(check('exact', 'abc', 'abd').message).toMatch(/byte 2/))
})

describe('lines (the default)', () => {
  test.each([
    ['1\n2\n', '1\n2', true], // missing final newline
    ['1\n2\n', '1\r\n2\r\n', true], // CRLF
    ['1\n2\n', '1  \n2\t\n', true], // trailing spaces
    ['1\n2\n', '1\n2\n\n\n', true], // trailing blank lines
    ['1\n\n2\n', '1\n2\n', false], // an inner blank line counts
    ['1 2\n', '1  2\n', false], // inner spacing counts
    [' 1\n', '1\n', false], // leading spacing counts
    ['', '\n\n', true], // empty vs blank lines
    ['', 'x', false],
  ])('%j vs %j → %s', (e, a, ok) => expect(check('lines', e, a).ok).toBe(ok))
  test('names the line, and the end of output', () => {
    expect(check('lines', 'a\nb\n', 'a\nc\n').message).toBe('line 2: expected "b", got "c"')
    expect(check('lines', 'a\nb\n', 'a\n').message).toBe('line 2: expected "b", got end of output')
    expect(check('lines', 'a\n', 'a\nb\n').message).toBe('line 2: expected end of output, got "b"')
  })
  test('a huge output is compared without trouble and the message stays short', () => {
    const big = 'x'.repeat(1 << 20) + '\n'
    expect(check('lines', big, big).ok).toBe(true)
    expect(check('lines', big, big.replace(/x$/m, 'y')).message.length).toBeLessThan(120)
  })
  test('significantLines', () => expect(significantLines('a \r\nb\t\r\n\r\n')).toEqual(['a', 'b']))
})

describe('tokens', () => {
  test.each([
    ['1 2 3\n', '1\n2\n3', true],
    ['1 2 3', '  1   2 3  \n\n', true],
    ['1 2 3', '1 2', false],
    ['1 2', '1 2 3', false],
    ['', '   \n', true],
    ['1.0', '1', false], // tokens compare as text
  ])('%j vs %j → %s', (e, a, ok) => expect(check('tokens', e, a).ok).toBe(ok))
})

describe('float', () => {
  const f = (abs?: number, rel?: number) => ({ type: 'float' as const, abs, rel })
  test.each([
    ['0.1', '0.1000001', f(1e-6), true], // 1e-7 away
    ['0.1', '0.100002', f(1e-6, 0), false],
    ['1000000', '1000000.5', f(1e-9, 1e-6), true], // relative
    ['1000000', '1000002', f(1e-9, 1e-6), false],
    ['0', '-0', f(), true], // -0
    ['-0.0', '0.000', f(), true],
    ['nan', 'NaN', f(), true],
    ['nan', '0', f(), false],
    ['1', 'nan', f(), false],
    ['inf', 'Infinity', f(), true],
    ['-inf', 'inf', f(), false],
    ['inf', '1e308', f(), false],
    ['1e-7', '0', f(1e-6), true],
    ['answer 3.14159', 'answer 3.141592', f(1e-5), true], // words compare exactly
    ['answer 3.14', 'Answer 3.14', f(), false],
    ['1 2', '1', f(), false],
    ['1', 'x', f(), false],
    ['', '', f(), true],
  ])('%j vs %j (%j) → %s', (e, a, spec, ok) => expect(check(spec, e, a).ok).toBe(ok))
  test('closeEnough', () => {
    expect(closeEnough(1, 1 + 1e-7, 1e-6, 0)).toBe(true)
    expect(closeEnough(Number.NaN, Number.NaN, 0, 0)).toBe(true)
    expect(closeEnough(Infinity, Infinity, 0, 0)).toBe(true)
  })
})

describe('unordered', () => {
  test.each([
    ['a\nb\nc\n', 'c\na\nb', true],
    ['a\na\nb\n', 'a\nb\na\n', true],
    ['a\na\nb\n', 'a\nb\nb\n', false], // a multiset: counts matter
    ['a\nb\n', 'a\n', false],
    ['a\n', 'a\r\n\n', true],
  ])('%j vs %j → %s', (e, a, ok) => expect(check('unordered', e, a).ok).toBe(ok))
  test('names what is missing or unexpected', () => {
    expect(check('unordered', 'a\nb\n', 'a\n').message).toBe('missing line "b"')
    expect(check('unordered', 'a\n', 'a\nz\n').message).toBe('unexpected line "z"')
  })
})
