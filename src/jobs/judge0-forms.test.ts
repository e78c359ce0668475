// Judge0's Executable (44) and multi-file program (89) in the real jail, as the Judge0 face hands them
// to the core: an executable is its bytes as the source (written 0755, run as ./a.out); a multi-file
// program is its run script as the source, the zip's other files beside it, `bash compile` as the compile
// step when there is one and `bash run` as the run. Binaries are built at test time with the host's gcc
// (-static: they need nothing of the root). Each containment case reports what it tried, so a test
// fails when the jail lets one through.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { verdictOf, type Verdict } from '../grading/verdict.ts'
import { isProvisioned, loadLanguages } from '../languages.ts'
import { workerSettings } from './pool.ts'
import type { Job, JobResult } from './types.ts'
import { createJobRunner, type JobRunner } from './worker.ts'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' })
const langs = loadLanguages()
const settings = workerSettings(config)
settings.limits.wallExtraSec = 0.5

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-judge0-forms-'))
/** A file on the host a program must not reach. */
const hostSecret = join(tmp, 'host-secret')
writeFileSync(hostSecret, 'host secret\n')

/** A static x86-64 program built by the host's gcc from C. */
function staticProgram(name: string, c: string): Buffer {
  const src = join(tmp, `${name}.c`)
  writeFileSync(src, c)
  execFileSync('gcc', ['-static', '-O2', '-o', join(tmp, name), src, '-lm'])
  return readFileSync(join(tmp, name))
}

let runner: JobRunner
/** A TCP listener on the host's loopback and one on its other addresses: no jailed program may reach either. */
let listener: Server
let port = 0
let connections = 0
const hostAddress = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address
beforeAll(async () => {
  runner = createJobRunner(settings, `judge0-forms-${process.pid}`)
  listener = createServer((s) => {
    connections++
    s.end('you reached the host\n')
  })
  await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve))
  port = (listener.address() as { port: number }).port
})
afterAll(async () => {
  await runner?.close()
  listener?.close()
  rmSync(tmp, { recursive: true, force: true })
})

const limits = { input: '', timeLimitSec: 5, memoryLimitKb: 262144 }
async function judge(job: Job): Promise<{ v: Verdict; result: JobResult }> {
  const result = await runner.run(job)
  return { v: verdictOf(result, job), result }
}
const summary = (v: Verdict) => JSON.stringify({ verdict: v.verdict, detail: v.statusDetail, exitCode: v.exitCode, compile: v.compileStatus.slice(0, 400), stdout: v.stdout.slice(0, 400), stderr: v.stderr.slice(0, 400) })

describe('EXECUTABLE (Judge0 44): the bytes sent, run as they are', () => {
  const exe = (program: Buffer, over: Partial<Job> = {}): Job => ({ language: 'EXECUTABLE', source: program.toString('latin1'), inputEncoding: 'latin1', ...limits, ...over })

  it('is a provisioned code of the manifest', () => {
    const lang = langs.get('EXECUTABLE')
    expect(!!lang && isProvisioned(config.paths.toolchains, lang)).toBe(true)
  })

  it('runs a static hello built by the host gcc (bigger than limits.source_max_bytes), with stdin and arguments', { timeout: 120_000 }, async () => {
    const hello = staticProgram('hello', '#include <stdio.h>\nint main(int argc,char**argv){char l[64];if(!fgets(l,sizeof l,stdin))return 9;printf("hello, %s %s",argc>1?argv[1]:"-",l);return 0;}\n')
    expect(hello.length).toBeGreaterThan(config.limits.source_max_bytes)
    expect(hello.length).toBeLessThanOrEqual(config.limits.executable_max_bytes)
    const { v } = await judge(exe(hello, { input: 'world\n', runArgv: ['./a.out', 'jail'] }))
    expect(v.verdict, summary(v)).toBe('AC')
    expect(v.stdout).toBe('hello, jail world\n')
  })

  it('an exit status is RE NZEC, a SIGSEGV is RE SIGSEGV, 300 MB under 64 MB is MLE', { timeout: 120_000 }, async () => {
    const exit3 = await judge(exe(staticProgram('exit3', 'int main(void){return 3;}\n')))
    expect([exit3.v.verdict, exit3.v.statusDetail, exit3.v.exitCode], summary(exit3.v)).toEqual(['RE', 'NZEC', 3])
    const segv = await judge(exe(staticProgram('segv', 'int main(void){volatile int*p=0;return *p;}\n')))
    expect([segv.v.verdict, segv.v.statusDetail], summary(segv.v)).toEqual(['RE', 'SIGSEGV'])
    const hog = await judge(exe(staticProgram('hog', '#include <stdlib.h>\n#include <stdio.h>\nint main(void){size_t n=300u<<20;volatile char*p=malloc(n);if(!p)return 1;for(size_t i=0;i<n;i+=4096)p[i]=1;puts("done");return 0;}\n'), { memoryLimitKb: 65536 }))
    expect(hog.v.verdict, summary(hog.v)).toBe('MLE')
  })

  it('a file that is neither ELF nor #! is RE NZEC with "Exec format error" (exit 127), as Judge0 answers it NZEC', { timeout: 60_000 }, async () => {
    for (const junk of [Buffer.from('echo this is not a program\n'), Buffer.from([0x00, 0x01, 0x02, 0xff, 0x7f, 0x45, 0x4c])]) {
      const { v } = await judge(exe(junk))
      expect([v.verdict, v.statusDetail, v.exitCode], summary(v)).toEqual(['RE', 'NZEC', 127])
      expect(v.stderr).toContain('cannot execute ./a.out: Exec format error')
    }
    // a script with #! is a program the kernel runs
    const { v } = await judge(exe(Buffer.from('#!/bin/sh\necho from sh\n')))
    expect([v.verdict, v.stdout], summary(v)).toEqual(['AC', 'from sh\n'])
  })

  it('a hostile static binary: seccomp refuses namespaces, mounts, bpf, ptrace, raw and netlink sockets; no host file, no network, no write to the root', { timeout: 120_000 }, async () => {
    const hostile = staticProgram(
      'hostile',
      `#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
static void attempt(const char* name, long r) { printf("%s %s\\n", name, r >= 0 ? "OK" : strerrorname_np(errno)); fflush(stdout); }
static long tcp(const char* ip, int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return -1;
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
  inet_pton(AF_INET, ip, &a.sin_addr);
  return connect(s, (struct sockaddr*)&a, sizeof a);
}
int main(int argc, char** argv) {
  long c = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
  if (c == 0) _exit(0);
  if (c > 0) waitpid((pid_t)c, 0, 0);
  attempt("clone(NEWUSER)", c);
  attempt("unshare(NEWUSER)", unshare(CLONE_NEWUSER));
  attempt("unshare(NEWNS)", unshare(CLONE_NEWNS));
  attempt("fsopen", syscall(SYS_fsopen, "tmpfs", 0));
  attempt("bpf", syscall(SYS_bpf, 0, 0, 0));
  attempt("ptrace(TRACEME)", ptrace(PTRACE_TRACEME, 0, 0, 0));
  attempt("socket(NETLINK)", socket(AF_NETLINK, SOCK_RAW, 0));
  attempt("socket(INET, RAW)", socket(AF_INET, SOCK_RAW, 1));
  attempt("open(host secret)", open(argv[1], O_RDONLY));
  attempt("open(/etc/shadow)", open("/etc/shadow", O_RDONLY));
  attempt("open(/usr/hostile)", open("/usr/hostile", O_WRONLY | O_CREAT, 0644));
  attempt("connect(127.0.0.1)", tcp("127.0.0.1", atoi(argv[2])));
  attempt("connect(host)", tcp(argv[3], atoi(argv[2])));
  return 0;
}
`.replace('#include <unistd.h>', '#include <unistd.h>\n#include <stdlib.h>')
    )
    const before = connections
    const { v } = await judge(exe(hostile, { runArgv: ['./a.out', hostSecret, String(port), hostAddress ?? '10.255.255.1'] }))
    expect(v.verdict, summary(v)).toBe('AC')
    const got = Object.fromEntries(v.stdout.trim().split('\n').map((l) => [l.slice(0, l.lastIndexOf(' ')), l.slice(l.lastIndexOf(' ') + 1)]))
    expect(got).toEqual({
      'clone(NEWUSER)': 'EPERM',
      'unshare(NEWUSER)': 'EPERM',
      'unshare(NEWNS)': 'EPERM',
      fsopen: 'EPERM',
      bpf: 'EPERM',
      'ptrace(TRACEME)': 'EPERM',
      'socket(NETLINK)': 'EPERM',
      'socket(INET, RAW)': 'EPERM',
      'open(host secret)': 'ENOENT',
      'open(/etc/shadow)': 'EACCES',
      'open(/usr/hostile)': 'EROFS',
      // the jail's network namespace has no interface up, loopback included
      'connect(127.0.0.1)': 'ENETUNREACH',
      'connect(host)': 'ENETUNREACH',
    })
    expect(connections).toBe(before)
  })
})

describe('MULTIFILE (Judge0 89): the zip\'s scripts, with bash, in the trixie root', () => {
  const files = (f: Record<string, string>) => Object.entries(f).map(([name, text]) => ({ name, contentBase64: Buffer.from(text).toString('base64') }))
  /** As the Judge0 face builds it: the run script is the source, a compile script the compile step. */
  const project = (f: Record<string, string>, over: Partial<Job> = {}): Job => {
    const run = 'run.sh' in f ? 'run.sh' : 'run'
    const compile = ['compile.sh', 'compile'].find((n) => n in f)
    const { [run]: source, ...rest } = f
    return { language: 'MULTIFILE', source, sourceFileName: run, files: files(rest), compileArgv: compile ? ['bash', compile] : [], runArgv: ['bash', run], ...limits, ...over }
  }

  it('is a provisioned code of the manifest', () => {
    const lang = langs.get('MULTIFILE')
    expect(!!lang && isProvisioned(config.paths.toolchains, lang)).toBe(true)
  })

  it('compile builds with the root\'s gcc, run runs what it built with stdin; the other files lie beside them', { timeout: 120_000 }, async () => {
    const { v } = await judge(
      project(
        {
          'compile.sh': 'set -e\ngcc -O2 -o prog main.c util.c\necho built\n',
          'run.sh': 'read -r who\n./prog "$who"\ncat note.txt\n',
          'main.c': '#include <stdio.h>\nconst char* greet(void);\nint main(int c,char**v){printf("%s, %s\\n",greet(),v[1]);return 0;}\n',
          'util.c': 'const char* greet(void){return "hello";}\n',
          'note.txt': 'beside\n',
        },
        { input: 'jail\n' }
      )
    )
    expect(v.verdict, summary(v)).toBe('AC')
    expect(v.stdout).toBe('hello, jail\nbeside\n')
  })

  it('the zip\'s files are not executable (0644, and the jail refuses chmod); a script runs one through its interpreter', { timeout: 60_000 }, async () => {
    const { v } = await judge(project({ run: './tool.sh 2>/dev/null; echo direct=$?\nchmod +x tool.sh 2>/dev/null; echo chmod=$?\nbash tool.sh\n', 'tool.sh': '#!/bin/sh\necho tool ran\n' }))
    expect([v.verdict, v.stdout], summary(v)).toEqual(['AC', 'direct=126\nchmod=1\ntool ran\n'])
  })

  it('a compile script that fails is CE with what it printed on stdout and stderr', { timeout: 60_000 }, async () => {
    const { v, result } = await judge(project({ compile: 'echo "checking"\necho "no such library" >&2\nexit 2\n', run: 'echo never\n' }))
    expect(v.verdict, summary(v)).toBe('CE')
    expect(result.run).toBeUndefined()
    expect(v.compileStatus).toContain('checking')
    expect(v.compileStatus).toContain('no such library')
  })

  it('a run script that exits non-zero is RE NZEC with its status; a syntax error too', { timeout: 60_000 }, async () => {
    const { v } = await judge(project({ run: 'echo partial\nexit 3\n' }))
    expect([v.verdict, v.statusDetail, v.exitCode, v.stdout], summary(v)).toEqual(['RE', 'NZEC', 3, 'partial\n'])
    const syntax = await judge(project({ run: 'if true; then\n' }))
    expect([syntax.v.verdict, syntax.v.statusDetail], summary(syntax.v)).toEqual(['RE', 'NZEC'])
  })

  it('a run script that tries to leave the jail or reach the network gets nowhere', { timeout: 120_000 }, async () => {
    const hostile = [
      'unshare -U true 2>/dev/null; echo unshare=$?',
      `cat ${hostSecret} >/dev/null 2>&1; echo host_file=$?`,
      'cat /etc/shadow >/dev/null 2>&1; echo shadow=$?',
      'touch /usr/hostile 2>/dev/null; echo write_root=$?',
      'cd /work/.. && touch escaped 2>/dev/null; echo write_parent=$?',
      `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; echo loopback=$?`,
      `(exec 3<>/dev/tcp/${hostAddress ?? '10.255.255.1'}/${port}) 2>/dev/null; echo host_net=$?`,
      'getent hosts example.com >/dev/null 2>&1; echo dns=$?',
      'ls /var/lib/arbiter >/dev/null 2>&1; echo arbiter_dir=$?',
    ].join('\n')
    const before = connections
    const { v } = await judge(project({ compile: 'echo compile-step\n', run: hostile + '\n' }))
    expect(v.verdict, summary(v)).toBe('AC')
    const got = Object.fromEntries(v.stdout.trim().split('\n').map((l) => l.split('=')))
    // every attempt failed (a non-zero status each)
    for (const what of ['unshare', 'host_file', 'shadow', 'write_root', 'write_parent', 'loopback', 'host_net', 'dns', 'arbiter_dir']) expect(got[what], `${what}: ${v.stdout}`).not.toBe('0')
    expect(Object.keys(got).length, v.stdout).toBe(9)
    expect(connections).toBe(before)
  })
})
