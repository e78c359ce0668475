import { describe, expect, it } from 'vitest'
import type { TestOutcome } from '../jobs/types.ts'
import { gradedVerdict, scoreOf, testRows, type SubmissionTest } from './graded.ts'
import { testConfig } from '../testing/evaluation.ts'

const outcome = (status: TestOutcome['status'], over: Partial<TestOutcome> = {}): TestOutcome => ({
  status, statusDetail: 'NA', timeUsedSec: 0.1, memoryUsedKb: 1000, exitCode: 0, signal: 'OTHER', checkerMessage: '', earned: status === 'AC' ? 1 : 0, stdout: status, ...over,
})

describe('graded verdicts', () => {
  it('the first test that is not AC decides; time and memory are the maxima', () => {
    const v = gradedVerdict([outcome('AC', { timeUsedSec: 0.9 }), outcome('WA'), outcome('TLE', { memoryUsedKb: 5000 }), outcome('SKIPPED')])
    expect(v).toMatchObject({ verdict: 'WA', timeUsedSec: 0.9, memoryUsedKb: 5000, stdout: 'WA' })
  })
  it('all AC: AC with the last test\'s output; SKIPPED never decides', () => {
    expect(gradedVerdict([outcome('AC', { stdout: 'a' }), outcome('AC', { stdout: 'b' })])).toMatchObject({ verdict: 'AC', stdout: 'b' })
    expect(gradedVerdict([outcome('RE', { statusDetail: 'SIGSEGV' }), outcome('SKIPPED')])).toMatchObject({ verdict: 'RE', statusDetail: 'SIGSEGV' })
  })
  it('score: passed, total, points earned and possible', () => {
    const t = (status: string | null, points: number, earned: number | null) => ({ status, points, earnedPoints: earned }) as SubmissionTest
    expect(scoreOf([t('AC', 2, 2), t('WA', 3, 0), t(null, 1, null), t('AC', 0.1, 0.1), t('AC', 0.2, 0.2)])).toEqual({ passed: 3, total: 5, points: 2.3, max_points: 6.3 })
  })
})

describe('test sets are checked against grading.*', () => {
  const config = testConfig()
  const clamp = (t: number | undefined) => (t === undefined ? null : Math.min(t, 5))
  const tc = (input = '', expected_output = '') => ({ input, expected_output })
  it('rows in order, names 1..n, points default 1, time limits clamped', () => {
    const rows = testRows(config, [tc('a', 'b'), { ...tc(), points: 3, time_limit: 99 }], clamp)
    expect(rows.map((r) => [r.position, r.name, r.points, r.timeLimitSec])).toEqual([[0, '1', 1, null], [1, '2', 3, 5]])
  })
  it('refuses an empty set, too many tests, a test or a set too large', () => {
    const g = config.grading
    expect(() => testRows(config, [], clamp)).toThrow(/empty/)
    expect(() => testRows(config, Array.from({ length: g.max_tests + 1 }, () => tc()), clamp)).toThrow(/more than/)
    expect(() => testRows(config, [tc('x'.repeat(g.test_max_bytes + 1))], clamp)).toThrow(/input is larger/)
    const big = 'y'.repeat(g.test_max_bytes)
    expect(() => testRows(config, Array.from({ length: Math.ceil(g.total_max_bytes / g.test_max_bytes) + 1 }, () => tc(big)), clamp)).toThrow(/in all/)
  })
})
