// submissions.yaml (the Kattis format's globs, braces, a submission over its folder) and DOMjudge's
// submissions.json: what each says of a submission's language and entry point, what is not read, and
// the refusals of a file that does not parse.
import { describe, expect, it } from 'vitest'
import { PackageRefused } from './package-files.ts'
import { expandBraces, globPattern, readSubmissionRules, submissionMeta } from './submission-meta.ts'

const rulesOf = (files: Record<string, string>, ignored: string[] = []) => readSubmissionRules(new Map(Object.entries(files).map(([k, v]) => [k, Buffer.from(v)])), ignored)

describe('submissions.yaml', () => {
  it('globs: * and ? within a name, {a,b} alternatives (nested), never across /', () => {
    expect(expandBraces('a.{py,cpp}')).toEqual(['a.py', 'a.cpp'])
    expect(expandBraces('{x,y/{1,2}}.c')).toEqual(['x.c', 'y/1.c', 'y/2.c'])
    expect(globPattern('accepted/*').test('accepted/a.py')).toBe(true)
    expect(globPattern('accepted/*').test('accepted/dir/a.py')).toBe(false)
    expect(globPattern('*/a.py').test('wrong_answer/a.py')).toBe(true)
    expect(globPattern('accepted/a?.py').test('accepted/ab.py')).toBe(true)
    expect(globPattern('accepted/a.py').test('accepted/aXpy')).toBe(false)
    expect(globPattern('{simple,complex}.py').test('complex.py')).toBe(true)
    expect(globPattern('accepted/').test('accepted')).toBe(true)
  })

  it('language and entrypoint of a submission: its folder\'s, then its own; later keys over earlier; other keys listed as not read', () => {
    const ignored: string[] = []
    const rules = rulesOf({
      'submissions/submissions.yaml': [
        'accepted/solo.py:',
        '  language: python2',
        'accepted:',
        '  language: python3',
        '  authors: Someone <a@b.c>',
        'run_time_error/not_defined:',
        '  language: python3',
        '  entrypoint: main.py',
        'time_limit_exceeded/*:',
        '  authors: [One, Two]',
        'wrong_answer/{a,b}.pl:',
        '  language: perl',
        '  permitted: [AC, WA]',
        'wrong_answer/b.pl:',
        '  language: prolog',
      ].join('\n'),
    }, ignored)
    expect(submissionMeta(rules, 'accepted/solo.py')).toEqual({ language: 'python2', from: 'submissions/submissions.yaml accepted, submissions/submissions.yaml accepted/solo.py' })
    expect(submissionMeta(rules, 'accepted/other.py')).toMatchObject({ language: 'python3' })
    expect(submissionMeta(rules, 'run_time_error/not_defined/')).toMatchObject({ language: 'python3', entryPoint: 'main.py' })
    expect(submissionMeta(rules, 'time_limit_exceeded/t.py')).toBeUndefined()
    expect(submissionMeta(rules, 'wrong_answer/a.pl')).toMatchObject({ language: 'perl' })
    expect(submissionMeta(rules, 'wrong_answer/b.pl')).toMatchObject({ language: 'prolog' })
    expect(submissionMeta(rules, 'wrong_answer/c.pl')).toBeUndefined()
    expect(ignored).toEqual(['submissions/submissions.yaml authors (not read: only language and entrypoint are)', 'submissions/submissions.yaml permitted (not read: only language and entrypoint are)'])
  })

  it.each([
    ['accepted: [x\n', /^submissions\/submissions\.yaml: not YAML/],
    ['- a\n- b\n', /^submissions\/submissions\.yaml: must map glob patterns to settings/],
    ['accepted: python3\n', /^submissions\/submissions\.yaml: accepted: must be a map of settings/],
    ['accepted:\n  language: 3\n', /^submissions\/submissions\.yaml: accepted: language must be a non-empty string/],
    ['accepted:\n  entrypoint: ""\n', /^submissions\/submissions\.yaml: accepted: entrypoint must be a non-empty string/],
  ])('refused: %j', (text, pattern) => {
    let err: unknown
    try {
      rulesOf({ 'submissions/submissions.yaml': text })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(PackageRefused)
    expect((err as Error).message).toMatch(pattern)
  })
})

describe("DOMjudge's submissions.json", () => {
  it('zip paths, a folder with its slash, langid and entry_point; team is not read', () => {
    const ignored: string[] = []
    const rules = rulesOf({ 'submissions.json': JSON.stringify({ 'submissions/accepted/multi/': { langid: 'kotlin', entry_point: 'SolverKt', team: 'jury' }, 'submissions/accepted/a.pl': { langid: 'pl' } }) }, ignored)
    expect(submissionMeta(rules, 'accepted/multi/')).toEqual({ language: 'kotlin', entryPoint: 'SolverKt', from: 'submissions.json submissions/accepted/multi/' })
    expect(submissionMeta(rules, 'accepted/a.pl')).toMatchObject({ language: 'pl' })
    // taken literally: not a glob
    expect(submissionMeta(rulesOf({ 'submissions.json': '{"submissions/accepted/*": {"langid": "c"}}' }), 'accepted/x.c')).toBeUndefined()
    expect(ignored).toEqual(['submissions.json team (not read: only langid and entry_point are)'])
    expect(() => rulesOf({ 'submissions.json': '{' })).toThrow(/^submissions\.json: not JSON/)
    expect(() => rulesOf({ 'submissions.json': '{"submissions/accepted/a.c": "c"}' })).toThrow(/^submissions\.json: submissions\/accepted\/a\.c: must be an object/)
  })
})
