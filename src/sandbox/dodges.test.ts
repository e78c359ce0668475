// Figures and limits a hostile program must not dodge, and what a jail must not do to the host or to
// another job: whole jobs through the worker (compile + run in the real jail, as src/jobs/worker.test.ts).
// Each case passed (AC, a small figure, a shared quota) on the jail before these guarantees.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { verdictOf } from '../grading/verdict.ts'
import { workerSettings } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { createJobRunner, type WorkerSettings } from '../jobs/worker.ts'
import { childOomProgram, constImageProgram, cpuEdgeProgram, hostEffectsExpected, hostEffectsProgram, imageProgram as image } from '../testing/dodge-programs.ts'
import { rootImagePath } from './root-image.ts'
import { DEFAULT_JAIL_UIDS, openSandbox } from './run.ts'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-dodges-test' })
const settings = workerSettings(config)
settings.limits.wallExtraSec = 0.5
delete settings.compileCache // every job compiles: a cached program would skip what is tested
const SLOT = `dodges-${process.pid}`
const runner = createJobRunner(settings, SLOT)
afterAll(() => runner.close())

async function judge(language: string, source: string, opts: Partial<Job> = {}, r = runner) {
  const job: Job = { language, source, input: '', timeLimitSec: 2, memoryLimitKb: 262144, ...opts }
  const result = await r.run(job)
  return { result, v: verdictOf(result, job) }
}
const why = (v: ReturnType<typeof verdictOf>) => JSON.stringify({ ...v, stdout: v.stdout.slice(0, 200), stderr: v.stderr.slice(0, 300) })

describe('memory: every page a run caused counts against its limit', () => {
  it('a program image of 52 MB of constant data under a 16 MB limit is MLE (it read as ~0.6 MB before)', { timeout: 120_000 }, async () => {
    const { v } = await judge('C', constImageProgram(52), { memoryLimitKb: 16384 })
    expect(v.verdict, why(v)).toBe('MLE')
  })

  it('the same image under 128 MB runs, and its figure counts the image', { timeout: 120_000 }, async () => {
    // a roomy time limit: under emulation (the v2 check) reading the 52 MB image took over 2 s of CPU once
    const { v } = await judge('C', image(52), { memoryLimitKb: 131072, timeLimitSec: 10 })
    expect(v.verdict, why(v)).toBe('AC')
    expect(v.memoryUsedKb, why(v)).toBeGreaterThanOrEqual(52 * 1024)
  })

  it('deleting its own compiled binary hides nothing: a 56 MB image + 8 MB under 64 MB is MLE', { timeout: 120_000 }, async () => {
    const src = image(56, 'unlink(argv[0]); char *p = malloc(8 << 20); for (long i = 0; i < (8 << 20); i += 4096) p[i] = 1;')
    // a roomy time limit: under emulation (the v2 check) touching 56 MB can take seconds
    const { v } = await judge('C', src, { memoryLimitKb: 65536, timeLimitSec: 10 })
    expect(v.verdict, why(v)).toBe('MLE')
  })

  it('in a graded job too (each test gets the compiled program copied into a fresh box by root)', { timeout: 120_000 }, async () => {
    const { result } = await judge('C', image(52), { memoryLimitKb: 16384, tests: [{ input: '', expectedOutput: '1\n' }] })
    expect(result.tests?.[0]?.status, JSON.stringify(result.tests)).toBe('MLE')
  })

  it('a child killed for memory while its parent prints the answer is MLE', { timeout: 120_000 }, async () => {
    const { v } = await judge('C', childOomProgram, { memoryLimitKb: 65536 })
    expect(v.verdict, why(v)).toBe('MLE')
    expect(v.stdout).toBe('42\n') // the parent did finish: the kill of its child decides
  })

  // sun.misc.Unsafe through reflection (javac --release 8 does not see it): memory no JVM flag bounds
  it('files a compile step hid in folders of mode 000 count too (the program may chmod them back)', { timeout: 120_000 }, async () => {
    // what compile-time code (Template Haskell, a build script) can leave: set up here by hand
    const sb = openSandbox(settings.sandbox, `dodges-dir-${process.pid}`)
    try {
      const uid = await sb.jailUid()
      const root = await sb.root('trixie', rootImagePath(config.paths.toolchains, 'trixie'))
      const figures: string[] = []
      for (const memoryKb of [16384, 131072]) {
        await sb.box('mount', 256 << 20, 100)
        const deep = join(sb.boxDir, 'a', 'b')
        mkdirSync(deep, { recursive: true })
        writeFileSync(join(deep, 'big'), Buffer.alloc(52 << 20, 1))
        writeFileSync(join(sb.boxDir, 'p.py'), 'import os, mmap\nos.chmod("/work/a", 0o755)\nos.chmod("/work/a/b", 0o755)\nf = open("/work/a/b/big", "rb")\nm = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\nprint(sum(m[i] for i in range(0, len(m), 4096)))\n')
        for (const p of [join(sb.boxDir, 'a'), deep, join(deep, 'big')]) chownSync(p, uid, uid)
        chmodSync(join(deep, 'big'), 0o400)
        chmodSync(deep, 0)
        chmodSync(join(sb.boxDir, 'a'), 0)
        const limits = { cpuTimeSec: 5, wallTimeSec: 30, memoryKb, processes: 16, openFiles: 64, fileSizeBytes: 1 << 20 }
        const r = await sb.runStep({ root, argv: ['/usr/bin/python3', '/work/p.py'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp' }, workDir: sb.boxDir, limits })
        figures.push(`${memoryKb}: ${r.status} ${r.memoryKb} ${r.stdout.trim()}`)
        await sb.box('umount')
      }
      expect(figures[0], figures.join('; ')).toMatch(/^16384: memory /)
      const [, status, kb, sum] = /^131072: (\S+) (\d+) (\d+)$/.exec(figures[1]) ?? []
      expect([status, Number(kb) >= 52 * 1024, sum], figures.join('; ')).toEqual(['ok', true, String(52 * 256)])
    } finally {
      await sb.close()
    }
  })

  const unsafe = `import java.lang.reflect.*;
public class Main {
  public static void main(String[] a) throws Exception {
    Class<?> c = Class.forName("sun.misc.Unsafe");
    Field f = c.getDeclaredField("theUnsafe");
    f.setAccessible(true);
    Object u = f.get(null);
    Method alloc = c.getMethod("allocateMemory", long.class), put = c.getMethod("putByte", long.class, byte.class);
    long n = 300L << 20, p = (Long) alloc.invoke(u, n);
    for (long i = 0; i < n; i += 4096) put.invoke(u, p + i, (byte) 1);
    System.out.println("done");
  }
}`
  // a roomy time limit for the JVM: under emulation (the v2 check) it starts in seconds, and a time
  // limit passed first would hide the verdict tested (memory is judged before time anyway)
  it('Java: 300 MB outside the heap under a 256 MB limit is MLE (the JVM has no headroom past the limit)', { timeout: 300_000 }, async () => {
    const { v } = await judge('JAVA', unsafe, { memoryLimitKb: 262144, timeLimitSec: 30 })
    expect(v.verdict, why(v)).toBe('MLE')
  })

  it('Java: a 200 MB heap under 256 MB runs, and the figure stays under the limit', { timeout: 300_000 }, async () => {
    const src = 'public class Main { public static void main(String[] a) { byte[][] b = new byte[200][]; for (int i = 0; i < 200; i++) { b[i] = new byte[1 << 20]; b[i][4096] = 1; } System.out.println(b.length); } }'
    const { v } = await judge('JAVA', src, { memoryLimitKb: 262144, timeLimitSec: 30 })
    expect(v.verdict, why(v)).toBe('AC')
    expect(v.memoryUsedKb, why(v)).toBeLessThanOrEqual(262144)
  })
})

describe('time: past the CPU limit is TLE, decided after the fact too', () => {
  it('16 runs ending around 0.5 s of CPU time: each is TLE exactly when its CPU time is past the limit', { timeout: 180_000 }, async () => {
    // a roomy wall clock: on a loaded machine the wall cap (2 x 0.5 s + extra) must not stop it first
    const roomy = createJobRunner({ ...settings, limits: { ...settings.limits, wallExtraSec: 20 } }, `dodges-cpu-${process.pid}`)
    const runs: string[] = []
    try {
      for (let i = 0; i < 16; i++) {
        const { v } = await judge('C', cpuEdgeProgram, { timeLimitSec: 0.5 }, roomy)
        expect(['AC', 'TLE'], why(v)).toContain(v.verdict)
        runs.push(`${v.verdict} ${v.timeUsedSec > 0.5 ? 'past' : 'within'} ${v.timeUsedSec}`)
      }
    } finally {
      await roomy.close()
    }
    // before: "AC past 0.5063…" in several of 16 (the reported time included nsjail's own, and a
    // program that ended between two looks was never judged by it)
    for (const r of runs) expect(r, runs.join('\n')).toMatch(/^(TLE past|AC within) /)
  })
})

describe("per-user kernel quotas: each slot's jails run as a host uid of their own", () => {
  // A takes all the pipe buffers a user may have (pipe-user-pages-soft: 64 MB here) and puts file
  // descriptors in flight over a UNIX socket until the kernel refuses, processes to its limit and
  // queued signals to its limit, then holds them while B runs
  const hog = `#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(void) {
  int pipes = 0, p[2];
  while (pipe(p) == 0 && fcntl(p[1], F_SETPIPE_SZ, 1 << 20) > 0) pipes++;
  int sv[2], inflight = 0;
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  int fds[200];
  for (int i = 0; i < 200; i++) fds[i] = 0;
  for (;;) {
    char c = 'x', ctl[CMSG_SPACE(sizeof fds)];
    struct iovec io = { &c, 1 };
    struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET; h->cmsg_type = SCM_RIGHTS; h->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(h), fds, sizeof fds);
    if (sendmsg(sv[0], &m, MSG_DONTWAIT) < 0) break;
    inflight += 200;
  }
  sigset_t s; sigemptyset(&s); sigaddset(&s, SIGRTMIN); sigprocmask(SIG_BLOCK, &s, 0);
  int queued = 0;
  union sigval v = { 0 };
  while (sigqueue(getpid(), SIGRTMIN, v) == 0) queued++;
  int children = 0;
  for (pid_t c; (c = fork()) >= 0; children++) if (c == 0) { pause(); _exit(0); }
  printf("pipes %d inflight %d queued %d children %d\\n", pipes, inflight, queued, children);
  fflush(stdout);
  close(open("/work/ready", O_WRONLY | O_CREAT, 0644));
  for (int i = 0; i < 3000 && access("/work/release", F_OK) != 0; i++) usleep(20000); /* until B is done */
  return 0;
}`
  // B: what an ordinary program gets
  const probe = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
  int p[2];
  pipe(p);
  int size = fcntl(p[1], F_GETPIPE_SZ), grown = fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
  int sv[2], fd = 0;
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  char c = 'x', ctl[CMSG_SPACE(sizeof fd)];
  struct iovec io = { &c, 1 };
  struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
  struct cmsghdr *h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET; h->cmsg_type = SCM_RIGHTS; h->cmsg_len = CMSG_LEN(sizeof fd);
  memcpy(CMSG_DATA(h), &fd, sizeof fd);
  int sent = sendmsg(sv[0], &m, 0) == 1 ? 0 : errno;
  sigset_t s; sigemptyset(&s); sigaddset(&s, SIGRTMIN); sigprocmask(SIG_BLOCK, &s, 0);
  union sigval v = { 0 };
  int queued = 0;
  while (queued < 16 && sigqueue(getpid(), SIGRTMIN, v) == 0) queued++;
  int children = 0;
  for (; children < 16; children++) { pid_t c = fork(); if (c < 0) break; if (c == 0) _exit(0); waitpid(c, 0, 0); }
  int in = inotify_init1(0);
  printf("pipe %d grown %d scm %s signals %d children %d inotify %s\\n", size, grown, sent ? strerror(sent) : "OK", queued, children, in < 0 ? strerror(errno) : "OK");
  return 0;
}`

  it('one job holding 64 MB of pipe buffers and every fd in flight leaves another job full-size pipes and SCM_RIGHTS; processes, signals and inotify stay per job', { timeout: 120_000 }, async () => {
    // a roomy wall clock: A holds until B is done, however slow the machine (60 s at most)
    const hogSettings: WorkerSettings = { ...settings, limits: { ...settings.limits, openFiles: 256, processes: 64, wallExtraSec: 60 } }
    const slotA = `dodges-hog-${process.pid}`
    const a = createJobRunner(hogSettings, slotA)
    const b = createJobRunner(settings, `dodges-probe-${process.pid}`)
    try {
      const held = judge('C', hog, { timeLimitSec: 5 }, a)
      const ready = join(settings.sandbox.runs, slotA, 'box', 'ready')
      for (let i = 0; i < 1200 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 50))
      expect(existsSync(ready), 'the hog took its quotas').toBe(true)

      // the hog's processes, seen from the host: the slot's own uid, not the shared 65534
      // the run's group (a prepared jail's run: <slot>/run), or nsjail's under it or under the slot's
      const group = ['/sys/fs/cgroup/pids/arbiter', '/sys/fs/cgroup/arbiter'].map((g) => join(g, slotA)).find(existsSync)!
      const parent = existsSync(join(group, 'run')) ? join(group, 'run') : group
      const groups = [parent, ...readdirSync(parent).filter((d) => d.startsWith('NSJAIL.')).map((d) => join(parent, d))]
      const pids = groups.flatMap((g) => readFileSync(join(g, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean))
      expect(pids.length).toBeGreaterThan(0)
      const uids = new Set(pids.map((pid) => /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]))
      expect(uids.size, [...uids].join()).toBe(1)
      const hostUid = Number([...uids][0])
      expect(hostUid).toBeGreaterThanOrEqual(DEFAULT_JAIL_UIDS.base)

      const { v: probed } = await judge('C', probe, {}, b)
      writeFileSync(join(settings.sandbox.runs, slotA, 'box', 'release'), '', { flag: 'wx' }) // O_EXCL: never through a link A made
      const { v: hogged } = await held
      expect(hogged.verdict, why(hogged)).toBe('AC')
      const [, pipes, inflight, queued, children] = /pipes (\d+) inflight (\d+) queued (\d+) children (\d+)/.exec(hogged.stdout)!.map(Number)
      expect(pipes, hogged.stdout).toBeGreaterThanOrEqual(60) // 64 MB in 1 MB pipes, less what the runtime holds
      expect(inflight, hogged.stdout).toBeGreaterThanOrEqual(256) // past its own RLIMIT_NOFILE: the kernel's per-user bound
      expect(queued, hogged.stdout).toBeGreaterThanOrEqual(1000)
      expect(children, hogged.stdout).toBeGreaterThanOrEqual(50)
      expect(probed.verdict, why(probed)).toBe('AC')
      // with one shared host uid: "pipe 8192 grown -1 scm Too many references: cannot splice"
      expect(probed.stdout).toBe('pipe 65536 grown 1048576 scm OK signals 16 children 16 inotify Operation not permitted\n')
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})

describe('host effects: the calls that reach every job on the host are refused, the local ones kept', () => {
  it('sync() and fadvise(POSIX_FADV_DONTNEED) fail (EPERM); syncfs, fsync and other advice succeed', { timeout: 120_000 }, async () => {
    const { v } = await judge('C', hostEffectsProgram)
    expect(v.verdict, why(v)).toBe('AC')
    expect(v.stdout).toBe(hostEffectsExpected)
  })
})
