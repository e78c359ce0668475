// The Kattis default output validator, table-driven: each flag, the float rules (strtod's syntax,
// inf/nan as words, hex), whitespace, and problemtools' messages. src/e2e/problem-packages.e2e.test.ts
// also runs problemtools' own validator (from its source package) on random files against this one.
import { describe, expect, test } from 'vitest'
import { Budget, JudgeTimeout } from './checkers.ts'
import { defaultValidator, parseValidatorFlags, strtodToken } from './default-validator.ts'

const judge = (ans: string, out: string, flags = '') => defaultValidator(Buffer.from(ans), Buffer.from(out), parseValidatorFlags(flags.split(/\s+/).filter(Boolean)))
const ok = (ans: string, out: string, flags = '') => judge(ans, out, flags).accepted

describe('no flags: tokens, any whitespace, any case', () => {
  test.each([
    ['1 2 3\n', '1\n2\n3', true],
    ['1 2 3', '  1\t2\r\n3  \n\n', true],
    ['Hello World', 'hello WORLD', true], // case-insensitive by default
    ['1 2 3', '1 2', false],
    ['1 2', '1 2 3', false], // trailing output
    ['', '   \n', true],
    ['', '', true],
    ['', 'x', false],
    ['1.0', '1', false], // no tolerance: floats are words
    ['1.0', '1.00', false],
    ['abc', 'abd', false],
    ['é', 'É', false], // ASCII case only
    ['a\u00a0b', 'a b', false], // U+00A0 is no whitespace
    ['x\u000by', 'x y', true], // \v is
  ])('%j vs %j → %s', (a, o, r) => expect(ok(a, o)).toBe(r))
})

describe('case_sensitive', () => {
  test.each([
    ['Hello', 'Hello', true],
    ['Hello', 'hello', false],
    ['YES', 'yes', false],
  ])('%j vs %j → %s', (a, o, r) => expect(ok(a, o, 'case_sensitive')).toBe(r))
})

describe('space_change_sensitive', () => {
  test.each([
    ['1 2\n', '1 2\n', true],
    ['1 2\n', '1  2\n', false],
    ['1 2\n', '1\t2\n', false],
    ['1 2\n', '1 2', false], // the final newline is the judge's: it must be there
    ['1 2\n', '1 2\n\n', false], // and nothing more
    ['1 2\n', ' 1 2\n', false],
    ['1 2', '1 2', true],
    ['a\r\nb\r\n', 'a\nb\n', false],
    ['HELLO\n', 'hello\n', true], // still case-insensitive
  ])('%j vs %j → %s', (a, o, r) => expect(ok(a, o, 'space_change_sensitive')).toBe(r))
})

describe('float tolerances', () => {
  test.each([
    // [answer, output, flags, accepted]
    ['0.1', '0.1000001', 'float_absolute_tolerance 1e-6', true],
    ['0.1', '0.100002', 'float_absolute_tolerance 1e-6', false],
    ['1000000', '1000000.5', 'float_relative_tolerance 1e-6', true],
    ['1000000', '1000002', 'float_relative_tolerance 1e-6', false],
    ['1000000', '1000002', 'float_absolute_tolerance 1e-6', false],
    ['1000000', '1000002', 'float_absolute_tolerance 1e-6 float_relative_tolerance 1e-5', true], // either
    ['1', '1.0001', 'float_tolerance 1e-3', true], // both at once
    ['0', '0.0001', 'float_tolerance 1e-3', true], // abs where rel cannot help
    ['0', '0.01', 'float_tolerance 1e-3', false],
    ['200', '2.0e2', 'float_tolerance 1e-9', true], // any float formatting
    ['0.0314', '3.14000000e-2', 'float_tolerance 1e-9', true],
    ['200', '2.0e2', '', false], // only with a tolerance
    ['16', '0x10', 'float_tolerance 1e-9', true], // strtod reads hex
    ['0.25', '0x1p-2', 'float_tolerance 1e-9', true],
    ['1', 'inf', 'float_tolerance 1e9', false], // inf is no float: "Expected float"
    ['inf', 'INF', 'float_tolerance 1e-6', true], // judge's inf is a word: compared as text
    ['nan', 'NaN', 'float_tolerance 1e-6', true],
    ['nan', '0', 'float_tolerance 1e-6', false],
    ['1e400', '1E400', 'float_tolerance 1e-6', true], // overflow: a word
    ['1', 'one', 'float_tolerance 1', false],
    ['yes 1.5', 'YES 1.45', 'float_absolute_tolerance 0.1', true], // words still case-insensitive
    ['yes 1.5', 'YES 1.45', 'float_absolute_tolerance 0.1 case_sensitive', false],
    ['1.5', '1.4', 'float_absolute_tolerance 0.1', false], // 0.10000000000000009: doubles, as problemtools computes,
    ['1.5', '1.6', 'float_absolute_tolerance 0.1 float_absolute_tolerance 0.01', false], // the last one given counts
    ['1', '1.', 'float_tolerance 0', true],
    ['1', '.1e1', 'float_tolerance 0', true],
    ['1', '+1', 'float_tolerance 0', true],
    ['1', '1e', 'float_tolerance 1', false], // not all of it is a number
    ['-0', '0', 'float_tolerance 0', true],
  ])('%j vs %j (%s) → %s', (a, o, f, r) => expect(ok(a, o, f)).toBe(r))
})

describe('strtod as problemtools reads a float', () => {
  test.each([
    ['1', 1], ['-1.5', -1.5], ['+.5', 0.5], ['1.', 1], ['1e3', 1000], ['1E-3', 0.001], ['0x1A', 26], ['0X1.8P1', 3], ['-0x.8p0', -0.5], ['1e-400', 0],
    ['inf', null], ['-infinity', null], ['nan', null], ['1e400', null], ['x', null], ['1e', null], ['.', null], ['0x', null], ['0x1p', null], ['1.2.3', null], ['--1', null], ['1x', null], ['e5', null], ['', null],
  ])('%j → %s', (t, n) => expect(strtodToken(Buffer.from(t))).toBe(n))
  test('a token is read up to a NUL byte, as C reads it', () => expect(strtodToken(Buffer.from('12\u0000x'))).toBe(12))
})

describe("problemtools' messages", () => {
  test.each([
    ['1 2', '1 3', '', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nString tokens mismatch\nJudge: "2"\nUser: "3"'],
    ['1\n2\n', '1\n\n3\n', '', 'Wrong answer on line 3 of output (corresponding to line 2 in answer file)\nString tokens mismatch\nJudge: "2"\nUser: "3"'],
    ['1', '', '', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nUser EOF while judge had more output; user output was empty.\n(Next judge token: 1)'],
    ['1', '  ', '', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nUser EOF while judge had more output; user output contained only whitespace.\n(Next judge token: 1)'],
    ['1 2', '1', '', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nUser EOF while judge had more output\n(Next judge token: 2)'],
    ['1', '1 2', '', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nTrailing output:\n2'],
    ['1 2', '1  2', 'space_change_sensitive', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nSpace change error: judge out of space, got 32 from user'],
    ['1\n', '1', 'space_change_sensitive', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nSpace change error: got -1 expected 10'],
    ['1.5', 'x', 'float_tolerance 0.1', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nExpected float, got: x'],
    ['1.5', '1.7', 'float_tolerance 0.1', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nToo large difference.\n Judge: 1.5\n User:  1.7\n Absolute error: 2.000000e-01 (abs tolerance 1.000000e-01)\n Relative error: 1.333333e-01 (rel tolerance 1.000000e-01)'],
    ['0', '1', 'float_absolute_tolerance 0.5', 'Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nToo large difference.\n Judge: 0\n User:  1\n Absolute error: 1.000000e+00 (abs tolerance 5.000000e-01)\n Relative error: undefined, judge value is 0 (rel tolerance -1.000000e+00)'],
    ['a'.repeat(50) + 'X' + 'b'.repeat(50), 'a'.repeat(50) + 'Y' + 'b'.repeat(50), '', `Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nString tokens mismatch\nJudge: "${'a'.repeat(15)}...X${'b'.repeat(14)}..."\nUser: "${'a'.repeat(15)}...Y${'b'.repeat(14)}..."`],
  ])('%j vs %j (%s)', (a, o, f, msg) => expect(judge(a, o, f)).toEqual({ accepted: false, message: msg }))
})

describe('flags', () => {
  test('unknown flags and tolerances without a finite number are refused, as problemtools refuses them', () => {
    expect(() => parseValidatorFlags(['ignore_case'])).toThrow(/unknown flag "ignore_case"/)
    expect(() => parseValidatorFlags(['float_tolerance'])).toThrow(/needs a finite number/)
    expect(() => parseValidatorFlags(['float_tolerance', 'inf'])).toThrow(/needs a finite number/)
    expect(() => parseValidatorFlags(['float_tolerance', '1e-6x'])).toThrow(/needs a finite number/)
    expect(parseValidatorFlags(['float_tolerance', '1e-6'])).toEqual({ caseSensitive: false, spaceChangeSensitive: false, absTol: 1e-6, relTol: 1e-6 })
  })
})

describe('hostile output', () => {
  test('megabytes of spaces, of one token, of digits: linear, within a budget', () => {
    const MB = 1 << 20
    const t0 = Date.now()
    expect(ok('x', ' '.repeat(MB) + 'x')).toBe(true)
    expect(ok('1', '1'.repeat(MB), 'float_tolerance 1e-6')).toBe(false)
    expect(ok('a', 'a'.repeat(MB))).toBe(false)
    expect(Date.now() - t0).toBeLessThan(5000)
    const big = Buffer.from('1 '.repeat(MB))
    expect(() => defaultValidator(big, big, parseValidatorFlags([]), new Budget(Date.now() - 1))).toThrow(JudgeTimeout)
  })
})
