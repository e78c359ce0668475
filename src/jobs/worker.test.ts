// The jail, for real: nsjail + supervisor + provisioned toolchains, over a table of hostile and
// limit-testing programs per language. Each case is a whole job (compile + run) through the worker.
import { createServer, type Server } from 'node:net'
import { networkInterfaces } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { verdictOf, type Verdict } from '../evaluation/verdict.ts'
import { isProvisioned, loadLanguages } from '../languages.ts'
import { workerSettings } from './pool.ts'
import type { Job } from './types.ts'
import { createJobRunner, type JobRunner } from './worker.ts'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' })
const langs = loadLanguages()
const settings = workerSettings(config)
// short wall caps keep the sleeping and looping cases quick: wall = 2 x time + 0.5 s
settings.limits.wallExtraSec = 0.5
settings.limits.outputCapBytes = 65536

type Expect = { verdict: Verdict['verdict']; detail?: string; stdout?: string | RegExp; compile?: RegExp }
interface Case {
  name: string
  source: string
  input?: string
  timeLimitSec?: number
  memoryLimitKb?: number
  expect: Expect
}

const echo = (source: string): Case => ({ name: 'echo', source, input: 'hello jail\n', expect: { verdict: 'AC', stdout: 'hello jail\n' } })

const C_CASES: Case[] = [
  echo('#include <stdio.h>\nint main(void){char b[256];if(fgets(b,sizeof b,stdin))fputs(b,stdout);return 0;}'),
  { name: 'compile error', source: 'int main(void){ return 0 }', expect: { verdict: 'CE', compile: /error: expected .;./ } },
  { name: 'infinite loop', source: 'int main(void){for(;;){}}', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  { name: 'sleep(30)', source: '#include <unistd.h>\nint main(void){sleep(30);return 0;}', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  {
    name: '300 MB under 64 MB',
    // volatile: gcc would otherwise see through malloc + memset and allocate nothing
    source: '#include <stdlib.h>\nint main(void){size_t n=300u<<20;volatile char*p=malloc(n);if(!p)return 1;for(size_t i=0;i<n;i+=4096)p[i]=1;return p[n-4096]==1?0:2;}',
    memoryLimitKb: 65536,
    expect: { verdict: 'MLE' },
  },
  { name: 'null dereference', source: 'int main(void){volatile int*p=0;return *p;}', expect: { verdict: 'RE', detail: 'SIGSEGV' } },
  { name: 'division by zero', source: 'int main(void){volatile int z=0;return 7/z;}', expect: { verdict: 'RE', detail: 'SIGFPE' } },
  { name: 'abort()', source: '#include <stdlib.h>\nint main(void){abort();}', expect: { verdict: 'RE', detail: 'SIGABRT' } },
  { name: 'exit(3)', source: '#include <stdlib.h>\nint main(void){exit(3);}', expect: { verdict: 'RE', detail: 'NZEC' } },
  {
    name: 'output past the cap',
    source: '#include <stdio.h>\nint main(void){for(int i=0;i<1000000;i++)puts("flooding the output file with lines");return 0;}',
    expect: { verdict: 'RE', detail: 'SIGXFSZ' },
  },
]

const PY_CASES: Case[] = [
  echo('print(input())'),
  { name: 'syntax error', source: 'print("unclosed"', expect: { verdict: 'RE', detail: 'NZEC' } },
  { name: 'infinite loop', source: 'while True:\n    pass', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  { name: 'sleep(30)', source: 'import time\ntime.sleep(30)', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  { name: '300 MB under 64 MB', source: 'b = b"x" * (300 << 20)\nprint(len(b))', memoryLimitKb: 65536, expect: { verdict: 'MLE' } },
  { name: 'null dereference', source: 'import ctypes\nctypes.string_at(0)', expect: { verdict: 'RE', detail: 'SIGSEGV' } },
  // Python raises ZeroDivisionError rather than trapping: a non-zero exit, as on HackerEarth
  { name: 'division by zero', source: 'print(7 // 0)', expect: { verdict: 'RE', detail: 'NZEC' } },
  { name: 'abort()', source: 'import os\nos.abort()', expect: { verdict: 'RE', detail: 'SIGABRT' } },
  { name: 'exit(3)', source: 'import sys\nsys.exit(3)', expect: { verdict: 'RE', detail: 'NZEC' } },
  { name: 'output past the cap', source: 'while True:\n    print("flooding the output file with lines")', expect: { verdict: 'RE', detail: 'SIGXFSZ' } },
]

const JS_CASES: Case[] = [
  echo("process.stdout.write(require('fs').readFileSync(0, 'utf8'))"),
  {
    name: 'reads /dev/stdin',
    source: "console.log(require('fs').readFileSync('/dev/stdin', 'utf8').trim())",
    input: 'via the link\n',
    expect: { verdict: 'AC', stdout: 'via the link\n' },
  },
  { name: 'syntax error', source: "console.log('unclosed'", expect: { verdict: 'RE', detail: 'NZEC' } },
  { name: 'infinite loop', source: 'for (;;) {}', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  { name: 'sleep(30)', source: 'setTimeout(() => {}, 30000)', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  { name: '300 MB under 64 MB', source: 'const b = Buffer.alloc(300 << 20, 1); console.log(b.length)', memoryLimitKb: 65536, expect: { verdict: 'MLE' } },
  { name: 'abort()', source: 'process.abort()', expect: { verdict: 'RE', detail: 'SIGABRT' } },
  { name: 'exit(3)', source: 'process.exit(3)', expect: { verdict: 'RE', detail: 'NZEC' } },
  {
    name: 'output past the cap',
    source: "const fs = require('fs'); const line = 'flooding the output file with lines\\n'.repeat(1000); for (;;) fs.writeSync(1, line)",
    expect: { verdict: 'RE', detail: 'SIGXFSZ' },
  },
]

const javaMain = (body: string, imports = '') =>
  `${imports}\npublic class Solution {\n  public static void main(String[] args) throws Exception {\n    ${body}\n  }\n}\n`
const JAVA_CASES: Case[] = [
  echo(javaMain('System.out.println(new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine());')),
  { name: 'compile error', source: javaMain('System.out.println("x")'), expect: { verdict: 'CE', compile: /';' expected/ } },
  { name: 'infinite loop', source: javaMain('long i = 0; while (true) { i++; }'), timeLimitSec: 1, expect: { verdict: 'TLE' } },
  { name: 'sleep(30)', source: javaMain('Thread.sleep(30000);'), timeLimitSec: 1, expect: { verdict: 'TLE' } },
  {
    name: '300 MB under 64 MB',
    source: javaMain('byte[] b = new byte[300 << 20]; java.util.Arrays.fill(b, (byte) 1); System.out.println(b.length);'),
    memoryLimitKb: 65536,
    expect: { verdict: 'MLE' },
  },
  { name: 'exit(3)', source: javaMain('System.exit(3);'), expect: { verdict: 'RE', detail: 'NZEC' } },
  {
    name: 'output past the cap',
    source: javaMain('while (true) System.out.println("flooding the output file with lines");'),
    expect: { verdict: 'RE', detail: 'SIGXFSZ' },
  },
]

// the C programs are C++ too, but for malloc's void* (C++ wants a cast)
const cpp = (c: Case): Case => ({ ...c, source: c.source.replace('#include <stdio.h>', '#include <cstdio>').replace('=malloc(n)', '=(char*)malloc(n)') })
const TABLE: Record<string, Case[]> = {
  C: C_CASES,
  CPP: C_CASES.map(cpp),
  CPP11: C_CASES.slice(0, 3).map(cpp),
  CPP14: C_CASES.slice(0, 3).map(cpp),
  CPP17: C_CASES.slice(0, 3).map(cpp),
  PYTHON3: PY_CASES,
  JAVASCRIPT_NODE: JS_CASES,
  JAVASCRIPT: JS_CASES.slice(0, 3),
  JAVA: JAVA_CASES,
  JAVA8: JAVA_CASES.slice(0, 3),
  JAVA14: JAVA_CASES.slice(0, 3),
}

let runner: JobRunner
beforeAll(() => {
  runner = createJobRunner(settings, `test-${process.pid}`)
})
afterAll(async () => {
  await runner?.close()
})

async function judge(language: string, c: Omit<Case, 'name' | 'expect'>) {
  const job: Job = {
    language,
    source: c.source,
    input: c.input ?? '',
    timeLimitSec: c.timeLimitSec ?? 2,
    memoryLimitKb: c.memoryLimitKb ?? 262144,
  }
  const result = await runner.run(job)
  return { result, verdict: verdictOf(result, job) }
}

for (const [code, cases] of Object.entries(TABLE)) {
  const lang = langs.get(code)
  describe(`${code} in the jail`, () => {
    // npm test provisions every toolchain: a missing one fails here rather than skipping the cases
    it('is provisioned', () => expect(!!lang && isProvisioned(config.paths.toolchains, lang)).toBe(true))
    for (const c of cases) {
      it(c.name, { timeout: 60_000 }, async () => {
        const { verdict: v } = await judge(code, c)
        const summary = { verdict: v.verdict, detail: v.statusDetail, compile: v.compileStatus.slice(0, 300), stderr: v.stderr.slice(0, 300) }
        expect(summary.verdict, JSON.stringify(summary)).toBe(c.expect.verdict)
        if (c.expect.detail) expect(v.statusDetail, JSON.stringify(summary)).toBe(c.expect.detail)
        if (c.expect.stdout !== undefined) expect(v.stdout).toEqual(c.expect.stdout)
        if (c.expect.compile) expect(v.compileStatus).toMatch(c.expect.compile)
        if (c.name.startsWith('sleep')) expect(v.timeUsedSec).toBeLessThan(0.5) // caught by the wall clock
      })
    }
  })
}

// ── containment: what a program must not reach, whatever its language ────────────────────────────

describe('the jail contains a C program', () => {
  let server: Server
  let port = 0
  const hostAddress =
    Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? '127.0.0.1'

  beforeAll(async () => {
    // a server the host itself can reach on loopback and on its own interface address
    server = createServer((s) => s.end('reached\n'))
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r))
    port = (server.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const connectProgram = `
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(void){
  char ip[64]; int port;
  while (scanf("%63s %d", ip, &port) == 2) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port); inet_pton(AF_INET, ip, &a.sin_addr);
    int r = connect(s, (struct sockaddr*)&a, sizeof a);
    printf("%s %s\\n", ip, r == 0 ? "CONNECTED" : strerror(errno));
    close(s);
  }
  return 0;
}`

  it('cannot open a TCP connection to 127.0.0.1 or to the host address', async () => {
    const input = `127.0.0.1 ${port}\n${hostAddress} ${port}\n`
    const { verdict: v } = await judge('C', { source: connectProgram, input })
    expect(v.verdict).toBe('AC')
    const lines = v.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line).not.toContain('CONNECTED')
  })

  const fsProgram = `
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void){
  char op[8], path[512];
  while (scanf("%7s %511s", op, path) == 2) {
    int fd = op[0] == 'w' ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : open(path, O_RDONLY);
    char buf[64]; ssize_t n = fd >= 0 && op[0] == 'r' ? read(fd, buf, sizeof buf) : 0;
    printf("%s %s %s\\n", op, path, fd >= 0 && n >= 0 ? "OK" : strerror(errno));
    if (fd >= 0) close(fd);
  }
  return 0;
}`

  it('cannot write to /, /usr, /etc or devices, nor read the host /etc/shadow or the data directory', async () => {
    const probes = [
      'w /evil',
      'w /usr/evil',
      'w /etc/passwd',
      'w /etc/evil',
      'r /etc/shadow',
      'w /dev/console',
      'w /dev/tty',
      'w /dev/ptmx',
      `r ${config.dataDir}/config.toml`,
      `r ${config.paths.toolchains}/versions.json`,
      'w /work/allowed', // the job's own work directory is writable
      'w /tmp/allowed',
    ]
    const { verdict: v } = await judge('C', { source: fsProgram, input: probes.join('\n') + '\n' })
    expect(v.verdict).toBe('AC')
    const results = Object.fromEntries(v.stdout.trim().split('\n').map((l) => [l.split(' ').slice(0, 2).join(' '), l.split(' ').slice(2).join(' ')]))
    for (const p of probes.slice(0, -2)) expect(results[p], p).not.toBe('OK')
    expect(results['w /work/allowed']).toBe('OK')
    expect(results['w /tmp/allowed']).toBe('OK')
  })

  it('contains a fork bomb, and the next job still runs', async () => {
    const bomb = '#include <unistd.h>\nint main(void){for(;;)fork();}'
    const { verdict: v } = await judge('C', { source: bomb, timeLimitSec: 1 })
    expect(['TLE', 'RE']).toContain(v.verdict)
    const next = await judge('C', { source: C_CASES[0].source, input: 'still alive\n' })
    expect(next.verdict.verdict).toBe('AC')
    expect(next.verdict.stdout).toBe('still alive\n')
  })

  it('runs as an unprivileged user without capabilities', async () => {
    const src = '#include <stdio.h>\n#include <unistd.h>\nint main(void){printf("%d %d\\n", getuid(), geteuid()); FILE*f=fopen("/proc/self/status","r"); char l[256]; while(fgets(l,256,f)) if(!strncmp(l,"CapEff",6)||!strncmp(l,"NoNewPrivs",10)) fputs(l,stdout); return 0;}'
    const { verdict: v } = await judge('C', { source: src.replace('#include <stdio.h>', '#include <stdio.h>\n#include <string.h>') })
    expect(v.verdict).toBe('AC')
    expect(v.stdout).toMatch(/^65534 65534\n/)
    expect(v.stdout).toMatch(/CapEff:\s+0000000000000000/)
    expect(v.stdout).toMatch(/NoNewPrivs:\s+1/)
  })

  it('reports honest figures: ~1 s of CPU and ~100 MB touched', async () => {
    const burn = '#include <time.h>\nint main(void){volatile unsigned long x=0; while(clock() < CLOCKS_PER_SEC) x++; return 0;}'
    const cpu = await judge('C', { source: burn, timeLimitSec: 3 })
    expect(cpu.verdict.verdict).toBe('AC')
    expect(cpu.verdict.timeUsedSec).toBeGreaterThanOrEqual(0.9)
    expect(cpu.verdict.timeUsedSec).toBeLessThanOrEqual(1.2)

    const touch = '#include <stdlib.h>\nint main(void){size_t n=100u<<20;volatile char*p=malloc(n);for(size_t i=0;i<n;i+=4096)p[i]=1;return p[n/2]==1?0:1;}'
    const mem = await judge('C', { source: touch })
    expect(mem.verdict.verdict).toBe('AC')
    expect(mem.verdict.memoryUsedKb).toBeGreaterThanOrEqual(102400 * 0.9)
    expect(mem.verdict.memoryUsedKb).toBeLessThanOrEqual(102400 * 1.1)
  })
})
