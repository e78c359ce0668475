// `cli grade` as a grader runs it: the real CLI process, real jail and toolchains.
import { execa } from 'execa'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const tmp = mkdtempSync(join(tmpdir(), 'arbiter-grade-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const tests = join(tmp, 'tests')
mkdirSync(tests)
for (const [name, input, out] of [['1', '1 2', '3'], ['2', '5 5', '10'], ['10', '2 2', '5']]) {
  writeFileSync(join(tests, `${name}.in`), `${input}\n`)
  writeFileSync(join(tests, `${name}.out`), `${out}\n`)
}
writeFileSync(join(tmp, 'sum.py'), 'a, b = map(int, input().split())\nprint(a + b)\n')
writeFileSync(join(tmp, 'cheat.py'), 'a, b = map(int, input().split())\nprint(5 if a == b == 2 else a + b)\n')
writeFileSync(join(tmp, 'bad.c'), 'int main(void) { return 0 }\n')

const grade = async (...args: string[]) => {
  const r = await execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'grade', ...args], { cwd: ROOT, env: { ARBITER_DATA: mkdtempSync(join(tmp, 'data-')) }, reject: false })
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr }
}

describe('cli grade', { timeout: 120_000 }, () => {
  test('one line per test in natural order, a score, exit code 1 when a test fails', async () => {
    const r = await grade('--lang', 'PYTHON3', '--source', join(tmp, 'sum.py'), '--tests', tests)
    expect(r.code, r.stderr).toBe(1)
    const lines = r.stdout.split('\n')
    expect(lines.filter((l) => l.startsWith('test ')).map((l) => l.split(/\s+/).slice(1, 3))).toEqual([['1', 'AC'], ['2', 'AC'], ['10', 'WA']])
    expect(lines.at(-1)).toBe('score: 2 of 3 tests passed (WA)')
  })

  test('exit code 0 only when every test passed; --json prints the API\'s result', async () => {
    const r = await grade('--lang', 'PYTHON3', '--source', join(tmp, 'cheat.py'), '--tests', tests, '--json')
    expect(r.code, r.stderr).toBe(0)
    const result = JSON.parse(r.stdout)
    expect(result.score).toEqual({ passed: 3, total: 3, points: 3, max_points: 3 })
    expect(result.run_status.status).toBe('AC')
    expect(result.tests.map((t: { id: string; output: string }) => [t.id, t.output])).toEqual([['1', '3\n'], ['2', '10\n'], ['10', '5\n']])
  })

  test('a compile error prints the compiler\'s message and exits 1; bad arguments are clear errors', async () => {
    const ce = await grade('--lang', 'C', '--source', join(tmp, 'bad.c'), '--tests', tests)
    expect(ce.code).toBe(1)
    expect(ce.stdout).toMatch(/error: expected .;. before/)
    const bad = await grade('--lang', 'PYTHON3', '--source', join(tmp, 'sum.py'), '--tests', tests, '--checker', 'nearly')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/--checker must be/)
    const nodir = await grade('--lang', 'PYTHON3', '--source', join(tmp, 'sum.py'), '--tests', join(tmp, 'nothere'))
    expect(nodir.stderr).toMatch(/is not a folder/)
  })

  test("--problem of a stored scoring package: the package's verdict and score with its groups, as a v4 submission gets them", async () => {
    // a scoring package of two groups that continue past a rejection; its time limit is fixed (no run at import)
    const pkg = join(tmp, 'scoring')
    const put = (name: string, text: string) => {
      mkdirSync(join(pkg, name, '..'), { recursive: true })
      writeFileSync(join(pkg, name), text)
    }
    put('problem.yaml', 'problem_format_version: 2023-07-draft\nname: Two groups\ntype: scoring\nlimits:\n  time_limit: 2\n')
    put('data/secret/testdata.yaml', 'on_reject: continue\ngrader_flags: sum accept_if_any_accepted\n')
    put('data/secret/a/testdata.yaml', 'on_reject: break\naccept_score: 30\ngrader_flags: min\n')
    put('data/secret/b/testdata.yaml', 'on_reject: break\naccept_score: 70\ngrader_flags: min\n')
    for (const [name, input, out] of [['a/1', '1 2', '3'], ['b/1', '2 2', '4'], ['b/2', '5 5', '10']]) {
      put(`data/secret/${name}.in`, `${input}\n`)
      put(`data/secret/${name}.ans`, `${out}\n`)
    }
    const data = mkdtempSync(join(tmp, 'data-'))
    const cli = (...args: string[]) => execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: { ARBITER_DATA: data }, reject: false })
    expect((await cli('clients', 'create', '--name', 'teacher')).exitCode).toBe(0)
    const imported = await cli('problems', 'import', pkg, '--client', 'teacher')
    expect(imported.exitCode, imported.stderr).toBe(0)
    const id = JSON.parse(imported.stdout).problem_id
    // cheat.py is wrong only on 2 2: group a 30, group b rejected
    const r = await cli('grade', '--lang', 'PYTHON3', '--source', join(tmp, 'cheat.py'), '--problem', id, '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const result = JSON.parse(r.stdout)
    expect(result.run_status.status).toBe('AC')
    expect(result.score.package).toEqual({
      verdict: 'AC',
      score: 30,
      max_score: null,
      groups: [
        { group: 'secret/a', verdict: 'AC', score: 30 },
        { group: 'secret/b', verdict: 'WA', score: 0 },
        { group: 'secret', verdict: 'AC', score: 30 },
        { group: '', verdict: 'AC', score: 30 },
      ],
    })
  })
})
