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
})
