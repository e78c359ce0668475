// verifyPackage with a fake runner: expected verdicts by folder and by DOMjudge's comment, the time
// limit computed from the accepted submissions as problemtools computes it, what is not run and why.
import { describe, expect, it } from 'vitest'
import type { Job, JobResult, TestOutcome } from '../jobs/types.ts'
import { loadLanguages, resolveLanguage } from '../languages.ts'
import { importPackage } from './import.ts'
import { expectedResults, verdictOf, verifyPackage, verifyTable } from './verify.ts'
import { BUILD_ARGV, RUN_ARGV } from '../grading/build-run.ts'

const outcome = (status: TestOutcome['status'], timeUsedSec = 0.1): TestOutcome => ({ status, statusDetail: 'NA', timeUsedSec, memoryUsedKb: 1, exitCode: 0, signal: 'OTHER', checkerMessage: '', earned: status === 'AC' ? 1 : 0, stdout: '' })
const files = (extra: Record<string, string>, yaml = 'name: P\n') =>
  new Map(Object.entries({ 'problem.yaml': yaml, 'data/secret/1.in': '1', 'data/secret/1.ans': '1', ...extra }).map(([k, v]) => [k, Buffer.from(v)]))

const languages = loadLanguages()

/** Each source says what its run gives: "AC 0.3" (status, CPU seconds), or "CE". */
async function verify(subs: Record<string, string>, yaml?: string, canRun = (code: string) => code !== 'RUST') {
  const all = files(subs, yaml)
  const pkg = importPackage({ files: all, skipped: [] }, { fallbackName: 'p', maxTests: 100 })
  const jobs: Job[] = []
  const run = async (job: Job): Promise<JobResult> => {
    jobs.push(job)
    const [status, time] = job.source.trim().split('\n').at(-1)!.split(' ')
    if (status === 'CE') return { compile: { ok: false, message: 'error: no' } }
    return { compile: { ok: true, message: '' }, tests: [outcome(status as TestOutcome['status'], Number(time ?? 0.1))] }
  }
  const report = await verifyPackage(pkg, new Map([...all].filter(([p]) => p.startsWith('submissions/'))), { canRun, run, maxTimeSec: 10, memoryLimitKb: 1 << 20, language: (code) => resolveLanguage(languages, code) })
  return { report, jobs }
}

describe('verifying a package', () => {
  it('each folder expects its verdict; the time limit is max(1, ceil(slowest AC × 5)); others run at it with the margin as extra time', async () => {
    const { report, jobs } = await verify({
      'submissions/accepted/a.c': 'AC 0.3',
      'submissions/accepted/b.py': 'AC 0.5',
      'submissions/wrong_answer/w.cc': 'WA',
      'submissions/time_limit_exceeded/t.cc': 'TLE 9',
      'submissions/run_time_error/r.cc': 'MLE', // a memory overrun is a crash, as problemtools sees it
      'submissions/run_time_error/wrong.cc': 'AC',
      'submissions/accepted/c.rs': 'AC',
      'submissions/slow_accepted/s.py': 'AC',
      'submissions/accepted/multi/main.py': 'AC',
      'submissions/accepted/multi/lib.py': '',
    })
    expect(report.timeLimitSec).toBe(3)
    expect(report.rows.map((r) => [r.file, r.got ?? '-', r.outcome])).toEqual([
      ['accepted/a.c', 'AC', 'pass'],
      ['accepted/b.py', 'AC', 'pass'],
      ['accepted/c.rs', '-', 'not offered'],
      ['accepted/multi/', 'AC', 'pass'],
      ['run_time_error/r.cc', 'RTE', 'pass'],
      ['run_time_error/wrong.cc', 'AC', 'fail'],
      ['slow_accepted/s.py', '-', 'not judged'],
      ['time_limit_exceeded/t.cc', 'TLE', 'pass'],
      ['wrong_answer/w.cc', 'WA', 'pass'],
    ])
    expect(report.ok).toBe(false)
    // accepted ran first at the largest limit; the rest at the computed one, the margin (2) as extra time
    expect(jobs.slice(0, 3).map((j) => j.timeLimitSec)).toEqual([10, 10, 10])
    // the folder: its main.py is the entry point, lib.py lies beside it
    expect(jobs[2]).toMatchObject({ language: 'PYTHON3', source: 'AC', files: [{ name: 'lib.py', contentBase64: '' }] })
    expect(report.rows.find((r) => r.file === 'accepted/multi/')?.main).toBe('main.py')
    expect(jobs.slice(3).every((j) => j.timeLimitSec === 3 && j.cpuExtraSec === 3)).toBe(true)
    expect(jobs[0].checker).toEqual({ type: 'kattis', flags: [] })
  })

  it('parallel: at most that many runs at once, started in the table\'s order, the accepted ones all ended before the others start; the rows keep their order', async () => {
    const all = files({
      'submissions/accepted/a.c': 'AC 0.3',
      'submissions/accepted/b.c': 'AC 0.1',
      'submissions/accepted/c.c': 'AC 0.2',
      'submissions/wrong_answer/w1.c': 'WA',
      'submissions/wrong_answer/w2.c': 'WA',
      'submissions/wrong_answer/w3.c': 'WA',
    })
    const pkg = importPackage({ files: all, skipped: [] }, { fallbackName: 'p', maxTests: 100 })
    const started: string[] = []
    const ended: string[] = []
    let running = 0
    let most = 0
    const run = async (job: Job): Promise<JobResult> => {
      const [status, time] = job.source.trim().split(' ')
      started.push(job.source)
      most = Math.max(most, ++running)
      // the first of each pair ends last: a run that ends early frees its lane for the next
      await new Promise((r) => setTimeout(r, started.length % 2 ? 30 : 5))
      running--
      ended.push(job.source)
      return { compile: { ok: true, message: '' }, tests: [outcome(status as TestOutcome['status'], Number(time ?? 0.1))] }
    }
    const report = await verifyPackage(pkg, new Map([...all].filter(([p]) => p.startsWith('submissions/'))), { canRun: () => true, run, maxTimeSec: 10, memoryLimitKb: 1 << 20, parallel: 2 })
    expect(most).toBe(2)
    expect(started).toEqual(['AC 0.3', 'AC 0.1', 'AC 0.2', 'WA', 'WA', 'WA'])
    // the time limit needs every accepted run: none of the others starts before the last of them ends
    expect(ended.slice(0, 3).sort()).toEqual(['AC 0.1', 'AC 0.2', 'AC 0.3'])
    expect(report.timeLimitSec).toBe(2)
    expect(report.rows.map((r) => [r.file, r.got])).toEqual([
      ['accepted/a.c', 'AC'], ['accepted/b.c', 'AC'], ['accepted/c.c', 'AC'],
      ['wrong_answer/w1.c', 'WA'], ['wrong_answer/w2.c', 'WA'], ['wrong_answer/w3.c', 'WA'],
    ])
  })

  it('a fixed limit (2023-07) is used as it is; DOMjudge\'s compiler_error and @EXPECTED_RESULTS@ are read', async () => {
    const { report } = await verify(
      { 'submissions/compiler_error/x.c': 'CE', 'submissions/accepted/y.c': '// @EXPECTED_RESULTS@: CORRECT, TIMELIMIT\nTLE' },
      'problem_format_version: 2023-07-draft\nlimits:\n  time_limit: 2\n'
    )
    expect(report.timeLimitSec).toBe(2)
    expect(report.rows.map((r) => [r.file, r.expected, r.got, r.outcome])).toEqual([
      ['accepted/y.c', ['AC', 'TLE'], 'TLE', 'pass'],
      ['compiler_error/x.c', ['CE'], 'CE', 'pass'],
    ])
    expect(report.ok).toBe(true)
  })

  it('reads @EXPECTED_RESULTS@ and the verdict of a run', () => {
    expect(expectedResults('x\n# @EXPECTED_RESULTS@: WRONG-ANSWER,RUN-ERROR\n')).toEqual(['WA', 'RTE'])
    expect(expectedResults('@EXPECTED_RESULTS@: MAYBE')).toBeUndefined()
    expect(verdictOf({ compile: { ok: true, message: '' }, tests: [outcome('AC'), outcome('IE'), outcome('SKIPPED')] })).toBe('JE')
  })
})

describe('verifying a scoring package', () => {
  // two groups of 50 (min, break), sample ignored; each source lists its cases' statuses in order
  const pkgFiles = {
    'problem.yaml': 'problem_format_version: 2023-07-draft\ntype: scoring\n',
    'output_validator/v.py': 'import sys\n',
    'data/testdata.yaml': 'on_reject: continue\nrange: 0 100\ngrader_flags: ignore_sample\n',
    'data/sample/1.in': '', 'data/sample/1.ans': '',
    'data/sample/testdata.yaml': 'on_reject: continue\naccept_score: 0\n',
    'data/secret/testdata.yaml': 'on_reject: continue\ngrader_flags: sum accept_if_any_accepted\n',
    'data/secret/a/testdata.yaml': 'on_reject: break\naccept_score: 50\ngrader_flags: min\noutput_validator_flags: loose\n',
    'data/secret/a/1.in': '', 'data/secret/a/1.ans': '',
    'data/secret/b/testdata.yaml': 'on_reject: break\naccept_score: 50\ngrader_flags: min\n',
    'data/secret/b/1.in': '', 'data/secret/b/1.ans': '', 'data/secret/b/2.in': '', 'data/secret/b/2.ans': '',
    'submissions/accepted/full.py': 'AC AC AC AC',
    'submissions/partially_accepted/half.py': 'WA AC WA AC',
    'submissions/partially_accepted/scored.py': 'AC AC:20 AC AC',
    'submissions/accepted/notfull.py': 'AC AC AC WA',
    'submissions/wrong_answer/none.py': 'AC WA WA WA',
  }
  it('groups graded as problemtools: scores, partially_accepted, every case run, group flags and score.txt passed to the worker', async () => {
    const all = new Map(Object.entries(pkgFiles).map(([k, v]) => [k, Buffer.from(v)]))
    const pkg = importPackage({ files: all, skipped: [] }, { fallbackName: 'p', maxTests: 100, verifyOnly: true })
    const jobs: Job[] = []
    const run = async (job: Job): Promise<JobResult> => {
      jobs.push(job)
      const tests = job.source.trim().split(' ').map((w) => {
        const [status, score] = w.split(':')
        return { ...outcome(status as TestOutcome['status']), ...(score && { score: Number(score) }) }
      })
      return { compile: { ok: true, message: '' }, tests }
    }
    const report = await verifyPackage(pkg, new Map([...all].filter(([p]) => p.startsWith('submissions/'))), { canRun: () => true, run, maxTimeSec: 10, memoryLimitKb: 1 << 20 })
    expect(report.maxScore).toBe(100)
    expect(report.rows.find((r) => r.file === 'accepted/notfull.py')!.note).toMatch(/score 50 of 100 \(problemtools warns/)
    expect(report.rows.map((r) => [r.file, r.got, r.score, r.outcome])).toEqual([
      ['accepted/full.py', 'AC', 100, 'pass'],
      ['accepted/notfull.py', 'AC', 50, 'pass'], // problemtools only warns
      ['partially_accepted/half.py', 'AC', 50, 'pass'],
      ['partially_accepted/scored.py', 'AC', 70, 'pass'],
      ['wrong_answer/none.py', 'WA', 0, 'pass'],
    ])
    expect(jobs.every((j) => j.stopOnFirstFailure === false && j.validatorScores === 'allowed')).toBe(true)
    expect(jobs[0].tests!.map((t) => t.checkerFlags)).toEqual([undefined, ['loose'], undefined, undefined])
    expect(verifyTable(report)).toMatch(/partially_accepted\/half\.py\s+AC\s+AC \(50\)/)
  })
})

describe('verifying multi-file submissions', () => {
  it('a folder runs as one program: C++ sources compiled together, Java by its class with main; an ambiguous entry point fails with the reason', async () => {
    const { report, jobs } = await verify({
      'submissions/accepted/cpp/solve.cpp': 'int solve();\nint main(){return solve();}\nAC',
      'submissions/accepted/cpp/util.cpp': 'int solve(){return 0;}',
      'submissions/accepted/cpp/util.h': '#pragma once',
      'submissions/accepted/java/Helper.java': 'class Helper { static int one() { return 1; } }',
      'submissions/accepted/java/Solver.java': 'public class Solver { public static void main(String[] a) {} }\nAC',
      'submissions/wrong_answer/py/a.py': 'WA',
      'submissions/wrong_answer/py/b.py': 'WA',
    })
    const byFile = Object.fromEntries(report.rows.map((r) => [r.file, r]))
    expect(byFile['accepted/cpp/']).toMatchObject({ got: 'AC', outcome: 'pass', main: 'solve.cpp', lang: 'CPP17' })
    expect(byFile['accepted/java/']).toMatchObject({ got: 'AC', outcome: 'pass', main: 'Solver.java', lang: 'JAVA' })
    expect(byFile['wrong_answer/py/']).toMatchObject({ outcome: 'fail', note: expect.stringMatching(/ambiguous entry point: several Python 3 files \(a\.py, b\.py\) and none is named main\.py/) })
    const cpp = jobs.find((j) => j.language === 'CPP17')!
    expect(cpp.compileArgv).toEqual(['g++', '-std=gnu++17', '-O2', '-pipe', '-fuse-ld=gold', '-o', 'main', 'main.cpp', 'util.cpp'])
    expect(cpp.files?.map((f) => f.name)).toEqual(['util.cpp', 'util.h'])
    const java = jobs.find((j) => j.language === 'JAVA')!
    expect(java.source).toMatch(/public class Solver/)
    expect(java.compileArgv?.slice(-1)).toEqual(['Helper.java'])
    expect(report.ok).toBe(false)
  })
})

describe("a package's declared language and entry point", () => {
  it('submissions.yaml: an entrypoint the default rules would not pick, a language over the extension, and what does not resolve fails with where it was said', async () => {
    const { report, jobs } = await verify({
      'submissions/submissions.yaml': [
        'accepted/py:',
        '  entrypoint: solve.py',
        'accepted/echo.pl:',
        '  language: perl',
        'accepted/java:',
        '  language: java',
        '  entrypoint: Second',
        'wrong_answer/*:',
        '  language: cobolx',
        'run_time_error/{gone}:',
        '  entrypoint: nothing.py',
      ].join('\n'),
      'submissions/accepted/py/helper.py': 'H = 1',
      'submissions/accepted/py/solve.py': 'import helper\nAC',
      'submissions/accepted/echo.pl': 'print <STDIN>;\nAC',
      'submissions/accepted/prolog.pl': ':- initialization(main).\nAC',
      // both declare main: the default rules would refuse this folder as ambiguous
      'submissions/accepted/java/First.java': 'public class First { public static void main(String[] a) {} }',
      'submissions/accepted/java/Second.java': 'public class Second { public static void main(String[] a) {} }\nAC',
      'submissions/wrong_answer/w.py': 'WA',
      'submissions/run_time_error/gone/a.py': 'RTE',
      'submissions/run_time_error/gone/b.py': 'RTE',
    })
    const byFile = Object.fromEntries(report.rows.map((r) => [r.file, r]))
    expect(byFile['accepted/py/']).toMatchObject({ got: 'AC', outcome: 'pass', main: 'solve.py', lang: 'PYTHON3' })
    expect(byFile['accepted/echo.pl']).toMatchObject({ got: 'AC', outcome: 'pass', lang: 'PERL' })
    expect(byFile['accepted/prolog.pl']).toMatchObject({ lang: 'PROLOG_SWI' })
    expect(byFile['accepted/java/']).toMatchObject({ got: 'AC', outcome: 'pass', main: 'Second.java', lang: 'JAVA' })
    expect(byFile['wrong_answer/w.py']).toMatchObject({ outcome: 'fail', note: 'submissions/submissions.yaml wrong_answer/*: language "cobolx" is not a code of the format\'s languages table, DOMjudge\'s or Arbiter\'s' })
    expect(byFile['run_time_error/gone/']).toMatchObject({ outcome: 'fail', note: 'submissions/submissions.yaml run_time_error/{gone}: entrypoint "nothing.py" names none of the files (a.py, b.py)' })
    expect(jobs.find((j) => j.language === 'PYTHON3' && j.files)).toMatchObject({ source: 'import helper\nAC', files: [{ name: 'helper.py' }] })
    expect(jobs.find((j) => j.language === 'JAVA')!.source).toMatch(/class Second/)
    // submissions.yaml is no submission
    expect(report.rows.map((r) => r.file)).not.toContain('submissions.yaml')
  })

  it("DOMjudge's submissions.json: langid and entry_point; Arbiter's own code is taken too", async () => {
    const { report } = await verify({
      'submissions.json': JSON.stringify({ 'submissions/accepted/k/': { langid: 'python3', entry_point: 'run' }, 'submissions/accepted/x.cc': { langid: 'CPP20' } }),
      'submissions/accepted/k/run.py': 'AC',
      'submissions/accepted/k/lib.py': '',
      'submissions/accepted/x.cc': 'AC',
    })
    const byFile = Object.fromEntries(report.rows.map((r) => [r.file, r]))
    expect(byFile['accepted/k/']).toMatchObject({ got: 'AC', outcome: 'pass', main: 'run.py' })
    expect(byFile['accepted/x.cc']).toMatchObject({ got: 'AC', lang: 'CPP20' })
  })
})

describe('submissions as build/run folders (problemtools\' BuildRun)', () => {
  it('a folder with a build script: build is the compile step, run the command, every other file beside; its sources are not read', async () => {
    const { report, jobs } = await verify({
      'submissions/submissions.yaml': 'accepted/scripted:\n  language: java\n',
      'submissions/accepted/scripted/build': 'cc -o run echo.c\nAC',
      'submissions/accepted/scripted/echo.c': 'int main(){return 0;}',
      'submissions/accepted/deep/build': 'true\nAC',
      'submissions/accepted/deep/lib/x.c': '',
    })
    const byFile = Object.fromEntries(report.rows.map((r) => [r.file, r]))
    expect(byFile['accepted/scripted/']).toMatchObject({ got: 'AC', outcome: 'pass', lang: 'MULTIFILE', main: 'build', others: 1 })
    expect(byFile['accepted/deep/']).toMatchObject({ outcome: 'fail', note: 'lib/x.c: a program\'s files lie in one folder (no subfolders)' })
    expect(jobs).toHaveLength(1)
    expect(jobs[0]).toMatchObject({ language: 'MULTIFILE', source: 'cc -o run echo.c\nAC', sourceFileName: 'build', compileArgv: BUILD_ARGV, runArgv: RUN_ARGV, files: [{ name: 'echo.c' }] })
  })
})
