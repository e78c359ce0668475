// A package's grading as a stored problem keeps it: built from data/ and problem.yaml, through JSON
// (as the submission row carries it), it grades a job's outcomes as verify does: oddecho's partial
// solution AC (50) with its groups, a memory overrun MLE (verify: RTE), the test that decided.
import { describe, expect, it } from 'vitest'
import type { TestOutcome } from '../grading/types.ts'
import { readPackageSpec } from './problem-yaml.ts'
import { gradeOutcomes, needsPackageGrading, packageGrading, packageScore, STATUS_OF_GRADED, stopsOnFirstFailure, type PackageGrading } from './stored-grading.ts'
import { readTestData } from './test-data.ts'

const files = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v)]))
const cases = (names: string[]) => Object.fromEntries(names.flatMap((n) => [[`data/${n}.in`, ''], [`data/${n}.ans`, '']]))
const grading = (entries: Record<string, string>): PackageGrading => {
  const f = files(entries)
  const spec = readPackageSpec(f, 'p')
  // through JSON, as it is stored
  return JSON.parse(JSON.stringify(packageGrading(spec, readTestData(f, [], spec.groupOverrides))))
}
const outcome = (status: TestOutcome['status'], score?: number): TestOutcome => ({ status, statusDetail: 'NA', timeUsedSec: 0, memoryUsedKb: 0, exitCode: 0, signal: 'OTHER', checkerMessage: '', earned: status === 'AC' ? 1 : 0, stdout: '', ...(score !== undefined && { score }) })

/** problemtools' examples/oddecho (its testdata.yaml files as they are). */
const ODDECHO = {
  'problem.yaml': 'problem_format_version: 2023-07-draft\ntype: scoring\nname: Odd Echo\n',
  ...cases(['sample/1', 'sample/2', 'secret/subtask1/1', 'secret/subtask1/2', 'secret/subtask2/01', 'secret/subtask2/02']),
  'data/testdata.yaml': 'on_reject: continue\nrange: 0 100\ngrader_flags: ignore_sample\n',
  'data/sample/testdata.yaml': 'on_reject: continue\nrange: 0 0\naccept_score: 0\ngrader_flags: first_error\n',
  'data/secret/testdata.yaml': 'on_reject: continue\nrange: 0 100\ngrader_flags: first_error accept_if_any_accepted\n',
  'data/secret/subtask1/testdata.yaml': 'on_reject: break\naccept_score: 50\nrange: 0 50\ngrader_flags: min\n',
  'data/secret/subtask2/testdata.yaml': 'on_reject: break\naccept_score: 50\nrange: 0 50\ngrader_flags: min\n',
}

describe('a stored package grading', () => {
  it("oddecho: a partial solution is AC (50) with each group's verdict and score; a full one 100", () => {
    const g = grading(ODDECHO)
    expect(g).toMatchObject({ scoring: true, maxScore: 100, testFlags: [null, null, null, null, null, null] })
    expect(needsPackageGrading(g)).toBe(true)
    expect(stopsOnFirstFailure(g)).toBe(false)
    const partial = gradeOutcomes(g, ['AC', 'AC', 'AC', 'AC', 'WA', 'SKIPPED'].map((s) => outcome(s as TestOutcome['status'])))
    expect(packageScore(g, partial)).toEqual({
      verdict: 'AC',
      score: 50,
      max_score: 100,
      groups: [
        { group: 'sample', verdict: 'AC', score: 0 },
        { group: 'secret/subtask1', verdict: 'AC', score: 50 },
        { group: 'secret/subtask2', verdict: 'WA', score: 0 },
        { group: 'secret', verdict: 'AC', score: 50 },
        { group: '', verdict: 'AC', score: 50 },
      ],
    })
    expect(gradeOutcomes(g, Array.from({ length: 6 }, () => outcome('AC')))).toMatchObject({ verdict: 'AC', score: 100 })
    // nothing accepted in secret: first_error gives the first group's verdict, decided by its case
    const wrong = gradeOutcomes(g, ['AC', 'AC', 'TLE', 'SKIPPED', 'WA', 'SKIPPED'].map((s) => outcome(s as TestOutcome['status'])))
    expect(wrong).toMatchObject({ verdict: 'TLE', score: 0, decidedBy: 2 })
    expect(STATUS_OF_GRADED[wrong.verdict]).toBe('TLE')
  })
  it('pass-fail with on_reject: continue and per-group flags: no scores; a memory overrun is MLE here, RTE for verify', () => {
    const g = grading({ 'problem.yaml': 'name: p\nvalidator_flags: case_sensitive\n', ...cases(['secret/a/1', 'secret/b/1']), 'data/secret/testdata.yaml': 'on_reject: continue\n', 'data/secret/b/testdata.yaml': 'output_validator_flags: float_tolerance 0.1\n' })
    expect(g).toMatchObject({ scoring: false, maxScore: null, testFlags: [null, ['case_sensitive', 'float_tolerance', '0.1']] })
    const r = gradeOutcomes(g, [outcome('MLE'), outcome('WA')])
    expect(packageScore(g, r)).toMatchObject({ verdict: 'MLE', score: null, groups: [{ group: 'secret/a', verdict: 'MLE', score: null }, { group: 'secret/b', verdict: 'WA', score: null }, { group: 'secret', verdict: 'MLE' }, { group: '', verdict: 'MLE' }] })
    expect(r.decidedBy).toBe(0)
    expect(gradeOutcomes(g, [outcome('MLE'), outcome('WA')], (o) => (o.status === 'MLE' ? 'RTE' : 'WA')).verdict).toBe('RTE')
  })
  it("score.txt's scores and the validator's rule; a plain pass-fail package needs none of this", () => {
    const g = grading({ 'problem.yaml': 'name: p\ntype: scoring\nvalidation: custom score\n', ...cases(['secret/1', 'secret/2']), 'output_validators/v/v.py': '' })
    expect(g.validatorScores).toBe('required')
    expect(gradeOutcomes(g, [outcome('AC', 3.5), outcome('AC', 2)])).toMatchObject({ verdict: 'AC', score: 5.5 })
    expect(stopsOnFirstFailure(g)).toBe(true)
    expect(needsPackageGrading(grading({ 'problem.yaml': 'name: p\n', ...cases(['sample/1', 'secret/1']), 'data/secret/testdata.yaml': 'grader_flags: first_error\n' }))).toBe(false)
  })
})
