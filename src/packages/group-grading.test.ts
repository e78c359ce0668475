// Grading a package's groups as problemtools does: the default grader's flags, on_reject, scores
// per case (score.txt, accept_score, reject_score), JE first, and oddecho's own tree. (The same
// grader beside problemtools' default_grader on random inputs: src/e2e/problem-packages.e2e.test.ts.)
import { describe, expect, it } from 'vitest'
import { defaultGrader, firstFailureDecides, gradeTree, type CaseResult } from './group-grading.ts'
import { readTestData, type TestCase } from './test-data.ts'

const tree = (files: Record<string, string>, overrides = {}) => readTestData(new Map(Object.entries(files).map(([k, v]) => [k, Buffer.from(v)])), [], overrides)
const cases = (names: string[]) => Object.fromEntries(names.flatMap((n) => [[`data/${n}.in`, ''], [`data/${n}.ans`, '']]))

/** problemtools' examples/oddecho: sample (0 points, ignored), two subtasks of 50 (min, break). */
const oddecho = tree({
  ...cases(['sample/1', 'sample/2', 'secret/subtask1/1', 'secret/subtask1/2', 'secret/subtask2/01', 'secret/subtask2/02']),
  'data/testdata.yaml': 'on_reject: continue\nrange: 0 100\ngrader_flags: ignore_sample\n',
  'data/sample/testdata.yaml': 'on_reject: continue\nrange: 0 0\naccept_score: 0\ngrader_flags: first_error\n',
  'data/secret/testdata.yaml': 'on_reject: continue\nrange: 0 100\ngrader_flags: first_error accept_if_any_accepted\n',
  'data/secret/subtask1/testdata.yaml': 'on_reject: break\naccept_score: 50\nrange: 0 50\ngrader_flags: min\n',
  'data/secret/subtask2/testdata.yaml': 'on_reject: break\naccept_score: 50\nrange: 0 50\ngrader_flags: min\n',
})

const by = (results: Record<string, CaseResult['verdict'] | CaseResult>) => {
  const asked: string[] = []
  const fn = (t: TestCase) => {
    asked.push(t.name)
    const r = results[t.name]
    return r === undefined ? undefined : typeof r === 'string' ? { verdict: r } : r
  }
  return { fn, asked }
}

describe("problemtools' default grader", () => {
  it('worst_error by default, first_error, always_accept; sum, avg, min, max; six decimals', () => {
    const rs = [{ verdict: 'WA' as const, score: 1 }, { verdict: 'TLE' as const, score: 2 }, { verdict: 'AC' as const, score: 0.5 }]
    expect(defaultGrader(rs, [])).toEqual({ verdict: 'TLE', score: 3.5 })
    expect(defaultGrader(rs, ['first_error', 'avg'])).toEqual({ verdict: 'WA', score: 1.166667 })
    expect(defaultGrader(rs, ['always_accept', 'min'])).toEqual({ verdict: 'AC', score: 0.5 })
    expect(defaultGrader(rs, ['max', 'first_error', 'worst_error'])).toEqual({ verdict: 'TLE', score: 2 })
    expect(defaultGrader(rs, ['accept_if_any_accepted'])).toEqual({ verdict: 'AC', score: 3.5 })
    // ignore_sample keeps the last of one or two results; more is the grader's error
    expect(defaultGrader(rs.slice(0, 2), ['ignore_sample'])).toEqual({ verdict: 'TLE', score: 2 })
    expect(defaultGrader(rs, ['ignore_sample'])).toEqual({ verdict: 'JE', score: 0 })
  })
})

describe('grading a group tree', () => {
  it('oddecho: all accepted is AC 100; one subtask failed is AC 50 (accept_if_any_accepted); samples count for nothing', () => {
    const all = by({ 'sample/1': 'AC', 'sample/2': 'AC', 'secret/subtask1/1': 'AC', 'secret/subtask1/2': 'AC', 'secret/subtask2/01': 'AC', 'secret/subtask2/02': 'AC' })
    expect(gradeTree(oddecho, all.fn, true).at(-1)).toEqual({ group: '', verdict: 'AC', score: 100 })
    const half = by({ 'sample/1': 'WA', 'sample/2': 'AC', 'secret/subtask1/1': 'AC', 'secret/subtask1/2': 'AC', 'secret/subtask2/01': 'WA' })
    const groups = gradeTree(oddecho, half.fn, true)
    expect(groups.map((g) => [g.group, g.verdict, g.score])).toEqual([
      ['sample', 'WA', 0],
      ['secret/subtask1', 'AC', 50],
      ['secret/subtask2', 'WA', 0],
      ['secret', 'AC', 50],
      ['', 'AC', 50],
    ])
    // on_reject: break in subtask2: its case after the rejected one is never asked for
    expect(half.asked).not.toContain('secret/subtask2/02')
    // without accept_if_any_accepted, secret's verdict is its first error, and so the root's
    const strict = tree({ ...cases(['secret/a/1', 'secret/b/1']), 'data/secret/testdata.yaml': 'on_reject: continue\ngrader_flags: first_error\n', 'data/secret/a/testdata.yaml': 'accept_score: 30\n' })
    expect(gradeTree(strict, by({ 'secret/a/1': 'AC', 'secret/b/1': 'TLE' }).fn, true).at(-1)).toMatchObject({ verdict: 'TLE', score: 30, decidedBy: 'secret/b/1' })
  })

  it('a validator\'s score.txt replaces accept_score; a JE anywhere makes the group JE; pass-fail keeps no score', () => {
    const t = tree({ ...cases(['secret/1', 'secret/2', 'secret/3']), 'data/secret/testdata.yaml': 'on_reject: continue\ngrader_flags: sum\n' })
    expect(gradeTree(t, by({ 'secret/1': { verdict: 'AC', score: 7.5 }, 'secret/2': 'AC', 'secret/3': 'WA' }).fn, true).at(-1)).toEqual({ group: '', verdict: 'WA', score: 8.5, decidedBy: 'secret/3' })
    expect(gradeTree(t, by({ 'secret/1': 'JE', 'secret/2': 'AC', 'secret/3': 'WA' }).fn, true).at(-1)).toMatchObject({ verdict: 'JE', decidedBy: 'secret/1' })
    const passFail = gradeTree(t, by({ 'secret/1': 'AC', 'secret/2': 'RTE', 'secret/3': 'WA' }).fn, false).at(-1)!
    expect(passFail).toEqual({ group: '', verdict: 'RTE', decidedBy: 'secret/2' })
  })

  it('legacy problem.yaml grading: keys override every group\'s testdata.yaml', () => {
    const t = tree({ ...cases(['secret/1', 'secret/2']), 'data/secret/testdata.yaml': 'on_reject: break\naccept_score: 5\n' }, { acceptScore: 10, onReject: 'continue' })
    expect(gradeTree(t, by({ 'secret/1': 'WA', 'secret/2': 'AC' }).fn, true).at(-1)).toMatchObject({ verdict: 'WA', score: 10 })
  })

  it('the first failure decides only where every group breaks and none accepts past a rejection', () => {
    expect(firstFailureDecides(tree(cases(['secret/1'])))).toBe(true)
    expect(firstFailureDecides(oddecho)).toBe(false)
    expect(firstFailureDecides(tree({ ...cases(['secret/1']), 'data/secret/testdata.yaml': 'grader_flags: always_accept\n' }))).toBe(false)
  })
})
