// Multi-file submissions end to end (real jail): a package of our own whose submissions are folders —
// Java (the class with main is not Main), Python (main.py imports a module beside it), C++ (two sources
// and a header compiled together), a wrong C++ one and an ambiguous Python one — verified by `cli
// problems verify`; the same programs graded through the v4 API of a real server (files) and by `cli
// grade` of a folder; an ambiguous entry point refused with its reason, the bounds refused at the edge.
import { execa } from 'execa'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { V4Reply } from '../hackerearth/schemas.ts'
import { api, json, startServer, waitUntil } from '../testing/harness.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const tmp = mkdtempSync(join(tmpdir(), 'arbiter-multifile-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const SOL_CPP = '#include <cstdio>\n#include "add.h"\nint main() { int a, b; std::scanf("%d %d", &a, &b); std::printf("%d\\n", add(a, b)); }\n'
const PROGRAMS: Record<string, Record<string, string>> = {
  java: {
    'Solver.java': 'import java.util.Scanner;\npublic class Solver {\n  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n    System.out.println(Adder.add(in.nextInt(), in.nextInt()));\n  }\n}\n',
    'Adder.java': 'public class Adder {\n  static int add(int a, int b) { return a + b; }\n}\n',
  },
  py: { 'main.py': 'from adder import add\na, b = map(int, input().split())\nprint(add(a, b))\n', 'adder.py': 'def add(a, b):\n    return a + b\n' },
  cpp: { 'sol.cpp': SOL_CPP, 'add.h': 'int add(int a, int b);\n', 'add.cpp': '#include "add.h"\nint add(int a, int b) { return a + b; }\n' },
}
const PACKAGE: Record<string, string> = {
  'problem.yaml': 'name: Sum\n',
  'data/sample/1.in': '1 2\n', 'data/sample/1.ans': '3\n',
  'data/secret/1.in': '40 2\n', 'data/secret/1.ans': '42\n',
  'data/secret/2.in': '-5 5\n', 'data/secret/2.ans': '0\n',
  ...Object.fromEntries(Object.entries(PROGRAMS).flatMap(([dir, files]) => Object.entries(files).map(([n, t]) => [`submissions/accepted/${dir}/${n}`, t]))),
  'submissions/wrong_answer/cpp/sol.cpp': SOL_CPP,
  'submissions/wrong_answer/cpp/add.h': 'int add(int a, int b);\n',
  'submissions/wrong_answer/cpp/add.cpp': '#include "add.h"\nint add(int a, int b) { return a - b; }\n',
  'submissions/wrong_answer/ambiguous/a.py': 'print(0)\n',
  'submissions/wrong_answer/ambiguous/b.py': 'print(1)\n',
}
const write = (dir: string, files: Record<string, string>) => {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true })
    writeFileSync(join(dir, file), text)
  }
  return dir
}
const cli = async (env: Record<string, string>, ...args: string[]) => {
  const r = await execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env, reject: false })
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr }
}

describe('multi-file submissions', { timeout: 600_000 }, () => {
  it('problems verify runs each folder as one program: Java, Python and C++ accepted, a wrong C++ one WA, an ambiguous one failed with its reason', async () => {
    const dir = write(join(tmp, 'sum'), PACKAGE)
    const r = await cli({ ARBITER_DATA: mkdtempSync(join(tmp, 'data-')) }, 'problems', 'verify', dir, '--json')
    const report = JSON.parse(r.stdout)
    const rows = Object.fromEntries(report.rows.map((row: { file: string; lang?: string; main?: string; got?: string; outcome: string; note?: string }) => [row.file, [row.lang, row.main, row.got, row.outcome]]))
    expect(rows).toEqual({
      'accepted/cpp/': ['CPP17', 'sol.cpp', 'AC', 'pass'],
      'accepted/java/': ['JAVA', 'Solver.java', 'AC', 'pass'],
      'accepted/py/': ['PYTHON3', 'main.py', 'AC', 'pass'],
      'wrong_answer/ambiguous/': ['PYTHON3', undefined, undefined, 'fail'],
      'wrong_answer/cpp/': ['CPP17', 'sol.cpp', 'WA', 'pass'],
    })
    expect(report.rows.find((row: { file: string }) => row.file === 'wrong_answer/ambiguous/').note).toMatch(/ambiguous entry point: several Python 3 files \(a\.py, b\.py\) and none is named main\.py/)
    expect(r.code).toBe(1)
    // the table names each folder's entry point
    const table = await cli({ ARBITER_DATA: mkdtempSync(join(tmp, 'data-')) }, 'problems', 'verify', dir)
    expect(table.stdout).toMatch(/accepted\/java\/Solver\.java \+1\s+AC\s+AC/)
  })

  it('cli grade of a folder: the language by extension, the entry point by the rules; --entry-point settles an ambiguous one', async () => {
    const tests = write(join(tmp, 'tests'), { '1.in': '1 2\n', '1.out': '3\n', '2.in': '40 2\n', '2.out': '42\n' })
    const env = { ARBITER_DATA: mkdtempSync(join(tmp, 'data-')) }
    for (const name of Object.keys(PROGRAMS)) {
      const r = await cli(env, 'grade', '--source', join(tmp, 'sum', 'submissions', 'accepted', name), '--tests', tests)
      expect(r.stdout, r.stderr).toMatch(/score: 2 of 2 tests passed \(AC\)/)
      expect(r.code).toBe(0)
    }
    const ambiguous = join(tmp, 'sum', 'submissions', 'wrong_answer', 'ambiguous')
    const refused = await cli(env, 'grade', '--source', ambiguous, '--tests', tests)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/ambiguous entry point/)
    const settled = await cli(env, 'grade', '--source', ambiguous, '--entry-point', 'b.py', '--tests', tests)
    expect(settled.stdout).toMatch(/test 1\s+WA/)
  })

  it('v4 files through the real server: Java, Python and C++ graded AC; ambiguity, source with files, too many files and too many bytes refused at the edge', async () => {
    const server = await startServer({ configToml: '[limits]\nfiles_max_count = 4\nfiles_max_bytes = 65536\n' })
    try {
      const http = api(server.url)
      const secret = await server.createClient('teacher')
      const headers = { 'client-secret': secret, 'content-type': 'application/json' }
      const test_cases = [{ input: '1 2\n', expected_output: '3\n' }, { input: '40 2\n', expected_output: '42\n' }]
      const post = async (body: object) => {
        const r = await http.post('/v4/partner/code-evaluation/submissions/', JSON.stringify(body), headers)
        return { status: r.status, body: await json(r) }
      }
      const files = (o: Record<string, string>) => Object.entries(o).map(([name, content]) => ({ name, content }))
      for (const [name, lang] of [['java', 'JAVA'], ['py', 'PYTHON3'], ['cpp', 'CPP17']] as const) {
        const q = await post({ lang, files: files(PROGRAMS[name]), test_cases })
        expect(q.status, JSON.stringify(q.body)).toBe(200)
        let done: V4Reply | undefined
        await waitUntil(async () => (done = (await json(await http.get(`/v4/partner/code-evaluation/submissions/${q.body.he_id}/`, { 'client-secret': secret }))) as V4Reply).request_status.code === 'REQUEST_COMPLETED', 120_000, `${name} completion`)
        expect([name, done!.result.compile_status, done!.result.run_status.status]).toEqual([name, 'OK', 'AC'])
      }
      const ambiguous = await post({ lang: 'PYTHON3', files: files({ 'a.py': 'print(3)', 'b.py': 'print(4)' }), test_cases })
      expect(ambiguous.status).toBe(400)
      expect(JSON.stringify(ambiguous.body)).toMatch(/files: ambiguous entry point: several Python 3 files \(a\.py, b\.py\) and none is named main\.py/)
      const chosen = await post({ lang: 'PYTHON3', files: files({ 'a.py': 'print(3)', 'b.py': 'print(4)' }), entry_point: 'a.py', test_cases })
      expect(chosen.status).toBe(200)
      const both = await post({ lang: 'PYTHON3', source: 'print(3)', files: files({ 'a.py': 'print(3)' }), test_cases })
      expect(both.status).toBe(400)
      expect(JSON.stringify(both.body)).toMatch(/give either source or files, not both/)
      const many = await post({ lang: 'CPP17', files: Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.cpp`, content: i ? '' : 'int main(){}' })), test_cases })
      expect(many.status).toBe(413)
      expect(JSON.stringify(many.body)).toMatch(/more than 5 files/)
      const large = await post({ lang: 'PYTHON3', files: [{ name: 'main.py', content: 'print(3)' }, { name: 'data.txt', content: 'x'.repeat(400_000) }], test_cases })
      expect(large.status).toBe(413)
      expect(JSON.stringify(large.body)).toMatch(/larger than/)
      const unsafe = await post({ lang: 'PYTHON3', files: [{ name: 'main.py', content: 'print(3)' }, { name: '../x.py', content: '' }], test_cases })
      expect(unsafe.status).toBe(400)
    } finally {
      await server.stop()
      server.cleanup()
    }
  })
})
