// Output validators given as build/run scripts (problemtools' BuildRun) through the real worker and
// jail: build compiles (c++ in the jail's root) or does nothing, run is a shell script, a #! script or
// the binary build made; a build that fails or leaves no run, and a run that crashes, are the grader's
// fault (IE), never the student's verdict; an interactive validator as build/run; built once per
// problem through the compile cache.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { workerSettings } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { createJobRunner } from '../jobs/worker.ts'
import { withTestSandbox } from '../testing/sandbox-bin.ts'
import type { CheckerSpec } from './checkers.ts'

const scratch = mkdtempSync(join(tmpdir(), 'arbiter-build-run-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: join(scratch, 'data') })
const base = withTestSandbox({ ...workerSettings(config), checker: { timeSec: 5, memoryKb: 262144, judgeTimeSec: 10 } })
const runner = createJobRunner({ ...base, compileCache: undefined }, `build-run-${process.pid}`)
const cached = createJobRunner({ ...base, compileCache: { dir: join(scratch, 'cache'), maxBytes: 64 << 20 } }, `build-run-c-${process.pid}`)
afterAll(async () => {
  await runner.close()
  await cached.close()
  rmSync(scratch, { recursive: true, force: true })
})

const echo = '#include <stdio.h>\nint main(void){int c;while((c=getchar())!=EOF)putchar(c);return 0;}\n'
const graded = (checker: CheckerSpec, tests: { input: string; expectedOutput: string }[], source = echo, on = runner) =>
  on.run({ language: 'C', source, input: '', timeLimitSec: 2, memoryLimitKb: 262144, tests, checker } as Job)
const buildRun = (build: string, files: Record<string, string>, extra: Partial<Extract<CheckerSpec, { type: 'output_validator' }>> = {}): CheckerSpec => ({
  type: 'output_validator',
  lang: 'MULTIFILE',
  source: build,
  files: Object.entries(files).map(([name, content]) => ({ name, content })),
  build: true,
  ...extra,
})
const tests = [
  { input: 'hello\n', expectedOutput: 'hello\n' },
  { input: 'bye\n', expectedOutput: 'hello\n' },
]

/** A C++ validator: the output's first word against the answer's, with its argv in the judge message. */
const VALIDATE_CC = `#include <cstdio>
#include <cstring>
#include <string>
int main(int argc, char **argv) {
  char ans[100] = "", out[100] = "";
  FILE *a = std::fopen(argv[2], "r");
  if (!a || std::fscanf(a, "%99s", ans) != 1) return 1;
  if (std::scanf("%99s", out) != 1) out[0] = 0;
  std::string dir = argv[3];
  FILE *j = std::fopen((dir + "/judgemessage.txt").c_str(), "w");
  std::fprintf(j, "c++ validator: %s vs %s, %d flags", out, ans, argc - 4);
  std::fclose(j);
  return std::strcmp(ans, out) ? 43 : 42;
}
`

describe('an output validator as build/run scripts', () => {
  it('build compiles with c++ in the jail and leaves run (a #!/bin/sh script): 42 AC, 43 WA, its argv and messages', { timeout: 180_000 }, async () => {
    const checker = buildRun('#!/bin/sh\nset -e\nc++ -O2 -o validate validate.cc\nprintf \'#!/bin/sh\\nexec ./validate "$@"\\n\' > run\n', { 'validate.cc': VALIDATE_CC }, { flags: ['-x', 'y'] })
    const r = await graded(checker, tests)
    expect(r.compile.ok).toBe(true)
    expect(r.tests!.map((t) => t.status)).toEqual(['AC', 'WA'])
    expect(r.tests![0].checkerMessage).toBe('c++ validator: hello vs hello, 2 flags')
    expect(r.tests![1].checkerMessage).toBe('c++ validator: bye vs hello, 2 flags')
  })

  it('build may make run a binary; a build without #! runs with bash', { timeout: 180_000 }, async () => {
    const r = await graded(buildRun('[[ -f validate.cc ]] && c++ -o run validate.cc\n', { 'validate.cc': VALIDATE_CC }), tests)
    expect(r.tests!.map((t) => t.status)).toEqual(['AC', 'WA'])
    expect(r.tests![1].checkerMessage).toBe('c++ validator: bye vs hello, 0 flags')
  })

  it('a run given in the package, with its #! interpreter (python3) and one argument; build doing nothing', { timeout: 180_000 }, async () => {
    const run = '#!/usr/bin/env python3\nimport sys\nans = open(sys.argv[2]).read().split()\nout = sys.stdin.read().split()\nopen(sys.argv[3] + "/judgemessage.txt", "w").write("python run: " + " ".join(sys.argv[4:]))\nsys.exit(42 if ans == out else 43)\n'
    const r = await graded(buildRun('#!/bin/bash -e\ntrue\n', { run }, { flags: ['f'] }), tests)
    expect(r.tests!.map((t) => t.status)).toEqual(['AC', 'WA'])
    expect(r.tests![0].checkerMessage).toBe('python run: f')
    // a run without #! runs with bash
    const sh = await graded(buildRun('true\n', { run: 'read -r out; read -r ans < "$2"; [ "$out" = "$ans" ] && exit 42; exit 43\n' }), tests)
    expect(sh.tests!.map((t) => t.status)).toEqual(['AC', 'WA'])
  })

  it.each([
    ['a build that fails', 'echo "validate.cc: no such compiler" >&2\nexit 3\n', {}, /checker does not compile: [^]*validate\.cc: no such compiler[^]*build exited with code 3/],
    ['a build that leaves no run', 'echo built\n', {}, /build script did not produce a file called "run"/],
    ['a build that leaves run as a link', 'ln -s /bin/true run\n', {}, /build script did not produce a file called "run"/],
    ['a run that crashes', 'true\n', { run: 'kill -SEGV $$\n' }, /SIGSEGV/],
    ['a run that exits 1', 'true\n', { run: 'echo "validator broke" >&2; exit 1\n' }, /exited with 1/],
    ['a run whose interpreter is not there', 'true\n', { run: '#!/usr/bin/pypy3\nprint(1)\n' }, /exited with 12[67]/],
  ])('%s: IE, never the student\'s verdict', { timeout: 180_000 }, async (_, build, files, message) => {
    const r = await graded(buildRun(build, files as Record<string, string>), tests)
    expect(r.compile.ok).toBe(true)
    expect(r.tests![0].status).toBe('IE')
    expect(r.tests![0].checkerMessage).toMatch(message)
  })

  it('interactive: the validator\'s run script and the submission wired to each other', { timeout: 180_000 }, async () => {
    // sends the input's number, expects twice it back
    const run = '#!/bin/bash\nread -r n < "$1"\necho "$n"\nread -r r || { echo "no answer" > "$3/judgemessage.txt"; exit 43; }\n[ "$r" = $((2 * n)) ] && { echo "doubled" > "$3/judgemessage.txt"; exit 42; }\necho "got $r" > "$3/judgemessage.txt"; exit 43\n'
    const checker = buildRun('true\n', { run }, { interactive: true })
    const double = '#include <stdio.h>\nint main(void){int n;if(scanf("%d",&n)!=1)return 1;printf("%d\\n",2*n);fflush(stdout);return 0;}\n'
    const wrong = '#include <stdio.h>\nint main(void){int n;if(scanf("%d",&n)!=1)return 1;printf("%d\\n",n);fflush(stdout);return 0;}\n'
    const io = [{ input: '21\n', expectedOutput: '' }]
    const ok = await graded(checker, io, double)
    expect(ok.tests!.map((t) => [t.status, t.checkerMessage])).toEqual([['AC', 'doubled']])
    const no = await graded(checker, io, wrong)
    expect(no.tests!.map((t) => [t.status, t.checkerMessage])).toEqual([['WA', 'got 21']])
    const crash = await graded(buildRun('true\n', { run: '#!/bin/bash\nexit 5\n' }, { interactive: true }), io, double)
    expect(crash.tests![0].status).toBe('IE')
  })

  it('built once per problem: the compile cache keeps what build made across jobs', { timeout: 180_000 }, async () => {
    // build stamps itself with a random number that run reports
    const checker = buildRun('od -An -N8 -tx8 /dev/urandom | tr -d " " > stamp\nprintf \'cat stamp > "$3/judgemessage.txt"; exit 42\\n\' > run\n', {})
    const first = await graded(checker, tests.slice(0, 1), echo, cached)
    const second = await graded(checker, tests.slice(0, 1), echo, cached)
    expect(first.tests![0].status).toBe('AC')
    expect(first.tests![0].checkerMessage).toMatch(/^[0-9a-f]{16}$/)
    expect(second.tests![0].checkerMessage).toBe(first.tests![0].checkerMessage)
    // without the cache each job builds again
    const other = await graded(checker, tests.slice(0, 1))
    expect(other.tests![0].checkerMessage).not.toBe(first.tests![0].checkerMessage)
  })
})
