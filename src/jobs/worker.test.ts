// The jail, for real: nsjail + supervisor + provisioned toolchains, over a table of hostile and
// limit-testing programs per language. Each case is a whole job (compile + run) through the worker.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs'
import { connect, createServer, type Server } from 'node:net'
import { constants, networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dataDirFromEnv, loadConfig } from '../config.ts'
import { verdictOf, type Verdict } from '../grading/verdict.ts'
import { isProvisioned, loadLanguages } from '../languages.ts'
import { workerSettings } from './pool.ts'
import type { Job } from './types.ts'
import { createJobRunner, type JobRunner, cutNotice } from './worker.ts'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' })
const langs = loadLanguages()
const settings = workerSettings(config)
// short wall caps keep the sleeping and looping cases quick: wall = 2 x time + 0.5 s
settings.limits.wallExtraSec = 0.5
const OUTPUT_CAP = 65536
settings.limits.outputCapBytes = OUTPUT_CAP
/** The run's wall-clock cap, as worker.ts derives it from the time limit and the settings. */
const wallCapSec = (timeLimitSec: number) => timeLimitSec * 2 + settings.limits.wallExtraSec
/** nsjail's own --time_limit, a backstop well past a wall cap (src/sandbox/nsjail-args.ts). */
const wallBackstopSec = (wallCapSec: number) => Math.ceil(wallCapSec) + 2
const SLOT = `test-${process.pid}`
/** Where the supervisor puts the run's stdout/stderr files on the host (src/sandbox/run.ts). */
const ioFileSize = (name: 'stdout' | 'stderr') => statSync(join(settings.sandbox.runs, SLOT, 'io', name)).size

type Expect = {
  verdict: Verdict['verdict']
  detail?: string
  stdout?: string | RegExp
  compile?: RegExp
  /** The result's exit code (null when a signal ended the program). */
  exitCode?: number | null
  /** The result's signal ('OTHER' when none ended the program). */
  signal?: string
  /** Stopped by the wall clock: its wall figure must be the configured cap, not nsjail's backstop. */
  wallCapped?: boolean
  /** The stream the program floods: the file on the host must stop at the cap. */
  flood?: 'stdout' | 'stderr'
}
interface Case {
  name: string
  source: string
  input?: string
  timeLimitSec?: number
  memoryLimitKb?: number
  expect: Expect
}

const echo = (source: string): Case => ({ name: 'echo', source, input: 'hello jail\n', expect: { verdict: 'AC', stdout: 'hello jail\n' } })
const sleep30 = (source: string): Case => ({ name: 'sleep(30)', source, timeLimitSec: 1, expect: { verdict: 'TLE', wallCapped: true } })
const exit3 = (source: string): Case => ({ name: 'exit(3)', source, expect: { verdict: 'RE', detail: 'NZEC', exitCode: 3, signal: 'OTHER' } })
/** An uncaught exception in a managed runtime: the runtime exits 1, no signal. */
const thrown = (name: string, source: string): Case => ({ name, source, expect: { verdict: 'RE', detail: 'NZEC', exitCode: 1, signal: 'OTHER' } })
const killedBy = (name: string, source: string, signal: string): Case => ({ name, source, expect: { verdict: 'RE', detail: signal, exitCode: null, signal } })
/** Floods one stream past the cap. Runtimes that ignore SIGXFSZ (CPython, node, the JVM) see EFBIG. */
const flood = (stream: 'stdout' | 'stderr', source: string, extra: Partial<Expect> = {}, timeLimitSec?: number): Case => ({
  name: `${stream} past the cap`,
  source,
  ...(timeLimitSec ? { timeLimitSec } : {}),
  expect: { verdict: 'RE', detail: 'SIGXFSZ', flood: stream, ...extra },
})

// C and the four C++ dialects share these (see cpp() below)
const C_CASES: Case[] = [
  echo('#include <stdio.h>\nint main(void){char b[256];if(fgets(b,sizeof b,stdin))fputs(b,stdout);return 0;}'),
  { name: 'compile error', source: 'int main(void){ return 0 }', expect: { verdict: 'CE', compile: /error: expected .;./ } },
  { name: 'infinite loop', source: 'int main(void){for(;;){}}', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  sleep30('#include <unistd.h>\nint main(void){sleep(30);return 0;}'),
  {
    name: '300 MB under 64 MB',
    // volatile: gcc would otherwise see through malloc + memset and allocate nothing
    source: '#include <stdlib.h>\nint main(void){size_t n=300u<<20;volatile char*p=malloc(n);if(!p)return 1;for(size_t i=0;i<n;i+=4096)p[i]=1;return p[n-4096]==1?0:2;}',
    memoryLimitKb: 65536,
    expect: { verdict: 'MLE' },
  },
  killedBy('null dereference', 'int main(void){volatile int*p=0;return *p;}', 'SIGSEGV'),
  killedBy('division by zero', 'int main(void){volatile int z=0;return 7/z;}', 'SIGFPE'),
  killedBy('abort()', '#include <stdlib.h>\nint main(void){abort();}', 'SIGABRT'),
  // the stack is 64 MiB (sandbox/jail.cfg), far under the 256 MB memory limit: a stack overflow is
  // a SIGSEGV, not an OOM kill (MLE) as with the host's unlimited stack. 10 s: under the cgroup v2
  // check's emulated CPU, growing the stack to 64 MiB took 2.05 s of CPU (a 2 s limit judged it TLE,
  // 2026-11-29); on the host it takes a few milliseconds
  { ...killedBy('unbounded recursion', 'int f(int d){volatile char pad[256];pad[0]=(char)d;return f(d+1)+pad[0];}\nint main(void){return f(0);}', 'SIGSEGV'), timeLimitSec: 10 },
  exit3('#include <stdlib.h>\nint main(void){exit(3);}'),
  // C keeps SIGXFSZ's default action: RLIMIT_FSIZE itself must end the program
  flood('stdout', '#include <stdio.h>\nint main(void){for(int i=0;i<1000000;i++)puts("flooding the output file with lines");return 0;}', { signal: 'SIGXFSZ' }),
  flood('stderr', '#include <stdio.h>\nint main(void){for(int i=0;i<1000000;i++)fputs("flooding the error file with lines\\n",stderr);return 0;}', { signal: 'SIGXFSZ' }),
]

const PY_CASES: Case[] = [
  echo('print(input())'),
  // 10 s, as the ZeroDivisionError row below: CPython 3.13 prints an uncaught error through its
  // traceback module (30 more modules imported: on the host 41-50 ms of CPU against hello's 22-25), and
  // under the cgroup v2 check's emulated CPU, code run for the first time costs its translation too: a
  // syntax error passed 3.09 s of CPU there, three times its start's 0.74 s (TLE, 2026-11-29)
  { name: 'syntax error', source: 'print("unclosed"', timeLimitSec: 10, expect: { verdict: 'RE', detail: 'NZEC', exitCode: 1 } },
  { name: 'infinite loop', source: 'while True:\n    pass', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  sleep30('import time\ntime.sleep(30)'),
  { name: '300 MB under 64 MB', source: 'b = b"x" * (300 << 20)\nprint(len(b))', memoryLimitKb: 65536, expect: { verdict: 'MLE' } },
  killedBy('null dereference', 'import ctypes\nctypes.string_at(0)', 'SIGSEGV'),
  // Python raises ZeroDivisionError rather than trapping: a non-zero exit, as on HackerEarth
  { ...thrown('division by zero', 'print(7 // 0)'), timeLimitSec: 10 },
  killedBy('abort()', 'import os\nos.abort()', 'SIGABRT'),
  exit3('import sys\nsys.exit(3)'),
  flood('stdout', 'while True:\n    print("flooding the output file with lines")'),
  flood('stderr', 'import sys\nwhile True:\n    sys.stderr.write("flooding the error file with lines\\n")'),
]

const JS_CASES: Case[] = [
  echo("process.stdout.write(require('fs').readFileSync(0, 'utf8'))"),
  {
    name: 'reads /dev/stdin',
    source: "console.log(require('fs').readFileSync('/dev/stdin', 'utf8').trim())",
    input: 'via the link\n',
    expect: { verdict: 'AC', stdout: 'via the link\n' },
  },
  { name: 'syntax error', source: "console.log('unclosed'", expect: { verdict: 'RE', detail: 'NZEC', exitCode: 1 } },
  { name: 'infinite loop', source: 'for (;;) {}', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  sleep30('setTimeout(() => {}, 30000)'),
  { name: '300 MB under 64 MB', source: 'const b = Buffer.alloc(300 << 20, 1); console.log(b.length)', memoryLimitKb: 65536, expect: { verdict: 'MLE' } },
  // JavaScript has no pointers: the natural null dereference is a property read, a TypeError
  thrown('null dereference', 'const o = null; console.log(o.x)'),
  // Number division by zero is Infinity, not an error, so no SIGFPE exists in JS; BigInt is its
  // integer division and throws a RangeError
  thrown('division by zero', 'console.log(7n / 0n)'),
  killedBy('abort()', 'process.abort()', 'SIGABRT'),
  exit3('process.exit(3)'),
  flood('stdout', "const fs = require('fs'); const line = 'flooding the output file with lines\\n'.repeat(1000); for (;;) fs.writeSync(1, line)"),
  flood('stderr', "const fs = require('fs'); const line = 'flooding the error file with lines\\n'.repeat(1000); for (;;) fs.writeSync(2, line)"),
]

const javaMain = (body: string, imports = '') =>
  `${imports}\npublic class Solution {\n  public static void main(String[] args) throws Exception {\n    ${body}\n  }\n}\n`
// JAVA, JAVA8 and JAVA14 share these. No abort() row: Java has no abort (Runtime.halt is an exit
// status), and the JVM's own SIGABRT (a crash report) is not something a program can ask for.
const JAVA_CASES: Case[] = [
  echo(javaMain('System.out.println(new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine());')),
  { name: 'compile error', source: javaMain('System.out.println("x")'), expect: { verdict: 'CE', compile: /';' expected/ } },
  { name: 'infinite loop', source: javaMain('long i = 0; while (true) { i++; }'), timeLimitSec: 1, expect: { verdict: 'TLE' } },
  sleep30(javaMain('Thread.sleep(30000);')),
  {
    name: '300 MB under 64 MB',
    source: javaMain('byte[] b = new byte[300 << 20]; java.util.Arrays.fill(b, (byte) 1); System.out.println(b.length);'),
    memoryLimitKb: 65536,
    expect: { verdict: 'MLE' },
  },
  // the JVM turns the SIGSEGV of a null access into a NullPointerException
  thrown('null dereference', javaMain('String s = args.length > 99 ? "x" : null; System.out.println(s.length());')),
  // integer division traps (SIGFPE) inside the JVM, which raises an ArithmeticException
  thrown('division by zero', javaMain('int z = args.length; System.out.println(7 / z);')),
  exit3(javaMain('System.exit(3);')),
  // PrintStream swallows EFBIG and carries on: the CPU limit ends it, the full file decides the verdict
  flood('stdout', javaMain('while (true) System.out.println("flooding the output file with lines");'), {}, 1),
  flood('stderr', javaMain('while (true) System.err.println("flooding the error file with lines");'), {}, 1),
]

// KOTLIN2, SCALA3 and TYPESCRIPT5 (compilers from the Maven and npm registries): the same rows as their
// runtime's table above, written in their language
const KOTLIN_CASES: Case[] = [
  echo('fun main() {\n    println(readln())\n}'),
  { name: 'compile error', source: 'fun main() {\n    println("x"\n}', expect: { verdict: 'CE', compile: /Expecting '\)'/ } },
  { name: 'infinite loop', source: 'fun main() {\n    var i = 0L\n    while (true) i++\n}', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  sleep30('fun main() {\n    Thread.sleep(30000)\n}'),
  { name: '300 MB under 64 MB', source: 'fun main() {\n    val b = ByteArray(300 shl 20)\n    b.fill(1)\n    println(b.size)\n}', memoryLimitKb: 65536, expect: { verdict: 'MLE' } },
  thrown('null dereference', 'fun main(args: Array<String>) {\n    val s: String? = if (args.size > 99) "x" else null\n    println(s!!.length)\n}'),
  thrown('division by zero', 'fun main(args: Array<String>) {\n    println(7 / args.size)\n}'),
  exit3('import kotlin.system.exitProcess\n\nfun main() {\n    exitProcess(3)\n}'),
  flood('stdout', 'fun main() {\n    while (true) println("flooding the output file with lines")\n}', {}, 1),
]
const SCALA_CASES: Case[] = [
  echo('@main def echo(): Unit =\n  println(scala.io.StdIn.readLine())'),
  { name: 'compile error', source: 'object Main {\n  def main(args: Array[String]): Unit = {\n    println("x"\n  }\n}', expect: { verdict: 'CE', compile: /Syntax Error|error/ } },
  { name: 'infinite loop', source: '@main def spin(): Unit =\n  var i = 0L\n  while true do i += 1', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  sleep30('@main def nap(): Unit =\n  Thread.sleep(30000)'),
  { name: '300 MB under 64 MB', source: '@main def big(): Unit =\n  val b = new Array[Byte](300 << 20)\n  java.util.Arrays.fill(b, 1.toByte)\n  println(b.length)', memoryLimitKb: 65536, expect: { verdict: 'MLE' } },
  thrown('null dereference', '@main def npe(args: String*): Unit =\n  val s: String = if args.size > 99 then "x" else null\n  println(s.length)'),
  thrown('division by zero', '@main def div(args: String*): Unit =\n  println(7 / args.size)'),
  exit3('@main def quit(): Unit =\n  sys.exit(3)'),
  flood('stdout', '@main def flood(): Unit =\n  while true do println("flooding the output file with lines")', {}, 1),
]
// GROOVY (Groovy 4 from the Maven registry on the same JVM): the same rows. Its own start (~1.1 s of
// CPU here) is past the sleep row's 0.5 s, which is why that row measures the sleep past the start.
// Each row gets 5 s, as language-tables.test.ts gives every row: on a loaded machine that start took over 2
const GROOVY_ROWS: Case[] = [
  echo('println(System.in.newReader().readLine())'),
  { name: 'compile error', source: 'println("x"\n', expect: { verdict: 'CE', compile: /Unexpected input/ } },
  { name: 'infinite loop', source: 'long i = 0\nwhile (true) i++', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  sleep30('Thread.sleep(30000)'),
  { name: '300 MB under 64 MB', source: 'byte[] b = new byte[300 << 20]\njava.util.Arrays.fill(b, (byte) 1)\nprintln(b.length)', memoryLimitKb: 65536, expect: { verdict: 'MLE' } },
  thrown('null dereference', 'String s = args.length > 99 ? "x" : null\nprintln(s.length())'),
  thrown('division by zero', 'println(7.intdiv(args.length))'),
  exit3('System.exit(3)'),
  flood('stdout', 'while (true) println("flooding the output file with lines")'),
]
const GROOVY_CASES: Case[] = GROOVY_ROWS.map((c) => ({ ...c, timeLimitSec: c.timeLimitSec ?? 5 }))
const TS_CASES: Case[] = [
  echo("const text: string = require('fs').readFileSync(0, 'utf8')\nprocess.stdout.write(text)"),
  { name: 'compile error', source: "const n: number = 'not a number'\nconsole.log(n)", expect: { verdict: 'CE', compile: /error TS2322/ } },
  { name: 'infinite loop', source: 'let i: number = 0\nfor (;;) { i++ }', timeLimitSec: 1, expect: { verdict: 'TLE' } },
  sleep30('setTimeout((): void => {}, 30000)'),
  { name: '300 MB under 64 MB', source: 'const b: Buffer = Buffer.alloc(300 << 20, 1)\nconsole.log(b.length)', memoryLimitKb: 65536, expect: { verdict: 'MLE' } },
  thrown('null dereference', 'const o: { x: number } | null = JSON.parse("null")\nconsole.log(o!.x)'),
  thrown('division by zero', 'const z: bigint = BigInt(process.argv.length - 2)\nconsole.log(7n / z)'),
  killedBy('abort()', 'process.abort()', 'SIGABRT'),
  exit3('process.exit(3)'),
  flood('stdout', "const fs = require('fs')\nconst line: string = 'flooding the output file with lines\\n'.repeat(1000)\nfor (;;) fs.writeSync(1, line)"),
]

// the C programs are C++ too, but for malloc's void* (C++ wants a cast)
const cpp = (c: Case): Case => ({ ...c, source: c.source.replace('#include <stdio.h>', '#include <cstdio>').replace('=malloc(n)', '=(char*)malloc(n)') })
const CPP_CASES = C_CASES.map(cpp)
// every language code gets every row of its language's table
const TABLE: Record<string, Case[]> = {
  C: C_CASES,
  CPP: CPP_CASES,
  CPP11: CPP_CASES,
  CPP14: CPP_CASES,
  CPP17: CPP_CASES,
  PYTHON3: PY_CASES,
  JAVASCRIPT_NODE: JS_CASES,
  JAVASCRIPT: JS_CASES,
  JAVA: JAVA_CASES,
  JAVA8: JAVA_CASES,
  JAVA14: JAVA_CASES,
  JAVA21: JAVA_CASES,
  CPP20: CPP_CASES,
  CPP23: CPP_CASES,
  KOTLIN2: KOTLIN_CASES,
  SCALA3: SCALA_CASES,
  GROOVY: GROOVY_CASES,
  TYPESCRIPT5: TS_CASES,
}

let runner: JobRunner
beforeAll(() => {
  runner = createJobRunner(settings, SLOT)
})
afterAll(async () => {
  await runner?.close()
})

async function judge(language: string, c: Omit<Case, 'name' | 'expect'>, room: Partial<Pick<Job, 'timeLimitSec' | 'compileTimeSec' | 'cacheScope' | 'wallTimeSec'>> = {}) {
  const job: Job = {
    language,
    source: c.source,
    input: c.input ?? '',
    timeLimitSec: c.timeLimitSec ?? 2,
    memoryLimitKb: c.memoryLimitKb ?? 262144,
    ...room,
  }
  const result = await runner.run(job)
  // the step's files stay on the host until the next step: their size is what reached the disk
  const files = result.run ? { stdout: ioFileSize('stdout'), stderr: ioFileSize('stderr') } : undefined
  return { job, result, files, verdict: verdictOf(result, job) }
}

/**
 * A language's own start where the tests run: its echo row compiled and run with roomy limits, outside
 * the compile cache. In the cgroup v2 check (QEMU, emulated) a JVM or node starts several times slower
 * than on the host, past most rows' limits; each row's limits leave the program as much room past that
 * start as on the host, and the sleep row measures what sleeping adds to it.
 */
interface Start {
  cpuSec: number
  wallSec: number
  compileCpuSec: number
}
async function measureStart(code: string, echoCase: Case): Promise<Start> {
  const once = async () => {
    const r = await judge(code, echoCase, { timeLimitSec: 60, compileTimeSec: 600, cacheScope: `start-${process.pid}` })
    expect(r.verdict.verdict, JSON.stringify({ verdict: r.verdict.verdict, compile: r.verdict.compileStatus.slice(0, 300), stderr: r.verdict.stderr.slice(0, 300) })).toBe('AC')
    expect(r.verdict.stdout).toEqual(echoCase.expect.stdout)
    return r.result
  }
  // the compile of the first; the run of the second, warm as the rows' runs are (in the v2 check a
  // first node start took 14.6 s of CPU, a later one 5.7 s)
  const first = await once()
  const second = await once()
  return { cpuSec: second.run!.cpuSec, wallSec: second.run!.wallSec, compileCpuSec: first.compile.step?.cpuSec ?? 0 }
}
/**
 * A row's limits past the language's start: at least three times its CPU (the program spends at least
 * two thirds of its limit past its start: in the cgroup v2 check a JVM's compiler threads spent another
 * 1.0 s of CPU in the first second of its main, and with twice its start's 1.5 s JAVA21's flood wrote
 * 39 KB of the 64 KB cap before its limit) and a wall cap (2 x limit + 0.5 s) past twice its wall. On the host every
 * language starts well inside every row's limit, which then stays the row's own; a compile gets twice
 * the compile's CPU when that is past the language's compile limit.
 */
function roomPast(start: Start, lang: { compileLimits: { timeSec?: number } }, timeLimitSec: number) {
  const compileSec = lang.compileLimits.timeSec ?? settings.limits.compileTimeSec
  return {
    timeLimitSec: Math.max(timeLimitSec, Math.ceil(3 * start.cpuSec), Math.ceil(start.wallSec)),
    ...(2 * start.compileCpuSec > compileSec && { compileTimeSec: Math.ceil(2 * start.compileCpuSec) }),
  }
}
/** What sleeping may add to a run's CPU time: far under the wall time it sleeps (asserted at least twice this). */
const SLEEP_CPU_SEC = 0.5
/** How much longer the sleep row's second run sleeps, when its first ended past the start's CPU by SLEEP_CPU_SEC. */
const SLEEP_MORE_SEC = 4
/**
 * The sleep row's wall cap: its own, the row's derived one or 2 s past the start's wall, so that the cap
 * and not the end of its 30 s sleep stops it, even after a 15 s start (three times that start's CPU, the
 * other rows' room and the sleep row's too, would give it a 90 s cap there). That CPU room it needs as
 * they do: a runtime may go on working after its program begins to sleep (in the cgroup v2 check, a
 * JVM's compiler threads spent 1.0 s of CPU in the first second of its main, past what its echo spent).
 */
const sleepWallSec = (start: Start, timeLimitSec: number) => Math.max(wallCapSec(timeLimitSec), start.wallSec + 2)

for (const [code, cases] of Object.entries(TABLE)) {
  const lang = langs.get(code)
  describe(`${code} in the jail`, () => {
    // npm test provisions every toolchain: a missing one fails here rather than skipping the cases
    it('is provisioned', () => expect(!!lang && isProvisioned(config.paths.toolchains, lang)).toBe(true))
    const echoCase = cases.find((c) => c.name === 'echo')!
    // measured once, by whichever of this table's rows runs first (a -t filter may pick any)
    let started: Promise<Start> | undefined
    const startOf = () => (started ??= measureStart(code, echoCase))
    it('starts: its echo with roomy limits (what the other rows\' limits and the sleep row are measured against)', { timeout: 600_000 }, async () => {
      const start = await startOf()
      console.log(`${code} start: run ${start.cpuSec.toFixed(2)} s CPU, ${start.wallSec.toFixed(2)} s wall; compile ${start.compileCpuSec.toFixed(2)} s CPU`)
    })
    for (const c of cases) {
      it(c.name, { timeout: 600_000 }, async () => {
        const start = await startOf()
        const room = { ...roomPast(start, lang!, c.timeLimitSec ?? 2), ...(c.expect.wallCapped && { wallTimeSec: sleepWallSec(start, c.timeLimitSec ?? 2) }) }
        const { job, result, files, verdict: v } = await judge(code, c, room)
        const summary = {
          verdict: v.verdict,
          detail: v.statusDetail,
          exitCode: v.exitCode,
          signal: v.signal,
          cpuSec: v.timeUsedSec,
          wallSec: result.run?.wallSec,
          timeLimitSec: job.timeLimitSec,
          start,
          files,
          compile: v.compileStatus.slice(0, 300),
          stdout: v.stdout.slice(0, 300),
          stderr: v.stderr.slice(0, 300),
        }
        const why = JSON.stringify(summary)
        expect(summary.verdict, why).toBe(c.expect.verdict)
        if (c.expect.detail) expect(v.statusDetail, why).toBe(c.expect.detail)
        if (c.expect.exitCode !== undefined) expect(v.exitCode, why).toBe(c.expect.exitCode)
        if (c.expect.signal !== undefined) expect(v.signal, why).toBe(c.expect.signal)
        if (c.expect.stdout !== undefined) expect(v.stdout).toEqual(c.expect.stdout)
        if (c.expect.compile) expect(v.compileStatus).toMatch(c.expect.compile)
        if (c.expect.wallCapped) {
          /** Asleep, so the wall cap stopped it and not the CPU limit: at the configured cap, not nsjail's
           * backstop (the upper bound is halfway to the backstop, to allow for a loaded machine). */
          const capped = (run: { wallSec: number }, cap: number, why: string) => {
            expect(run.wallSec, why).toBeGreaterThanOrEqual(cap)
            expect(run.wallSec, why).toBeLessThan((cap + wallBackstopSec(cap)) / 2)
          }
          capped(result.run!, job.wallTimeSec!, why)
          // past the language's own start (measured here, in the same environment) the sleep added at
          // least twice SLEEP_CPU_SEC of wall time; wherever the start itself is under half SLEEP_CPU_SEC (on
          // the host, every language but SCALA3 and GROOVY), the whole run's CPU time is under SLEEP_CPU_SEC too (not
          // where it is near it: under emulation PYTHON3 started in 0.48 s and its whole sleep run took 0.57)
          expect(result.run!.wallSec - start.wallSec, why).toBeGreaterThanOrEqual(2 * SLEEP_CPU_SEC)
          if (start.cpuSec < SLEEP_CPU_SEC / 2) expect(v.timeUsedSec, why).toBeLessThan(SLEEP_CPU_SEC)
          // and under SLEEP_CPU_SEC of CPU past the start; or, where the runtime spent more than its echo
          // did (a JVM or node under emulation works on for a second or two after its program sleeps),
          // the same program capped SLEEP_MORE_SEC later must add under half those seconds of CPU: a
          // sleep billed as CPU time adds all of them, and fails either way (under emulation with the
          // host busy, JAVA21's JIT and collector threads added 0.52 s over the 4 s in one v2 check)
          if (v.timeUsedSec - start.cpuSec >= SLEEP_CPU_SEC) {
            const more = await judge(code, c, { ...room, timeLimitSec: room.timeLimitSec + SLEEP_MORE_SEC, wallTimeSec: job.wallTimeSec! + SLEEP_MORE_SEC })
            const whyMore = JSON.stringify({ first: summary, more: { verdict: more.verdict.verdict, detail: more.verdict.statusDetail, cpuSec: more.verdict.timeUsedSec, wallSec: more.result.run?.wallSec } })
            console.log(`${code} sleep past its start: ${whyMore}`)
            expect(more.verdict.verdict, whyMore).toBe('TLE')
            capped(more.result.run!, more.job.wallTimeSec!, whyMore)
            expect(more.result.run!.wallSec - result.run!.wallSec, whyMore).toBeGreaterThanOrEqual(SLEEP_MORE_SEC - 0.5)
            expect(more.verdict.timeUsedSec - v.timeUsedSec, whyMore).toBeLessThan(SLEEP_MORE_SEC / 2)
          }
        }
        if (c.expect.flood) {
          // RLIMIT_FSIZE stopped the file on the host at the cap, whatever the program did after
          const other = c.expect.flood === 'stdout' ? 'stderr' : 'stdout'
          expect(files![c.expect.flood], why).toBe(OUTPUT_CAP)
          expect(files![other], why).toBeLessThan(OUTPUT_CAP)
        }
      })
    }
  })
}

// ── containment: what a program must not reach, whatever its language ────────────────────────────

/** Runs a command on the host, outside any jail, as the uid/gid jailed programs get (65534). */
const bareAsNobody = (argv: string[]) => spawnSync(argv[0], argv.slice(1), { uid: 65534, gid: 65534, encoding: 'utf8' })

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

/** Runs fsProgram over "op path" probes; answers probe -> "OK" or the strerror of the failure. */
async function probeFiles(probes: string[]): Promise<Record<string, string>> {
  const { verdict: v } = await judge('C', { source: fsProgram, input: probes.join('\n') + '\n' })
  expect(v.verdict, v.stderr).toBe('AC')
  const lines = v.stdout.trim().split('\n')
  expect(lines, v.stdout).toHaveLength(probes.length)
  return Object.fromEntries(lines.map((l) => [l.split(' ').slice(0, 2).join(' '), l.split(' ').slice(2).join(' ')]))
}

const ABSENT = 'No such file or directory'
/** The path resolves to nothing: ENOENT, or ENOTDIR when a prefix is a file of the jail's own (a
 * checkout at /work/main meets the compiled /work/main of the job's work directory). */
const ABSENT_PATH = /^(No such file or directory|Not a directory)$/

describe('the jail contains a C program', () => {
  let server: Server
  let port = 0
  // an address of this host other than loopback: reaching it would mean the jail has the host's network
  const hostAddress = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address

  beforeAll(async () => {
    // a server the host itself can reach on loopback and on its own interface address
    server = createServer((s) => s.end('reached\n'))
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r))
    port = (server.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  /** The host's own connection to the listener: the control that the port is open. */
  const reachFromHost = (ip: string) =>
    new Promise<string>((resolve, reject) => {
      let got = ''
      const s = connect(port, ip)
      s.setEncoding('utf8')
      s.on('data', (d) => (got += d))
      s.on('end', () => resolve(got))
      s.on('error', reject)
    })

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

  it('cannot open a TCP connection to 127.0.0.1 or to the host address that the host itself reaches', async () => {
    expect(hostAddress, 'this host has a non-loopback IPv4 address').toBeDefined()
    // control: a listener on 0.0.0.0 that the host reaches on both addresses
    expect(await reachFromHost('127.0.0.1')).toBe('reached\n')
    expect(await reachFromHost(hostAddress!)).toBe('reached\n')

    const { verdict: v } = await judge('C', { source: connectProgram, input: `127.0.0.1 ${port}\n${hostAddress} ${port}\n` })
    expect(v.verdict).toBe('AC')
    const lines = v.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^127\.0\.0\.1 /)
    expect(lines[1].startsWith(`${hostAddress} `)).toBe(true)
    for (const line of lines) expect(line).not.toContain('CONNECTED')
  })

  it('cannot write to /, /usr, /etc or devices', async () => {
    const denied = ['w /evil', 'w /usr/evil', 'w /etc/passwd', 'w /etc/evil', 'r /etc/shadow', 'w /dev/console', 'w /dev/tty', 'w /dev/ptmx']
    const results = await probeFiles([...denied, 'w /work/allowed', 'w /tmp/allowed'])
    for (const p of denied) expect(results[p], p).not.toBe('OK')
    // the job's own work directory and /tmp are writable
    expect(results['w /work/allowed']).toBe('OK')
    expect(results['w /tmp/allowed']).toBe('OK')
  })

  describe('cannot see host files that uid 65534 reads bare', () => {
    // /etc/shadow proves nothing (0640 root:shadow on the host and in the root alike): a
    // world-readable marker does. Not under /tmp: the jail mounts its own tmpfs there, which would
    // hide the marker even if the chroot were gone.
    let markerDir = ''
    let marker = ''
    beforeAll(() => {
      markerDir = mkdtempSync('/var/tmp/arbiter-marker-')
      chmodSync(markerDir, 0o755)
      marker = join(markerDir, 'secret.txt')
      writeFileSync(marker, 'host secret\n')
      chmodSync(marker, 0o644)
    })
    afterAll(() => rmSync(markerDir, { recursive: true, force: true }))

    it('a world-readable file outside the toolchain root', async () => {
      const bare = bareAsNobody(['cat', marker])
      expect(bare.status, bare.stderr).toBe(0)
      expect(bare.stdout).toBe('host secret\n')
      const results = await probeFiles([`r ${marker}`, `r ${markerDir}`])
      expect(results[`r ${marker}`]).toMatch(ABSENT_PATH)
      expect(results[`r ${markerDir}`]).toMatch(ABSENT_PATH)
    })

    it("the project's data directory and its database", async () => {
      // the directory the server uses without ARBITER_DATA (src/config.ts): the checkout's data/
      const dataDir = dataDirFromEnv({})
      // data/.gitkeep is in git, so it exists on any checkout; config.toml and arbiter.db may not yet.
      // (The control is existence, not uid 65534 reading it: a checkout under /root is not readable
      // by that uid bare, and in the jail a permission error would not count as absent anyway.)
      for (const p of [dataDir, join(dataDir, '.gitkeep')]) expect(existsSync(p), p).toBe(true)
      const paths = [dataDir, join(dataDir, '.gitkeep'), join(dataDir, 'config.toml'), join(dataDir, 'arbiter.db'), join(config.dataDir, 'config.toml')]
      const results = await probeFiles(paths.map((p) => `r ${p}`))
      for (const p of paths) expect(results[`r ${p}`], p).toMatch(ABSENT_PATH)
    })
  })

  it('keeps /tmp, /dev/shm and /work private to one run', async () => {
    const left = ['/tmp', '/dev/shm', '/work'].map((d) => `${d}/left-behind-${process.pid}`)
    const first = await probeFiles(left.flatMap((p) => [`w ${p}`, `r ${p}`]))
    for (const p of left) expect(first[`r ${p}`], p).toBe('OK') // written and read back in the first run
    const next = await probeFiles(left.map((p) => `r ${p}`))
    for (const p of left) expect(next[`r ${p}`], p).toBe(ABSENT)
  })

  it('contains a fork bomb, and the next job still runs', async () => {
    const bomb = '#include <unistd.h>\nint main(void){for(;;)fork();}'
    const { verdict: v } = await judge('C', { source: bomb, timeLimitSec: 1 })
    expect(['TLE', 'RE']).toContain(v.verdict)
    const next = await judge('C', { source: C_CASES[0].source, input: 'still alive\n' })
    expect(next.verdict.verdict).toBe('AC')
    expect(next.verdict.stdout).toBe('still alive\n')
  })

  // reads a ceiling N from stdin, tries N times, prints how many succeeded and why the next failed
  const untilFailure = (attempt: string, headers: string) => `
#include <errno.h>
#include <stdio.h>
#include <string.h>
${headers}
int main(void){
  int max, n = 0, err = 0;
  if (scanf("%d", &max) != 1) return 2;
  while (n < max) { ${attempt} n++; }
  printf("%d %s\\n", n, err ? strerror(err) : "no failure");
  fflush(stdout);
  return 0;
}`

  it('stops forking at the configured process limit', async () => {
    const limit = settings.limits.processes
    // children wait in pause(); the jail's init takes them all down when the program exits
    const src = untilFailure('pid_t p = fork(); if (p < 0) { err = errno; break; } if (p == 0) { pause(); _exit(0); }', '#include <unistd.h>')
    const { verdict: v } = await judge('C', { source: src, input: `${limit * 4}\n` })
    expect(v.verdict, v.stderr).toBe('AC')
    const [count, ...why] = v.stdout.trim().split(' ')
    // the jail's init and the program itself count too
    expect(Number(count), v.stdout).toBeLessThanOrEqual(limit - 2)
    expect(Number(count), v.stdout).toBeGreaterThanOrEqual(limit - 4)
    expect(why.join(' ')).toBe('Resource temporarily unavailable') // EAGAIN
  })

  it('stops opening files at the configured open-files limit', async () => {
    const limit = settings.limits.openFiles
    const src = untilFailure('if (open("/dev/null", O_RDONLY) < 0) { err = errno; break; }', '#include <fcntl.h>')
    const { verdict: v } = await judge('C', { source: src, input: `${limit * 4}\n` })
    expect(v.verdict, v.stderr).toBe('AC')
    const [count, ...why] = v.stdout.trim().split(' ')
    // stdin, stdout and stderr are open already
    expect(Number(count), v.stdout).toBeLessThanOrEqual(limit - 3)
    expect(Number(count), v.stdout).toBeGreaterThanOrEqual(limit - 6)
    expect(why.join(' ')).toBe('Too many open files') // EMFILE
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

// ── hostile system calls: what the seccomp allow-list, the init and the rlimits refuse ──

const errnoName = (n: number) => Object.entries(constants.errno).find(([, v]) => v === n)?.[0] ?? `E${n}`
/** Parses "name OK" / "name <errno>" lines into name -> 'OK' | 'EPERM' | ... */
const attempts = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .filter((l) => / (OK|-?\d+)$/.test(l))
      .map((l) => {
        const at = l.lastIndexOf(' ')
        const r = l.slice(at + 1)
        return [l.slice(0, at), r === 'OK' ? 'OK' : errnoName(Number(r))]
      })
  )

const ATTEMPT_HEADER = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
static void attempt(const char* name, long r) { if (r >= 0) printf("%s OK\\n", name); else printf("%s %d\\n", name, errno); fflush(stdout); }
`

describe('the jail contains hostile system calls', () => {
  it('a program cannot forge its verdict through the init report (pidfd_getfd, /proc/1/fd, ptrace): SIGSEGV stays RE', async () => {
    const src = `${ATTEMPT_HEADER}
int main(void){
  const char* ok = "exit 0\\n";
  long pidfd = syscall(SYS_pidfd_open, 1, 0);
  attempt("pidfd_open(1)", pidfd);
  long fd = pidfd >= 0 ? syscall(SYS_pidfd_getfd, pidfd, 3, 0) : -1;
  if (pidfd >= 0) attempt("pidfd_getfd(init, 3)", fd);
  if (fd >= 0) write((int)fd, ok, strlen(ok));
  int viaProc = open("/proc/1/fd/3", O_WRONLY);
  attempt("open(/proc/1/fd/3)", viaProc);
  if (viaProc >= 0) write(viaProc, ok, strlen(ok));
  attempt("open(/proc/1/mem)", open("/proc/1/mem", O_RDWR));
  attempt("ptrace(ATTACH, 1)", ptrace(PTRACE_ATTACH, 1, 0, 0));
  *(volatile int*)0 = 1;
  return 0;
}`
    const { verdict: v } = await judge('C', { source: src })
    const got = attempts(v.stdout)
    expect(v.verdict, JSON.stringify({ got, stderr: v.stderr })).toBe('RE')
    expect(v.signal).toBe('SIGSEGV')
    expect(got['pidfd_open(1)']).toBe('EPERM')
    expect(got['open(/proc/1/fd/3)']).toBe('EACCES')
    expect(got['open(/proc/1/mem)']).toBe('EACCES')
    expect(got['ptrace(ATTACH, 1)']).toBe('EPERM')
  })

  it('refuses every call outside the allow-list with EPERM (clone3: ENOSYS), and allows the ordinary ones', async () => {
    const src = `${ATTEMPT_HEADER}
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <sys/personality.h>
struct clone_args_v0 { uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls; };
static long clone_ns(long flags) {
  long r = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
  if (r == 0) _exit(0);
  if (r > 0) waitpid((pid_t)r, 0, 0);
  return r;
}
int main(void){
  /* a new user namespace would hold every capability in its own namespaces */
  attempt("clone(NEWUSER)", clone_ns(CLONE_NEWUSER));
  attempt("clone(NEWUSER|NEWNS)", clone_ns(CLONE_NEWUSER | CLONE_NEWNS));
  attempt("clone(NEWUSER|NEWNET)", clone_ns(CLONE_NEWUSER | CLONE_NEWNET));
  attempt("clone(NEWUSER|NEWPID)", clone_ns(CLONE_NEWUSER | CLONE_NEWPID));
  attempt("clone(NEWUSER|NEWIPC)", clone_ns(CLONE_NEWUSER | CLONE_NEWIPC));
  attempt("clone(NEWUSER|NEWUTS)", clone_ns(CLONE_NEWUSER | CLONE_NEWUTS));
  attempt("clone(NEWUSER|NEWCGROUP)", clone_ns(CLONE_NEWUSER | CLONE_NEWCGROUP));
  struct clone_args_v0 ca = { .flags = CLONE_NEWUSER, .exit_signal = SIGCHLD };
  long c3 = syscall(SYS_clone3, &ca, sizeof ca);
  if (c3 == 0) _exit(0);
  attempt("clone3(NEWUSER)", c3);
  attempt("unshare(NEWUSER)", unshare(CLONE_NEWUSER));
  attempt("setns", setns(0, 0));
  /* the new mount API */
  attempt("fsopen", syscall(SYS_fsopen, "tmpfs", 0));
  attempt("fspick", syscall(SYS_fspick, AT_FDCWD, "/tmp", 0));
  attempt("fsconfig", syscall(SYS_fsconfig, 0, 0, 0, 0, 0));
  attempt("fsmount", syscall(SYS_fsmount, 0, 0, 0));
  attempt("move_mount", syscall(SYS_move_mount, 0, "", AT_FDCWD, "/tmp", 0));
  attempt("open_tree", syscall(SYS_open_tree, AT_FDCWD, "/tmp", 1));
  attempt("mount_setattr", syscall(SYS_mount_setattr, AT_FDCWD, "/tmp", 0, 0, 0));
  /* sockets: netlink (nf_tables), packet and raw sockets */
  attempt("socket(NETLINK, ROUTE)", socket(AF_NETLINK, SOCK_RAW, 0));
  attempt("socket(NETLINK, NETFILTER)", socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 12));
  attempt("socket(PACKET)", socket(AF_PACKET, SOCK_RAW, 0));
  attempt("socket(INET, RAW)", socket(AF_INET, SOCK_RAW, 1));
  attempt("socket(INET6, RAW)", socket(AF_INET6, SOCK_RAW, 58));
  attempt("socket(VSOCK)", socket(40, SOCK_STREAM, 0));
  /* processes, memory and the kernel's other doors */
  attempt("pidfd_open(self)", syscall(SYS_pidfd_open, getpid(), 0));
  attempt("pidfd_getfd", syscall(SYS_pidfd_getfd, 0, 0, 0));
  attempt("memfd_secret", syscall(SYS_memfd_secret, 0));
  attempt("personality(ADDR_NO_RANDOMIZE)", personality(ADDR_NO_RANDOMIZE));
  char ldt[16];
  attempt("modify_ldt", syscall(SYS_modify_ldt, 0, ldt, sizeof ldt));
  unsigned action = 0x7fff0000u;
  attempt("seccomp(GET_ACTION_AVAIL)", syscall(SYS_seccomp, 2, 0, &action));
  attempt("prctl(PR_SET_SECCOMP)", prctl(PR_SET_SECCOMP, 2, 0, 0, 0));
  attempt("landlock_create_ruleset", syscall(SYS_landlock_create_ruleset, 0, 0, 1));
  attempt("bpf", syscall(SYS_bpf, BPF_MAP_CREATE, 0, 0));
  attempt("keyctl", syscall(SYS_keyctl, 0, -3, 1));
  attempt("add_key", syscall(SYS_add_key, "user", "k", "v", 1, -2));
  char params[120] = {0};
  attempt("io_uring_setup", syscall(SYS_io_uring_setup, 1, params));
  unsigned long aio = 0;
  attempt("io_setup", syscall(SYS_io_setup, 1, &aio));
  attempt("userfaultfd", syscall(SYS_userfaultfd, 0));
  struct perf_event_attr pe = { .type = PERF_TYPE_SOFTWARE, .size = sizeof pe, .config = PERF_COUNT_SW_CPU_CLOCK };
  attempt("perf_event_open", syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0));
  attempt("ptrace(TRACEME)", ptrace(PTRACE_TRACEME, 0, 0, 0));
  attempt("process_vm_readv", syscall(SYS_process_vm_readv, getppid(), 0, 0, 0, 0, 0));
  attempt("kcmp", syscall(SYS_kcmp, getpid(), getpid(), 0, 0, 0));
  /* the x32 ABI's numbers are other numbers: outside the list too */
  attempt("x32 getpid", syscall(0x40000000 | SYS_getpid));
  /* what ordinary programs and runtimes do must still work */
  attempt("socket(INET, STREAM)", socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  attempt("socket(INET6, DGRAM)", socket(AF_INET6, SOCK_DGRAM, 0));
  int sv[2];
  attempt("socketpair(UNIX)", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  attempt("personality(query)", personality(0xffffffff));
  attempt("memfd_create", memfd_create("x", MFD_CLOEXEC));
  long child = clone_ns(0);
  attempt("fork via clone", child);
  return 0;
}`
    const { verdict: v } = await judge('C', { source: src })
    expect(v.verdict, v.compileStatus + v.stderr).toBe('AC')
    const got = attempts(v.stdout)
    const allowed = ['socket(INET, STREAM)', 'socket(INET6, DGRAM)', 'socketpair(UNIX)', 'personality(query)', 'memfd_create', 'fork via clone']
    expect(Object.keys(got).length, v.stdout).toBe(48)
    for (const [name, result] of Object.entries(got)) {
      const want = allowed.includes(name) ? 'OK' : name.startsWith('clone3') ? 'ENOSYS' : 'EPERM'
      expect(`${name} ${result}`).toBe(`${name} ${want}`)
    }
  })
})

describe('the jail contains what /proc tells about the host', () => {
  it('/proc/cmdline, boot_id and diskstats are unreadable (the host reads them; /proc/meminfo stays)', async () => {
    const masked = ['/proc/cmdline', '/proc/sys/kernel/random/boot_id', '/proc/diskstats']
    for (const p of masked) expect(readFileSync(p, 'utf8').length, p).toBeGreaterThan(0) // control
    const results = await probeFiles([...masked, '/proc/meminfo'].map((p) => `r ${p}`))
    for (const p of masked) expect(results[`r ${p}`], p).toBe('Permission denied')
    expect(results['r /proc/meminfo']).toBe('OK')
  })

  it('mountinfo names no host folder: the root is an image of its own, the init and mask sit on the jail\'s tmpfs', async () => {
    const src = 'import sys\nsys.stdout.write(open("/proc/self/mountinfo").read() + "@@\\n" + open("/proc/self/mounts").read())'
    const { verdict: v } = await judge('PYTHON3', { source: src })
    expect(v.verdict, v.stderr).toBe('AC')
    const [mountinfo, mounts] = v.stdout.split('@@\n')
    const rows = mountinfo.trim().split('\n').map((l) => l.split(' '))
    expect(rows.length, mountinfo).toBeGreaterThan(5)
    // field 4 is the folder of its file system a mount shows: an allow-list of what may appear
    // (a whole file system, or one of the single files bound in); host folders would be longer paths
    const allowed = ['/', '/null', '/zero', '/urandom', '/masked', '/init']
    for (const r of rows) expect(allowed, r.join(' ')).toContain(r[3])
    const root = rows.find((r) => r[4] === '/')!
    expect(root.slice(root.indexOf('-') + 1, root.indexOf('-') + 3), root.join(' ')).toEqual(['squashfs', expect.stringMatching(/^\/dev\/loop\d+$/)])
    // and nothing anywhere names where toolchains, binaries or slots live on the host
    for (const text of [mountinfo, mounts]) {
      for (const hostPath of [settings.toolchains, settings.sandbox.runs, settings.sandbox.jailInit, '/var/lib', '/run/arbiter']) {
        expect(text, hostPath).not.toContain(hostPath)
      }
    }
  })

  it("the program holds only stdin, stdout and stderr, and their links show no host path", async () => {
    const src = '#include <dirent.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\nint main(void){char b[512];DIR*d=opendir("/proc/self/fd");struct dirent*e;while((e=readdir(d))){if(e->d_name[0]==\'.\'||atoi(e->d_name)==dirfd(d))continue;char p[300];snprintf(p,sizeof p,"/proc/self/fd/%s",e->d_name);ssize_t n=readlink(p,b,sizeof b-1);if(n<0)return 1;b[n]=0;printf("%s %s\\n",e->d_name,b);}return 0;}'
    const { verdict: v } = await judge('C', { source: src })
    expect(v.verdict, v.stderr).toBe('AC')
    const links = v.stdout.trim().split('\n')
    // nothing else is open: no report descriptor, no log, no host directory
    expect(links.map((l) => l.split(' ')[0]).sort(), v.stdout).toEqual(['0', '1', '2'])
    for (const l of links) {
      expect(l).not.toContain(settings.sandbox.runs)
      expect(l).not.toContain(SLOT)
    }
  })
})

// ── host quotas: a run may hold only a bounded share of what the kernel counts to root ──

describe('the jail contains quota grabs charged to the host', () => {
  let helper = ''
  let helperDir = ''
  beforeAll(() => {
    // the host's own use, as root: one inotify instance, one POSIX timer, one queued signal, one queue
    helperDir = mkdtempSync('/var/tmp/arbiter-quota-')
    // built statically with the C toolchain's own gcc (the v2 check's VM has no compiler of its
    // own), chrooted as root in a private mount namespace with a scratch /tmp; it runs on the host
    const source = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
static void say(const char* what, int ok) { printf("%s %s\\n", what, ok ? "OK" : strerror(errno)); }
int main(void){
  say("inotify_init", inotify_init1(0) >= 0);
  struct sigevent ev = {0}; ev.sigev_notify = SIGEV_SIGNAL; ev.sigev_signo = SIGRTMIN; timer_t t;
  say("timer_create", timer_create(CLOCK_MONOTONIC, &ev, &t) == 0);
  sigset_t s; sigemptyset(&s); sigaddset(&s, SIGRTMIN + 1); sigprocmask(SIG_BLOCK, &s, 0);
  union sigval v = {0};
  say("sigqueue", sigqueue(getpid(), SIGRTMIN + 1, v) == 0);
  char n[64]; snprintf(n, sizeof n, "/arbiter-quota-probe-%d", getpid());
  struct mq_attr a = {0}; a.mq_maxmsg = 10; a.mq_msgsize = 8192;
  mqd_t q = mq_open(n, O_CREAT | O_RDWR, 0600, &a);
  say("mq_open", q != (mqd_t)-1);
  if (q != (mqd_t)-1) mq_unlink(n);
  return 0;
}`
    const build = 'mount -t tmpfs none "$1/tmp" && exec chroot "$1" /bin/sh -c "gcc -O2 -static -x c -o /tmp/probe - && cat /tmp/probe"'
    const binary = execFileSync('unshare', ['-m', 'sh', '-c', build, 'sh', join(config.paths.toolchains, langs.get('C')!.root)], {
      input: source,
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      maxBuffer: 64 << 20,
    })
    helper = join(helperDir, 'probe')
    writeFileSync(helper, binary, { mode: 0o755 })
  })
  afterAll(() => rmSync(helperDir, { recursive: true, force: true }))

  const hostUse = () => Object.fromEntries(execFileSync(helper, { encoding: 'utf8' }).trim().split('\n').map((l) => [l.split(' ')[0], l.split(' ').slice(1).join(' ')]))

  it('inotify, POSIX timers, queued signals, message queues and locked memory: bounded while the program holds all it got', async () => {
    expect(hostUse()).toEqual({ inotify_init: 'OK', timer_create: 'OK', sigqueue: 'OK', mq_open: 'OK' }) // control
    const src = `${ATTEMPT_HEADER}
#include <mqueue.h>
#include <sys/inotify.h>
#include <time.h>
int main(void){
  int n = 0; while (n < 1000 && inotify_init1(0) >= 0) n++;
  printf("inotify instances %d\\n", n);
  struct sigevent ev = {0}; ev.sigev_notify = SIGEV_SIGNAL; ev.sigev_signo = SIGRTMIN;
  long t = 0; timer_t id; while (t < 200000 && timer_create(CLOCK_MONOTONIC, &ev, &id) == 0) t++;
  printf("timers %ld\\n", t);
  sigset_t s; sigemptyset(&s); sigaddset(&s, SIGRTMIN + 1); sigprocmask(SIG_BLOCK, &s, 0);
  union sigval v = {0}; long q = 0; while (q < 200000 && sigqueue(getpid(), SIGRTMIN + 1, v) == 0) q++;
  printf("queued signals %ld\\n", q);
  struct mq_attr a = {0}; a.mq_maxmsg = 10; a.mq_msgsize = 8192;
  int m = 0; char name[32]; while (m < 1000) { snprintf(name, sizeof name, "/q%d", m); if (mq_open(name, O_CREAT | O_RDWR, 0600, &a) == (mqd_t)-1) break; m++; }
  printf("message queues %d\\n", m);
  static char lockme[1 << 20];
  attempt("mlock 1 MiB", mlock(lockme, sizeof lockme));
  printf("ready\\n");
  fflush(stdout);
  sleep(3);
  return 0;
}`
    const stdoutFile = join(settings.sandbox.runs, SLOT, 'io', 'stdout')
    rmSync(stdoutFile, { force: true })
    const running = judge('C', { source: src, timeLimitSec: 2 })
    // while the program holds everything it could take, the host (root) still gets its own
    let seen = ''
    for (let i = 0; i < 600 && !seen.includes('ready'); i++) {
      await new Promise((r) => setTimeout(r, 50))
      try {
        seen = readFileSync(stdoutFile, 'utf8')
      } catch {
        // not created yet (the compile step runs first)
      }
    }
    expect(seen, 'the program reached its holding point').toContain('ready')
    const host = hostUse()
    const { verdict: v } = await running
    expect(v.verdict, v.stderr).toBe('AC')
    expect(host, v.stdout).toEqual({ inotify_init: 'OK', timer_create: 'OK', sigqueue: 'OK', mq_open: 'OK' })
    const count = (what: string) => Number(new RegExp(`^${what} (\\d+)$`, 'm').exec(v.stdout)?.[1])
    expect(count('inotify instances'), v.stdout).toBe(0) // refused by the allow-list
    expect(count('message queues'), v.stdout).toBe(0) // refused by the allow-list (and RLIMIT_MSGQUEUE 0)
    expect(count('timers') + count('queued signals'), v.stdout).toBeLessThanOrEqual(1024) // RLIMIT_SIGPENDING
    expect(attempts(v.stdout)['mlock 1 MiB']).toMatch(/^(ENOMEM|EPERM|EAGAIN)$/) // RLIMIT_MEMLOCK 64 KiB
  })
})

describe('the jail contains what a step writes back', () => {
  it("a 150-byte C++ template explosion: the compiler's 13 MB message is read back only up to the output cap (64 KB here), and says so", async () => {
    const source = `#include <utility>
template<int N,class T>struct A{typedef typename A<N-1,std::pair<T,T>>::t t;};
template<class T>struct A<0,T>{};
int main(){A<19,int>::t x;}
`
    const { result, verdict } = await judge('CPP17', { source })
    expect(verdict.verdict).toBe('CE')
    const cap = settings.limits.outputCapBytes
    const bytes = Buffer.byteLength(result.compile.message)
    // the head of the real message, then the notice: never the whole (about 13 MB here)
    expect(result.compile.message).toMatch(/^main\.cpp: In instantiation of/)
    expect(result.compile.message.endsWith(cutNotice(cap))).toBe(true)
    expect(bytes).toBeLessThanOrEqual(cap + 100)
    expect(bytes).toBeGreaterThan(cap / 2)
    // and the raw step carries no more than the cap per stream either
    expect(Buffer.byteLength(result.compile.step!.stderr)).toBeLessThanOrEqual(cap)
    expect(result.compile.step!.textCut).toBe(true)
  })

  /** Bytes the files in the slot's box hold (0 when it is not mounted: only its mount point is there). */
  const boxBytes = () => {
    const box = join(settings.sandbox.runs, SLOT, 'box')
    if (!readFileSync('/proc/mounts', 'utf8').includes(box)) return 0
    const s = statfsSync(box)
    return (s.blocks - s.bfree) * s.bsize
  }

  it('the work directory is bounded in bytes: 1.5 GB written to /work (files under RLIMIT_FSIZE) stops at the cap, RE SIGXFSZ, freed after', async () => {
    // each file stays under RLIMIT_FSIZE (the output cap): only the work directory's own cap can stop it
    const source = `#include <stdio.h>
#include <string.h>
int main(void) {
  static char buf[60 << 10]; memset(buf, 'x', sizeof buf);
  char p[64]; long kb = 0;
  for (int i = 0; i < 26000; i++) {
    snprintf(p, sizeof p, "/work/chunk%d", i);
    FILE* f = fopen(p, "w"); if (!f) break;
    size_t n = fwrite(buf, 1, sizeof buf, f); int bad = fclose(f) != 0 || n != sizeof buf;
    kb += n >> 10; if (bad) break;
  }
  fprintf(stderr, "wrote %ld MB\\n", kb >> 10); return kb >= (1500L << 10) ? 0 : 1;
}`
    const { result, verdict } = await judge('C', { source, memoryLimitKb: 262144, timeLimitSec: 5 })
    expect(result.run!.stderr, JSON.stringify(result.run)).toMatch(/wrote \d+ MB/)
    expect(verdict.verdict).toBe('RE')
    expect(verdict.statusDetail).toBe('SIGXFSZ')
    const mb = Number(/wrote (\d+) MB/.exec(result.run!.stderr)![1])
    expect(mb).toBeLessThanOrEqual(settings.limits.workDirBytes / (1 << 20))
    expect(mb).toBeGreaterThan(settings.limits.workDirBytes / (1 << 20) / 2)
    // freed after: the runner replaces a job's box by an empty one once its result went back, off the
    // reply's path (a CI run saw it still full the moment judge returned), so within a few seconds
    const until = Date.now() + 10_000
    while (boxBytes() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    expect(boxBytes()).toBe(0)
  })

  it('the work directory is bounded in inodes: 90,000 files stop at the cap, RE SIGXFSZ', async () => {
    const source = `#include <stdio.h>
int main(void) {
  char p[64]; int n = 0;
  for (; n < 90000; n++) { snprintf(p, sizeof p, "/work/f%d", n); FILE* f = fopen(p, "w"); if (!f) break; fclose(f); }
  fprintf(stderr, "made %d files\\n", n); return n == 90000 ? 0 : 1;
}`
    const { result, verdict } = await judge('C', { source, timeLimitSec: 5 })
    expect(verdict.verdict, result.run?.stderr).toBe('RE')
    expect(verdict.statusDetail).toBe('SIGXFSZ')
    expect(Number(/made (\d+) files/.exec(result.run!.stderr)?.[1])).toBeLessThanOrEqual(settings.limits.workDirInodes)
  })

  it('fallocate(FALLOC_FL_KEEP_SIZE) of 1 GB is refused in /work and on stdout (nothing reserved past RLIMIT_FSIZE)', async () => {
    const source = `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
int main(void) {
  int fd = open("/work/reserve", O_CREAT | O_WRONLY, 0600);
  int a = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1L << 30); int ea = errno;
  int b = fallocate(1, FALLOC_FL_KEEP_SIZE, 0, 1L << 30); int eb = errno;
  int c = fallocate(fd, 0, 0, 4096);
  fprintf(stderr, "work=%d:%s stdout=%d:%s plain=%d\\n", a, strerror(ea), b, strerror(eb), c);
  return 0;
}`
    const { result } = await judge('C', { source })
    expect(result.run!.stderr).toMatch(/work=-1:Operation not supported stdout=-1:Operation not supported plain=0/)
    // the host's stdout file holds what was written, no reserved blocks
    const st = statSync(join(settings.sandbox.runs, SLOT, 'io', 'stdout'))
    expect(st.blocks * 512).toBeLessThan(1 << 20)
  })
})

