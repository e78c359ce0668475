// Importing Kattis/ICPC packages: the formats, the order of test data, the validator, the report of
// what was left out, and every refusal (bad files, traversal names, links, bombs, sizes). Zips are
// built with Python's zipfile, as in src/problems/zip.test.ts.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Job } from '../jobs/types.ts'
import { checkValidatorCompiles, importPackage } from './import.ts'
import { PackageRefused, readPackageDir, readPackageZip } from './package-files.ts'
import { makeTree, makeZip, type ZipEntry } from '../testing/zips.ts'

type Entry = ZipEntry
const zip = makeZip
const caps = { maxFiles: 500, fileBytes: 1 << 20, totalBytes: 4 << 20 }
const load = async (files: Record<string, string>, prefix = '') => importPackage(await readPackageZip(zip(Object.entries(files).map(([n, d]) => [prefix + n, d])), caps), { fallbackName: 'pkg', maxTests: 100 })
const refused = async (files: Record<string, string>, pattern: RegExp) => {
  const err = await load(files).then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(PackageRefused)
  expect((err as Error).message).toMatch(pattern)
}

const HELLO = { 'problem.yaml': 'name: Hello\nsource: Kattis\nlicense: cc by-sa\nlimits:\n  memory: 512\n', 'data/secret/hello.in': '', 'data/secret/hello.ans': 'Hello World!\n' }

describe('legacy packages', () => {
  it('hello: one case, the default validator, limits, metadata ignored; in a top folder or not', async () => {
    for (const prefix of ['', 'hello/']) {
      const p = await load({ ...HELLO, 'problem_statement/problem.en.tex': 'x', 'submissions/accepted/hello.c': 'int main(){}', 'input_validators/validate.py': '' }, prefix)
      expect(p.problem).toMatchObject({ name: 'Hello', memory_limit: 512 * 1024, checker: { type: 'kattis', flags: [] } })
      expect(p.problem.tests.map((t) => t.name)).toEqual(['secret/hello'])
      expect(p.report.time_limit.seconds).toBeNull()
      expect(p.report.submissions).toEqual([{ folder: 'accepted', files: ['hello.c'] }])
      expect(p.report.ignored).toEqual(expect.arrayContaining([expect.stringMatching(/^problem_statement\/problem\.en\.tex/), expect.stringMatching(/^input_validators\/validate\.py/), expect.stringMatching(/^problem\.yaml license/)]))
    }
  })
  it('runs cases in lexicographic order (10 before 2), groups among cases by name, samples first', async () => {
    const files: Record<string, string> = { 'problem.yaml': 'name: Order\n' }
    for (const n of ['secret/2', 'secret/10', 'secret/b/1', 'secret/a', 'secret/c', 'sample/1']) Object.assign(files, { [`data/${n}.in`]: n, [`data/${n}.ans`]: n })
    const p = await load(files)
    expect(p.problem.tests.map((t) => t.name)).toEqual(['sample/1', 'secret/10', 'secret/2', 'secret/a', 'secret/b/1', 'secret/c'])
    expect(p.report.groups).toEqual([{ group: 'sample', cases: 1 }, { group: 'secret', cases: 4 }, { group: 'secret/b', cases: 1 }])
  })
  it('an .in without .ans, an .ans alone, .interaction, .desc are listed as ignored', async () => {
    const p = await load({ ...HELLO, 'data/secret/lonely.in': '', 'data/secret/orphan.ans': '', 'data/sample/1.interaction': '', 'data/secret/hello.desc': '', 'data/invalid_inputs/x.in': '' })
    const ignored = p.report.ignored.join('\n')
    for (const f of ['data/secret/lonely.in (no .ans', 'data/secret/orphan.ans (no .in', 'data/sample/1.interaction (a sample', 'data/secret/hello.desc', 'data/invalid_inputs/ (only']) expect(ignored).toContain(f)
    expect(p.problem.tests).toHaveLength(1)
  })
  it('validator_flags go to the default validator; bad flags are refused naming problem.yaml', async () => {
    const p = await load({ ...HELLO, 'problem.yaml': 'name: F\nvalidator_flags: float_tolerance 1e-6 case_sensitive\n' })
    expect(p.problem.checker).toEqual({ type: 'kattis', flags: ['float_tolerance', '1e-6', 'case_sensitive'] })
    await refused({ ...HELLO, 'problem.yaml': 'validator_flags: ignore_case\n' }, /problem\.yaml: validator_flags: unknown flag "ignore_case"/)
    await refused({ ...HELLO, 'problem.yaml': 'validator_flags: float_tolerance\n' }, /problem\.yaml: validator_flags: float_tolerance needs a finite number/)
  })
  it('a custom validator: its language by extension, its other files beside it, its flags', async () => {
    const p = await load({ ...HELLO, 'problem.yaml': 'validation: custom\nvalidator_flags: x y\n', 'output_validators/v/validate.cc': '#include "validate.h"\nint main(){}', 'output_validators/v/validate.h': '//' })
    expect(p.problem.checker).toEqual({ type: 'output_validator', lang: 'CPP17', source: '#include "validate.h"\nint main(){}', files: [{ name: 'validate.h', content: '//' }], flags: ['x', 'y'] })
    expect(p.report.validator).toMatchObject({ kind: 'custom', main: 'output_validators/v/validate.cc' })
    const py = await load({ ...HELLO, 'problem.yaml': 'validation: custom\n', 'output_validators/check.py': 'import sys' })
    expect(py.problem.checker).toMatchObject({ type: 'output_validator', lang: 'PYTHON3', source: 'import sys', files: [] })
  })
  it('time limits from DOMjudge: .timelimit, domjudge-problem.ini', async () => {
    expect((await load({ ...HELLO, '.timelimit': '3\n' })).problem.time_limit).toBe(3)
    const ini = await load({ 'domjudge-problem.ini': "name = 'From ini'\ntimelimit = 2.5\ncolor = red\n", 'data/secret/1.in': '', 'data/secret/1.ans': '' })
    expect(ini.problem).toMatchObject({ name: 'From ini', time_limit: 2.5 })
    expect(ini.report.ignored.join('\n')).toContain('domjudge-problem.ini color')
  })
})

describe('2023-07 packages', () => {
  it('type, limits.time_limit, output_validator/', async () => {
    const p = await load({ 'problem.yaml': 'problem_format_version: 2023-07-draft\nname: {en: Two}\ntype: pass-fail\nlimits:\n  time_limit: 2\n', 'data/secret/1.in': '1', 'data/secret/1.ans': '1', 'output_validator/v/v.py': 'pass' })
    expect(p.problem).toMatchObject({ name: 'Two', time_limit: 2, checker: { type: 'output_validator', lang: 'PYTHON3' } })
    expect(p.spec.acToTimeLimit).toBe(2)
    expect(p.spec.timeLimitToTle).toBe(1.5)
  })
})

describe('scoring and per-group settings: read for verify, kept with a stored problem', () => {
  const SCORING = { ...HELLO, 'problem.yaml': 'type: scoring\ngrading:\n  on_reject: grade\n  accept_score: 5\n', 'data/secret/testdata.yaml': 'grader_flags: min\noutput_validator_flags: case_sensitive\n' }
  it('legacy type: scoring with grading: keys over every group; validation: custom score requires score.txt', async () => {
    const p = importPackage(await readPackageZip(zip(Object.entries(SCORING)), caps), { fallbackName: 'pkg', maxTests: 100, verifyOnly: true })
    expect([...p.spec.types]).toEqual(['scoring'])
    const secret = p.data.items[0] as import('./test-data.ts').TestGroup
    expect(secret.settings).toMatchObject({ onReject: 'continue', acceptScore: 5, graderFlags: ['min'], outputValidatorFlags: ['case_sensitive'] })
    const custom = importPackage(await readPackageZip(zip(Object.entries({ ...HELLO, 'problem.yaml': 'validation: custom score\n', 'output_validators/v/v.py': 'x' })), caps), { fallbackName: 'pkg', maxTests: 100, verifyOnly: true })
    expect([...custom.spec.types, custom.spec.customScores]).toEqual(['pass-fail', 'required'])
  })
  it('stored with their grading: groups, scores, per-group flags, score.txt\'s rule; a plain pass-fail package without', async () => {
    const scoring = await load(SCORING)
    expect(scoring.problem.grading).toMatchObject({ scoring: true, maxScore: null, testFlags: [['case_sensitive']] })
    expect(scoring.problem.grading!.tree.items[0]).toMatchObject({ path: 'secret', settings: { onReject: 'continue', acceptScore: 5, graderFlags: ['min'] } })
    const custom = await load({ ...HELLO, 'problem.yaml': 'validation: custom score\n', 'output_validators/v/v.py': 'x' })
    expect(custom.problem.grading).toMatchObject({ scoring: false, validatorScores: 'required' })
    expect((await load({ ...HELLO, 'data/secret/testdata.yaml': 'on_reject: continue\n' })).problem.grading).toMatchObject({ scoring: false, tree: { items: [{ settings: { onReject: 'continue' } }] } })
    expect((await load(HELLO)).problem.grading).toBeUndefined()
    expect((await load({ ...HELLO, 'data/secret/testdata.yaml': 'grader_flags: first_error\n' })).problem.grading).toBeUndefined()
  })
})

describe('interactive and multi-pass problems', () => {
  it('the validator is marked interactive, and multi-pass with its pass limit (default 2)', async () => {
    const legacy = await load({ ...HELLO, 'problem.yaml': 'validation: custom interactive multi-pass\n', 'output_validators/v/v.py': 'pass' })
    expect(legacy.problem.checker).toMatchObject({ type: 'output_validator', lang: 'PYTHON3', interactive: true, passes: 2 })
    expect(legacy.report.type).toEqual(expect.arrayContaining(['interactive', 'multi-pass', 'pass-fail']))
    const draft = await load({ ...HELLO, 'problem.yaml': 'problem_format_version: 2023-07-draft\ntype: [pass-fail, multi-pass]\nlimits:\n  validation_passes: 3\n', 'output_validator/v.py': 'pass' })
    expect(draft.problem.checker).toMatchObject({ type: 'output_validator', passes: 3 })
    expect(draft.problem.checker).not.toHaveProperty('interactive')
    const interactive = await load({ ...HELLO, 'problem.yaml': 'problem_format_version: 2023-07-draft\ntype: interactive\n', 'output_validator/v.py': 'pass' })
    expect(interactive.problem.checker).toMatchObject({ interactive: true })
    expect(interactive.problem.checker).not.toHaveProperty('passes')
  })
})

describe('refusals name the file and the rule', () => {
  it.each([
    [{ 'data/secret/1.in': '', 'data/secret/1.ans': '' }, /^problem\.yaml: missing/],
    [{ 'problem.yaml': 'name: [', 'data/secret/1.in': '' }, /^problem\.yaml: not valid YAML/],
    [{ 'problem.yaml': 'problem_format_version: 2023-07-draft\ntype: batch\n' }, /^problem\.yaml: unknown type "batch"/],
    [{ 'problem.yaml': 'validation: fancy\n' }, /^problem\.yaml: validation must start with default or custom/],
    [{ 'problem.yaml': 'validation: custom\n', 'data/secret/1.in': '', 'data/secret/1.ans': '' }, /^output_validators\/<name>\/: missing/],
    [{ 'problem.yaml': 'name: x\n' }, /^data\/: no test cases/],
    [{ 'problem.yaml': 'problem_format_version: 2025-09\n' }, /problem_format_version "2025-09" is not read here/],
    [{ 'problem.yaml': 'limits:\n  time_multiplier: -1\n' }, /limits\.time_multiplier must be a positive number/],
    [{ ...HELLO, 'problem.yaml': 'problem_format_version: 2023-07-draft\ntype: interactive\n' }, /^problem\.yaml: interactive problems need a custom output validator \(output_validator\/\)/],
    [{ ...HELLO, 'problem.yaml': 'problem_format_version: 2023-07-draft\ntype: multi-pass\nlimits:\n  validation_passes: 1\n', 'output_validator/v.py': 'pass' }, /^problem\.yaml: limits\.validation_passes must be a whole number from 2 to 64/],
    [{ ...HELLO, 'problem.yaml': 'validation: custom multi-pass\nlimits:\n  validation_passes: 65\n', 'output_validators/v/v.py': 'pass' }, /^problem\.yaml: limits\.validation_passes must be a whole number from 2 to 64/],
    [{ ...HELLO, 'data/secret/testdata.yaml': 'on_reject: sometimes\n' }, /^data\/secret\/testdata\.yaml: on_reject must be break or continue/],
    [{ ...HELLO, 'data/secret/testdata.yaml': 'output_validator_flags: a\n' }, /^data\/secret\/testdata\.yaml: output_validator_flags: unknown flag "a"/],
    [{ ...HELLO, 'problem.yaml': 'validation: custom\n', 'output_validators/v/run': 'exit 42' }, /^output_validators\/v\/run: a run script without a build script/],
    [{ ...HELLO, 'problem.yaml': 'validation: custom\n', 'output_validators/v/build': '', 'output_validators/v/run': 'exit 42' }, /^output_validators\/v\/build: an empty build script/],
    [{ ...HELLO, 'problem.yaml': 'validation: custom\n', 'output_validators/v/x.fs': '' }, /no source file in a language Arbiter offers/],
    [{ ...HELLO, 'problem.yaml': 'validation: custom\n', 'output_validators/a/a.py': '', 'output_validators/b/b.py': '' }, /2 validators/],
    [{ ...HELLO, 'problem.yaml': 'type: interactive\n' }, /^problem\.yaml: type "interactive": the legacy format's type is pass-fail or scoring/],
    [{ ...HELLO, 'problem.yaml': 'grading:\n  objective: most\n' }, /^problem\.yaml: grading\.objective must be max or min/],
    [{ ...HELLO, 'problem.yaml': 'grading:\n  bonus: 1\n' }, /^problem\.yaml: grading\.bonus is not a key of grading/],
  ])('%#: %s', async (files, pattern) => refused(files as Record<string, string>, pattern))

  it('more cases than grading.max_tests', { timeout: 60_000 }, async () => {
    const files: Record<string, string> = { 'problem.yaml': '' }
    for (let i = 0; i < 101; i++) Object.assign(files, { [`data/secret/${i}.in`]: '', [`data/secret/${i}.ans`]: '' })
    await refused(files, /101 test cases, more than grading\.max_tests \(100\)/)
  })

  it('traversal names, absolute paths, links, a name twice: refused before anything is read', { timeout: 60_000 }, async () => {
    for (const [entries, pattern] of [
      [[['../evil', 'x']], /a path with \.\.|invalid relative path/],
      [[['data/../../evil', 'x']], /a path with \.\.|invalid relative path/],
      [[['/etc/passwd', 'x']], /absolute path/],
      [[['data/secret/1.in', 'x'], ['data/secret/1.in', 'y']], /appears twice/],
      [[['data/secret/1.in', '/etc/passwd', { link: true }]], /not a regular file/],
      [[['problem_statement/img.png', '/etc/passwd', { link: true }]], /not a regular file/], // even a part that is never read
    ] as [Entry[], RegExp][]) {
      await expect(readPackageZip(zip(entries), caps)).rejects.toThrow(pattern)
    }
  })

  it('a zip bomb stops at the cap; a statement that is never read is never inflated', { timeout: 60_000 }, async () => {
    const bomb = zip([['problem.yaml', ''], ['data/secret/1.in', { zeros: 32 << 20 }], ['data/secret/1.ans', '']])
    expect(bomb.length).toBeLessThan(200_000)
    await expect(readPackageZip(bomb, caps)).rejects.toMatchObject({ tooLarge: true, message: expect.stringMatching(/larger than|beyond the caps/) })
    const statement = zip([['problem.yaml', ''], ['statement/huge.pdf', { zeros: 32 << 20 }], ['data/secret/1.in', ''], ['data/secret/1.ans', '']])
    const pkg = await readPackageZip(statement, caps)
    expect(pkg.skipped).toEqual(['statement/huge.pdf'])
  })

  it('too many files, too many bytes in all', { timeout: 60_000 }, async () => {
    await expect(readPackageZip(zip(Array.from({ length: 501 }, (_, i) => [`statement/${i}`, ''] as Entry)), caps)).rejects.toThrow(/more than 500 files/)
    await expect(readPackageZip(zip(Array.from({ length: 5 }, (_, i) => [`data/secret/${i}.in`, { zeros: 1 << 20 }] as Entry)), caps)).rejects.toThrow(/larger than 4194304 bytes in all/)
  })
})

describe('a package folder (the command line)', () => {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-pkg-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const make = (name: string, files: Record<string, string>) => makeTree(root, name, files)
  it('reads it as the zip is read', () => {
    const p = importPackage(readPackageDir(make('hello', { ...HELLO, 'statement/a.md': '' }), caps), { fallbackName: 'hello', maxTests: 100 })
    expect(p.problem.tests.map((t) => t.name)).toEqual(['secret/hello'])
    expect(p.report.ignored.join('\n')).toContain('statement/a.md')
  })
  it('refuses a link by name, never following it', () => {
    const dir = make('linked', HELLO)
    symlinkSync('/etc/passwd', join(dir, 'data', 'secret', 'x.ans'))
    expect(() => readPackageDir(dir, caps)).toThrow(/data\/secret\/x\.ans: a link or special file/)
  })
})

describe('a custom validator is compiled at import', () => {
  const CUSTOM = { ...HELLO, 'problem.yaml': 'validation: custom\n', 'output_validators/v/validate.cc': 'int main(){}', 'output_validators/v/validate.h': '' }
  it('as a checker-only job of the client\'s scope; a failure refuses the package naming the file, the message cut at 20 lines', async () => {
    const p = await load(CUSTOM)
    const jobs: Job[] = []
    await checkValidatorCompiles(p, async (job) => (jobs.push(job), { compile: { ok: true, message: '' } }), 'client:7')
    expect(jobs).toMatchObject([{ checkerOnly: true, cacheScope: 'client:7', checker: { type: 'output_validator', lang: 'CPP17', files: [{ name: 'validate.h' }] } }])
    const message = `checker does not compile: ${Array.from({ length: 25 }, (_, i) => `validate.cc:${i + 1}: error`).join('\n')}`
    const err = await checkValidatorCompiles(p, async () => ({ compile: { ok: false, message } })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PackageRefused)
    expect((err as PackageRefused).message).toMatch(/^output_validators\/v\/validate\.cc: the validator does not compile: validate\.cc:1: error\n[^]*validate\.cc:20: error\n… \(5 more lines\)$/)
    // the default validator is built in: nothing to compile
    const none: Job[] = []
    await checkValidatorCompiles(await load(HELLO), async (job) => (none.push(job), { compile: { ok: false, message: 'x' } }))
    expect(none).toEqual([])
  })
})

describe('validators as build/run scripts (problemtools\' BuildRun)', { timeout: 60_000 }, () => {
  it('a folder with a build script: the script is the source, every other file beside it, run in the build/run language', async () => {
    const p = await load({ ...HELLO, 'problem.yaml': 'validation: custom\nvalidator_flags: -x\n', 'output_validators/v/build': 'c++ -o check check.cc\n', 'output_validators/v/run': 'exec ./check "$@"\n', 'output_validators/v/check.cc': 'int main(){return 42;}\n' })
    expect(p.problem.checker).toEqual({ type: 'output_validator', lang: 'MULTIFILE', source: 'c++ -o check check.cc\n', files: [{ name: 'run', content: 'exec ./check "$@"\n' }, { name: 'check.cc', content: 'int main(){return 42;}\n' }], flags: ['-x'], build: true })
    expect(p.report.validator).toEqual({ kind: 'custom', lang: 'MULTIFILE', main: 'output_validators/v/build', files: ['output_validators/v/build', 'output_validators/v/run', 'output_validators/v/check.cc'], flags: ['-x'] })
    // 2023-07: output_validator/ holds the folder itself; build alone (it makes run) is enough
    const q = await load({ ...HELLO, 'problem.yaml': 'problem_format_version: 2023-07-draft\ntype: interactive\n', 'output_validator/build': 'printf \'exit 42\\n\' > run\n' })
    expect(q.problem.checker).toEqual({ type: 'output_validator', lang: 'MULTIFILE', source: 'printf \'exit 42\\n\' > run\n', files: [], flags: [], build: true, interactive: true })
  })

  it('a run script beside sources but no build script: the sources judge, as problemtools reads the folder', async () => {
    const p = await load({ ...HELLO, 'problem.yaml': 'validation: custom\n', 'output_validators/v/run': 'exit 43', 'output_validators/v/v.py': 'exit(42)' })
    expect(p.problem.checker).toMatchObject({ lang: 'PYTHON3', source: 'exit(42)' })
    expect(p.problem.checker).not.toHaveProperty('build')
  })

  it('a failing build refuses the package naming the build script', async () => {
    const p = await load({ ...HELLO, 'problem.yaml': 'validation: custom\n', 'output_validators/v/build': 'false\n' })
    const err = await checkValidatorCompiles(p, async () => ({ compile: { ok: false, message: 'checker does not compile: nope\nbuild exited with code 1' } })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PackageRefused)
    expect((err as PackageRefused).message).toBe('output_validators/v/build: the build script failed: nope\nbuild exited with code 1')
  })
})

describe("the submissions' settings", () => {
  it('submissions/submissions.yaml and submissions.json are read, not listed as submissions or ignored; their unread keys are; a broken one is refused', { timeout: 60_000 }, async () => {
    const p = await load({ ...HELLO, 'submissions/submissions.yaml': 'accepted/a:\n  entrypoint: b.py\n  authors: X\n', 'submissions.json': '{"submissions/accepted/c.py": {"langid": "python3", "team": "jury"}}', 'submissions/accepted/a/b.py': '', 'submissions/accepted/c.py': '' })
    expect(p.submissionRules.map((r) => r.from)).toEqual(['submissions/submissions.yaml accepted/a', 'submissions.json submissions/accepted/c.py'])
    expect(p.report.submissions).toEqual([{ folder: 'accepted', files: ['a/b.py', 'c.py'] }])
    expect(p.report.ignored.filter((i) => /submissions/.test(i))).toEqual(['submissions/submissions.yaml authors (not read: only language and entrypoint are)', 'submissions.json team (not read: only langid and entry_point are)'])
    await refused({ ...HELLO, 'submissions/submissions.yaml': 'accepted: [' }, /^submissions\/submissions\.yaml: not YAML/)
  })
})
