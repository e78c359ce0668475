// Interactive and multi-pass Kattis/ICPC problems through the real worker and jail, with tiny packages
// written here: the validator and the submission at once, each in its own jail (the validator in the
// worker's second slot), wired stdout to stdin both ways; problemtools' rules for who decides (a
// validator's fault is JE/IE, an early rejection WA, then the submission's TLE and RTE); both hanging
// bounded; multi-pass with nextpass.in and past the pass limit.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { workerSettings } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { createJobRunner } from '../jobs/worker.ts'
import { makeTree } from '../testing/zips.ts'
import { withTestSandbox } from '../testing/sandbox-bin.ts'
import { importPackage } from './import.ts'
import { readPackageDir } from './package-files.ts'
import { verifyPackage, type SubmissionRow } from './verify.ts'

const scratch = mkdtempSync(join(tmpdir(), 'arbiter-interactive-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: join(scratch, 'data') })
const settings = withTestSandbox({ ...workerSettings(config), checker: { timeSec: 2, memoryKb: 262144, judgeTimeSec: 10 }, compileCache: undefined })
const runner = createJobRunner(settings, `interactive-${process.pid}`)
afterAll(async () => {
  await runner.close()
  rmSync(scratch, { recursive: true, force: true })
})

/**
 * The validator: its input file holds a mode and a number n. "play": it sends n, expects 2n back, then
 * says "bye" and accepts; "crash" aborts; "hang" sleeps, whatever happens; "early" rejects at once;
 * "exit7" exits 7 at once.
 */
const VALIDATOR = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void say(const char *dir, const char *name, const char *text) {
  char p[512]; snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "w"); if (f) { fputs(text, f); fclose(f); }
}
int main(int argc, char **argv) {
  char mode[16] = ""; int n = 0;
  FILE *in = fopen(argv[1], "r");
  if (!in || fscanf(in, "%15s %d", mode, &n) != 2) return 1;
  if (!strcmp(mode, "crash")) abort();
  if (!strcmp(mode, "hang")) for (;;) pause();
  if (!strcmp(mode, "early")) { say(argv[3], "judgemessage.txt", "rejected at once"); return 43; }
  if (!strcmp(mode, "exit7")) return 7;
  printf("%d\\n", n);
  fflush(stdout);
  int r;
  if (scanf("%d", &r) != 1) { say(argv[3], "judgemessage.txt", "no answer"); return 43; }
  if (r != 2 * n) { char m[64]; snprintf(m, sizeof m, "got %d, not %d", r, 2 * n); say(argv[3], "judgemessage.txt", m); return 43; }
  printf("bye\\n");
  fflush(stdout);
  say(argv[3], "teammessage.txt", "well played");
  return 42;
}
`

/** Submissions, each a whole C program. */
const SUB = {
  // reads n, answers 2n, reads the goodbye
  good: '#include <stdio.h>\nint main(void){int n;char b[8];if(scanf("%d",&n)!=1)return 1;printf("%d\\n",2*n);fflush(stdout);scanf("%7s",b);return 0;}\n',
  wrong: '#include <stdio.h>\nint main(void){int n;scanf("%d",&n);printf("%d\\n",2*n+1);return 0;}\n',
  // ends before reading anything: the validator then reads end of file and rejects, after it
  leaves: 'int main(void){return 0;}\n',
  crashes: '#include <stdlib.h>\nint main(void){exit(3);}\n',
  // reads n and then waits for more input that never comes (the validator waits too): the wall limit
  hangs: '#include <stdio.h>\nint main(void){int n,m;scanf("%d",&n);scanf("%d",&m);return 0;}\n',
  spins: 'int main(void){volatile unsigned long x=0;for(;;)x++;}\n',
  // floods its stdout with wrong answers: the validator rejects the first and ends, the flood then ends by SIGPIPE
  floods: '#include <stdio.h>\nint main(void){for(;;)fputs("1 1 1 1 1 1 1 1\\n",stdout);}\n',
  // looks for anything other than its peer: the network, other processes, the validator's files; if
  // it finds any it exits 1 (RTE), else it answers as the good one (AC)
  prober: `#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
int main(void) {
  int found = 0;
  int ports[] = {22, 80, 443, 6379, 8080};
  for (int i = 0; i < 5; i++) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(ports[i]); a.sin_addr.s_addr = htonl(0x7f000001);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) found |= 1;
    if (s >= 0) close(s);
  }
  int u = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un ua = {0}; ua.sun_family = AF_UNIX; strcpy(ua.sun_path + 1, "arbiter");
  if (u >= 0 && connect(u, (struct sockaddr *)&ua, sizeof ua) == 0) found |= 2;
  struct stat st;
  if (stat("judge_answer", &st) == 0 || stat("feedback", &st) == 0 || stat("/work/feedback", &st) == 0) found |= 4;
  DIR *d = opendir("/proc"); struct dirent *e; char p[300], buf[4096];
  while (d && (e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
    FILE *f = fopen(p, "r"); if (!f) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f); fclose(f);
    for (size_t i = 0; i < n; i++) if (!buf[i]) buf[i] = ' ';
    buf[n] = 0;
    if (strstr(buf, "judge_answer")) found |= 8;
  }
  if (!fstat(0, &st) && !S_ISFIFO(st.st_mode)) found |= 16;
  if (found) return 1;
  int n; char b[8];
  if (scanf("%d", &n) != 1) return 1;
  printf("%d\\n", 2 * n); fflush(stdout); scanf("%7s", b);
  return 0;
}
`,
}

const YAML = (extra = '') => `problem_format_version: 2023-07-draft\nname: Double\ntype: interactive\nlimits:\n  time_limit: 1\n${extra}`

async function verify(name: string, files: Record<string, string>): Promise<Map<string, SubmissionRow>> {
  const dir = makeTree(scratch, name, files)
  const pkg = readPackageDir(dir, { maxFiles: 500, fileBytes: 1 << 20, totalBytes: 4 << 20 })
  const imported = importPackage(pkg, { fallbackName: name, maxTests: 100, verifyOnly: true })
  const submissions = new Map([...pkg.files].filter(([p]) => p.startsWith('submissions/')))
  const report = await verifyPackage(imported, submissions, { canRun: () => true, run: (job) => runner.run(job), maxTimeSec: 4, memoryLimitKb: 262144 })
  return new Map(report.rows.map((r) => [r.file, r]))
}

const got = (rows: Map<string, SubmissionRow>) => Object.fromEntries([...rows].map(([f, r]) => [f, r.got]))

describe('interactive: the validator and the submission at once, wired to each other', () => {
  it('each submission gets problemtools\' verdict: the validator\'s, an early rejection WA, then TLE, then RTE', { timeout: 300_000 }, async () => {
    const rows = await verify('double', {
      'problem.yaml': YAML(),
      'data/secret/1.in': 'play 21\n',
      'data/secret/1.ans': '',
      'output_validator/validate.c': VALIDATOR,
      'submissions/accepted/good.c': SUB.good,
      'submissions/accepted/prober.c': SUB.prober,
      'submissions/wrong_answer/wrong.c': SUB.wrong,
      'submissions/wrong_answer/leaves.c': SUB.leaves,
      'submissions/wrong_answer/floods.c': SUB.floods,
      'submissions/run_time_error/crashes.c': SUB.crashes,
      'submissions/time_limit_exceeded/hangs.c': SUB.hangs,
      'submissions/time_limit_exceeded/spins.c': SUB.spins,
    })
    expect(got(rows)).toEqual({
      'accepted/good.c': 'AC',
      'accepted/prober.c': 'AC',
      'wrong_answer/wrong.c': 'WA',
      'wrong_answer/leaves.c': 'WA',
      'wrong_answer/floods.c': 'WA',
      'run_time_error/crashes.c': 'RTE',
      'time_limit_exceeded/hangs.c': 'TLE',
      'time_limit_exceeded/spins.c': 'TLE',
    })
    expect([...rows.values()].every((r) => r.outcome === 'pass')).toBe(true)
    expect(rows.get('wrong_answer/wrong.c')!.note).toBe('got 43, not 42')
    expect(rows.get('wrong_answer/leaves.c')!.note).toBe('no answer')
  })

  it('a validator that rejects before the submission ends decides (WA), whatever the submission does next', { timeout: 120_000 }, async () => {
    const rows = await verify('early', {
      'problem.yaml': YAML(),
      'data/secret/1.in': 'early 1\n',
      'data/secret/1.ans': '',
      'output_validator/validate.c': VALIDATOR,
      'submissions/wrong_answer/hangs.c': SUB.hangs,
      'submissions/wrong_answer/spins.c': SUB.spins,
      'submissions/wrong_answer/good.c': SUB.good,
    })
    expect(got(rows)).toEqual({ 'wrong_answer/good.c': 'WA', 'wrong_answer/hangs.c': 'WA', 'wrong_answer/spins.c': 'WA' })
    expect(rows.get('wrong_answer/hangs.c')!.note).toBe('rejected at once')
  })

  it('a validator that crashes, exits with neither 42 nor 43, or hangs is the grader\'s fault (IE), bounded in time', { timeout: 300_000 }, async () => {
    const job = (mode: string, source: string): Job => ({
      language: 'C',
      source,
      input: '',
      timeLimitSec: 1,
      memoryLimitKb: 262144,
      tests: [{ input: `${mode} 5\n`, expectedOutput: '' }],
      checker: { type: 'output_validator', lang: 'C', source: VALIDATOR, interactive: true },
    })
    for (const [mode, source, why] of [
      ['crash', SUB.good, /^output validator killed by SIGABRT/],
      ['exit7', SUB.good, /^output validator exited with 7 \(42 accepts, 43 rejects\)/],
      // the validator hangs, the submission ends
      ['hang', SUB.leaves, /^output validator exceeded its wall limit/],
      // both hang: the submission is stopped at its wall limit, the validator (which ignores end of file) at its own
      ['hang', SUB.hangs, /^output validator exceeded its wall limit/],
    ] as const) {
      const started = Date.now()
      const r = await runner.run(job(mode, source))
      const test = r.tests![0]
      expect(test.status, `${mode}: ${test.checkerMessage}`).toBe('IE')
      expect(test.checkerMessage).toMatch(why)
      // the validator's wall limit: its CPU limit × 2 + wall_extra_sec, or the submission's wall limit + 2 s
      expect(Date.now() - started).toBeLessThan(30_000)
    }
  })
})

/**
 * A multi-pass validator: pass 1 (no state in feedback/) expects 2n and writes nextpass.in with n+1 and
 * its state; pass 2 expects 2(n+1). With "always" in its input it asks for another pass every time.
 */
const MULTI = `#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  char mode[16] = "", p[512]; int n = 0, r;
  FILE *in = fopen(argv[1], "r");
  if (!in || fscanf(in, "%15s %d", mode, &n) != 2) return 1;
  snprintf(p, sizeof p, "%s/state", argv[3]);
  FILE *s = fopen(p, "r");
  int pass = 1;
  if (s) { fscanf(s, "%d", &pass); fclose(s); pass++; }
  if (scanf("%d", &r) != 1 || r != 2 * n) return 43;
  s = fopen(p, "w"); fprintf(s, "%d", pass); fclose(s);
  snprintf(p, sizeof p, "%s/judgemessage.txt", argv[3]);
  FILE *j = fopen(p, "a"); fprintf(j, "pass %d ok;", pass); fclose(j);
  if (pass == 1 || !strcmp(mode, "always")) {
    snprintf(p, sizeof p, "%s/nextpass.in", argv[3]);
    FILE *next = fopen(p, "w"); fprintf(next, "%s %d\\n", mode, n + 1); fclose(next);
  }
  return 42;
}
`
const DOUBLER = '#include <stdio.h>\nint main(void){char m[16];int n;scanf("%15s %d",m,&n);printf("%d\\n",2*n);return 0;}\n'

describe('multi-pass', () => {
  it('nextpass.in starts the next pass with it as input, the feedback folder kept; past the pass limit is IE', { timeout: 300_000 }, async () => {
    const files = (input: string, passes = '') => ({
      'problem.yaml': `problem_format_version: 2023-07-draft\nname: Passes\ntype: multi-pass\nlimits:\n  time_limit: 1\n${passes}`,
      'data/secret/1.in': input,
      'data/secret/1.ans': '',
      'output_validator/validate.c': MULTI,
      'submissions/accepted/doubler.c': DOUBLER,
      // right on the first pass only: the second pass's input is another number
      'submissions/wrong_answer/once.c': '#include <stdio.h>\nint main(void){printf("10\\n");return 0;}\n',
    })
    const rows = await verify('passes', files('twice 5\n'))
    expect(got(rows)).toEqual({ 'accepted/doubler.c': 'AC', 'wrong_answer/once.c': 'WA' })
    // every pass's message is kept: the folder goes on from pass to pass
    const job = (input: string, passes: number): Job => ({
      language: 'C',
      source: DOUBLER,
      input: '',
      timeLimitSec: 1,
      memoryLimitKb: 262144,
      tests: [{ input, expectedOutput: '' }],
      checker: { type: 'output_validator', lang: 'C', source: MULTI, passes },
    })
    const two = (await runner.run(job('twice 5\n', 2))).tests![0]
    expect(two).toMatchObject({ status: 'AC', checkerMessage: 'pass 1 ok;pass 2 ok;' })
    const past = (await runner.run(job('always 5\n', 3))).tests![0]
    expect(past.status).toBe('IE')
    expect(past.checkerMessage).toMatch(/^output validator wrote nextpass\.in on pass 3, the last one the problem allows \(limits\.validation_passes: 3\)/)
  })

  it('interactive and multi-pass together: each pass is a wired run', { timeout: 120_000 }, async () => {
    const r = await runner.run({
      language: 'C',
      source: SUB.good,
      input: '',
      timeLimitSec: 1,
      memoryLimitKb: 262144,
      tests: [{ input: 'play 4\n', expectedOutput: '' }],
      checker: { type: 'output_validator', lang: 'C', source: VALIDATOR.replace('say(argv[3], "teammessage.txt", "well played");', 'say(argv[3], "teammessage.txt", "well played"); { char p[512]; snprintf(p, sizeof p, "%s/nextpass.in", argv[3]); FILE *s = fopen(p, "r"); if (s) fclose(s); if (n < 6) say(argv[3], "nextpass.in", n == 4 ? "play 5\\n" : "play 6\\n"); }'), interactive: true, passes: 3 },
    })
    expect(r.tests![0]).toMatchObject({ status: 'AC', checkerMessage: 'well played' })
  })
})
