import { execFileSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { Budget, check, closeEnough, JudgeTimeout, parseNumber, significantLines } from './checkers.ts'

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
  test('compares the bytes written: FE is not FF, nor the U+FFFD both would decode to', () => {
    expect(check('exact', Buffer.from([0xff]), Buffer.from([0xfe])).ok).toBe(false)
    expect(check('exact', '\uFFFD', Buffer.from([0xfe])).ok).toBe(false)
    expect(check('exact', 'é\n', Buffer.from('é\n')).ok).toBe(true)
    // the other checkers too: invalid bytes are not all the same line or token
    expect(check('lines', '\uFFFD', Buffer.from([0xfe])).ok).toBe(false)
    expect(check('tokens', '\uFFFD', Buffer.from([0xfe])).ok).toBe(false)
    expect(check('unordered', '\uFFFD', Buffer.from([0xfe])).ok).toBe(false)
  })
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

describe('numbers are read in one pass', () => {
  test.each([
    ['1', 1], ['-1.5', -1.5], ['+.5', 0.5], ['1.', 1], ['1e3', 1000], ['1E-3', 0.001], ['-inf', -Infinity], ['INFINITY', Infinity],
    ['x', null], ['1e', null], ['.', null], ['1.2.3', null], ['--1', null], ['1x', null], ['e5', null], ['infx', null],
  ])('%j → %s', (t, n) => expect(parseNumber(t)).toBe(n))
  test('NaN, and digit runs longer than a double tells apart', () => {
    expect(parseNumber('-nan')).toBeNaN()
    expect(parseNumber('1' + '0'.repeat(2000))).toBe(Infinity)
    expect(parseNumber('1' + '0'.repeat(300))).toBe(1e300)
    expect(parseNumber('0.' + '0'.repeat(2000) + '1')).toBe(0)
    expect(parseNumber('0.' + '0'.repeat(900) + '1e950')).toBeCloseTo(1e49, -35)
    expect(parseNumber('1' + '0'.repeat(1000) + 'e-1000')).toBe(1)
    expect(parseNumber('1e99999999999999999999')).toBe(Infinity)
  })
})

describe('hostile output is judged in linear time', () => {
  // run in a child process with a deadline: a backtracking checker does not give the event loop back,
  // so only a process that can be killed shows it (the old checkers took minutes on these)
  test('a 1 MB line of spaces, 1 MB digit runs, 1 MB of blank lines: every checker within the deadline', () => {
    const script = `
      import { check } from './src/grading/checkers.ts'
      const MB = 1 << 20
      const spaces = ' '.repeat(MB) + 'x\\n'
      const digits = '1'.repeat(MB)
      const cases = [
        ['lines', 'x\\n', spaces], ['lines', spaces, spaces], ['unordered', 'x\\n', spaces], ['exact', spaces, spaces],
        ['tokens', 'x', spaces], [{ type: 'float' }, digits, digits + 'x'], [{ type: 'float' }, digits, '1'.repeat(MB - 1) + '.'],
        [{ type: 'float' }, '1.' + digits, '1.' + digits + 'e'], ['lines', '\\r'.repeat(MB), '\\n'.repeat(MB)],
        ['tokens', digits + ' ', '\\t '.repeat(MB / 2)],
      ]
      for (const [spec, e, a] of cases) check(spec, e, a)
      process.stdout.write('done')
    `
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000, encoding: 'utf8' })
    expect(out).toBe('done')
  }, 30_000)

  test('judging past its budget throws JudgeTimeout, checked as it goes', () => {
    const big = 'a b\n'.repeat(1 << 20)
    expect(() => check('lines', big, big, new Budget(Date.now() - 1))).toThrow(JudgeTimeout)
    expect(() => check('tokens', big, big, new Budget(Date.now() - 1))).toThrow(JudgeTimeout)
    expect(() => check({ type: 'float' }, big, big, new Budget(Date.now() - 1))).toThrow(JudgeTimeout)
    expect(() => check('exact', big, big.slice(0, -1) + 'x', new Budget(Date.now() - 1))).toThrow(JudgeTimeout)
    expect(check('lines', big, big, Budget.ms(60_000)).ok).toBe(true)
  })
})
