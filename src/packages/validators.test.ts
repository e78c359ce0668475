// Output validators of Kattis/ICPC packages through the real worker and jail: the default validator
// with flags as a graded job's checker, and custom validators with the format's protocol (argv,
// stdin, feedback folder, 42/43), each fault of the grader's making IE, and a hostile validator that
// tries places it must not reach (host untouched, its planted links never followed).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { workerSettings } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { createJobRunner } from '../jobs/worker.ts'
import type { CheckerSpec } from '../grading/checkers.ts'

const scratch = mkdtempSync(join(tmpdir(), 'arbiter-validators-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: join(scratch, 'data') })
const victim = join(scratch, 'victim')
mkdirSync(victim, { mode: 0o755 })
writeFileSync(join(victim, 'file'), 'untouched')
const settings = { ...workerSettings(config), checker: { timeSec: 1, memoryKb: 262144, judgeTimeSec: 10 }, compileCache: undefined }
const runner = createJobRunner(settings, `validators-${process.pid}`)
afterAll(async () => {
  await runner.close()
  rmSync(scratch, { recursive: true, force: true })
})

const echo = '#include <stdio.h>\nint main(void){int c;while((c=getchar())!=EOF)putchar(c);return 0;}\n'
const graded = (checker: CheckerSpec, tests: { input: string; expectedOutput: string }[], source = echo) =>
  runner.run({ language: 'C', source, input: '', timeLimitSec: 2, memoryLimitKb: 262144, tests, checker } as Job)

describe('the default validator as a graded job\'s checker', () => {
  it('flags decide; the message is problemtools\'', { timeout: 120_000 }, async () => {
    const tests = [{ input: '3.14159\n', expectedOutput: '3.1416\n' }, { input: 'YES\n', expectedOutput: 'yes\n' }]
    const loose = await graded({ type: 'kattis', flags: ['float_tolerance', '1e-4'] }, tests)
    expect(loose.tests!.map((t) => t.status)).toEqual(['AC', 'AC'])
    const strict = await graded({ type: 'kattis', flags: ['case_sensitive'] }, tests)
    expect(strict.tests!.map((t) => t.status)).toEqual(['WA', 'WA'])
    expect(strict.tests![1].checkerMessage).toBe('Wrong answer on line 1 of output (corresponding to line 1 in answer file)\nString tokens mismatch\nJudge: "yes"\nUser: "YES"')
  })
})

/** A validator in C: checks its argv and files, compares stdin's first word with the answer's. */
const VALIDATOR_H = '#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n#include <sys/stat.h>\nstatic FILE *fb(const char *dir, const char *name){char p[512];snprintf(p,sizeof p,"%s/%s",dir,name);return fopen(p,"w");}\n'
const fairValidator = `#include "validate.h"
int main(int argc, char **argv) {
  if (argc < 4) return 1;
  struct stat st;
  if (stat(argv[3], &st) || !S_ISDIR(st.st_mode)) return 2;
  char ans[100] = "", in[100] = "", out[100] = "";
  FILE *a = fopen(argv[2], "r"), *i = fopen(argv[1], "r");
  if (!a || !i) return 3;
  fscanf(a, "%99s", ans); fscanf(i, "%99s", in);
  if (scanf("%99s", out) != 1) out[0] = 0;
  FILE *j = fb(argv[3], "judgemessage.txt");
  fprintf(j, "input %s answer %s output %s flags %d%s%s", in, ans, out, argc - 4, argc > 4 ? " " : "", argc > 4 ? argv[4] : "");
  fclose(j);
  if (strcmp(ans, out)) { FILE *t = fb(argv[3], "teammessage.txt"); fputs("try again", t); fclose(t); return 43; }
  return 42;
}
`
const custom = (source: string, flags: string[] = []): CheckerSpec => ({ type: 'output_validator', lang: 'CPP17', source, files: [{ name: 'validate.h', content: VALIDATOR_H }], flags })
const one = [{ input: 'hello\n', expectedOutput: 'hello\n' }]

describe('a custom output validator', () => {
  it('argv input judge_answer feedback_dir flags, the output on stdin: 42 AC, 43 WA, its messages', { timeout: 120_000 }, async () => {
    const r = await graded(custom(fairValidator, ['-x']), [{ input: 'hello\n', expectedOutput: 'hello\n' }, { input: 'bye\n', expectedOutput: 'hello\n' }])
    expect(r.tests!.map((t) => t.status)).toEqual(['AC', 'WA'])
    expect(r.tests![0].checkerMessage).toBe('input hello answer hello output hello flags 1 -x')
    expect(r.tests![1].checkerMessage).toBe('input bye answer hello output bye flags 1 -x\ntry again')
  })

  it.each([
    ['exits 1', 'int main(){return 1;}', /exited with 1/],
    ['exits 0', 'int main(){return 0;}', /exited with 0/],
    ['aborts', '#include <cstdlib>\nint main(){abort();}', /killed by SIGABRT/],
    ['loops', 'int main(){volatile unsigned x=0;for(;;)x++;}', /exceeded its (time|wall) limit/],
    ['writes score.txt in a pass-fail problem', '#include "validate.h"\nint main(int c,char**v){FILE*f=fb(v[3],"score.txt");fputs("5",f);fclose(f);return 42;}', /score\.txt/],
    ['writes score.txt and rejects', '#include "validate.h"\nint main(int c,char**v){FILE*f=fb(v[3],"score.txt");fputs("5",f);fclose(f);return 43;}', /score\.txt on a rejection/],
    ['does not compile', 'int main( {', /does not compile/],
  ])('that %s is IE, never the student\'s verdict', { timeout: 120_000 }, async (_, source, message) => {
    const r = await graded(custom(source), one)
    expect(r.tests![0].status).toBe('IE')
    expect(r.tests![0].checkerMessage).toMatch(message)
  })

  it('that tries the host, replaces its feedback folder by a link, or leaves its messages as links: IE or refused, host untouched', { timeout: 120_000 }, async () => {
    const tries = `#include "validate.h"
#include <unistd.h>
int main(int argc, char **argv) {
  FILE *f = fopen("${victim}/file", "w"); if (f) { fputs("changed", f); fclose(f); }
  f = fopen("${victim}/new", "w"); if (f) fclose(f);
  f = fopen("/var/lib/arbiter/planted", "w"); if (f) fclose(f);
  f = fopen("/etc/planted", "w"); if (f) fclose(f);
  MODE
  return 42;
}
`
    const linkMessage = tries.replace('MODE', `symlink("/etc/shadow", "feedback/judgemessage.txt"); symlink("${victim}/file", "feedback/teammessage.txt");`)
    const linkFolder = tries.replace('MODE', `rename("feedback", "gone"); symlink("${victim}", "feedback");`)
    const fifo = tries.replace('MODE', 'mkfifo("feedback/judgemessage.txt", 0666);')
    for (const source of [linkMessage, linkFolder, fifo]) {
      const r = await graded(custom(source), one)
      expect(r.tests![0].status).toBe('IE')
      expect(r.tests![0].checkerMessage).not.toMatch(/root:/)
    }
    expect(readFileSync(join(victim, 'file'), 'utf8')).toBe('untouched')
    expect(readdirSync(victim)).toEqual(['file'])
    expect(() => readFileSync('/etc/planted')).toThrow()
    expect(() => readFileSync('/var/lib/arbiter/planted')).toThrow()
  })

  it('a Python validator, its files beside it', { timeout: 120_000 }, async () => {
    const source = 'import sys\nfrom helper import same\nans = open(sys.argv[2]).read()\nsys.exit(42 if same(ans, sys.stdin.read()) else 43)\n'
    const checker: CheckerSpec = { type: 'output_validator', lang: 'PYTHON3', source, files: [{ name: 'helper.py', content: 'def same(a, b):\n    return a.split() == b.split()\n' }] }
    const r = await graded(checker, [{ input: 'a  b\n', expectedOutput: 'a b' }, { input: 'a c', expectedOutput: 'a b' }])
    expect(r.tests!.map((t) => t.status)).toEqual(['AC', 'WA'])
  })
})

describe('scores and per-test flags (scoring packages, per-group output_validator_flags)', () => {
  // the score is the first word of the input; "none" writes no score.txt, "bad" writes a word
  const scorer = `#include "validate.h"
int main(int argc, char **argv) {
  char in[100] = ""; FILE *i = fopen(argv[1], "r"); fscanf(i, "%99s", in);
  if (strcmp(in, "none")) { FILE *s = fb(argv[3], "score.txt"); fputs(strcmp(in, "bad") ? in : "many", s); fclose(s); }
  FILE *j = fb(argv[3], "judgemessage.txt"); fprintf(j, "flags %d%s%s", argc - 4, argc > 4 ? " " : "", argc > 4 ? argv[argc - 1] : ""); fclose(j);
  return 42;
}
`
  const tests = [{ input: '12.5\n', expectedOutput: '' }, { input: 'none\n', expectedOutput: '' }, { input: 'bad\n', expectedOutput: '' }, { input: ' 3e1 \n', expectedOutput: '', checkerFlags: ['group_flag'] }]
  const scored = (validatorScores?: Job['validatorScores']) => runner.run({ language: 'C', source: echo, input: '', timeLimitSec: 2, memoryLimitKb: 262144, tests, checker: custom(scorer, ['problem_flag']), ...(validatorScores && { validatorScores }) } as Job)

  it('allowed: score.txt is the test\'s score (a number, else IE), none is no score; a test\'s flags replace the checker\'s', { timeout: 120_000 }, async () => {
    const r = await scored('allowed')
    expect(r.tests!.map((t) => [t.status, t.score])).toEqual([['AC', 12.5], ['AC', undefined], ['IE', undefined], ['AC', 30]])
    expect(r.tests![2].checkerMessage).toMatch(/score\.txt that is not a finite number/)
    expect(r.tests![0].checkerMessage).toBe('flags 1 problem_flag')
    expect(r.tests![3].checkerMessage).toBe('flags 1 group_flag')
  })

  it('required: an accepted test without score.txt is IE; absent: any score.txt is IE (a problem without scores)', { timeout: 120_000 }, async () => {
    expect((await scored('required')).tests!.map((t) => t.status)).toEqual(['AC', 'IE', 'IE', 'AC'])
    expect((await scored()).tests!.map((t) => t.status)).toEqual(['IE', 'AC', 'IE', 'IE'])
  })

  it('the default validator takes a test\'s flags too', { timeout: 120_000 }, async () => {
    const r = await runner.run({ language: 'C', source: echo, input: '', timeLimitSec: 2, memoryLimitKb: 262144, checker: { type: 'kattis', flags: ['case_sensitive'] }, tests: [{ input: 'YES\n', expectedOutput: 'yes\n' }, { input: 'YES\n', expectedOutput: 'yes\n', checkerFlags: [] }] } as Job)
    expect(r.tests!.map((t) => t.status)).toEqual(['WA', 'AC'])
  })
})
