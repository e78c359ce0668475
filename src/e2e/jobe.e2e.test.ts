// The Jobe API end to end: the real server, real jail and toolchains, driven the way Moodle CodeRunner
// drives it (its headers, its stray fields, its file names, its 404 → PUT → retry) and as Jobe's own
// testsubmit.py checks it (each rule of the outcome, each parameter, each refusal).
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { JobeResult } from '../jobe/schemas.ts'
import { startServer, type RunningServer } from '../testing/harness.ts'

const PREFIX = '/jobe/index.php/restapi'
let server: RunningServer
let key: string

beforeAll(async () => {
  server = await startServer({ configToml: '[pool]\nsize = 2\n' })
  key = await server.createClient('moodle')
}, 120_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

/** CodeRunner's headers (jobesandbox.php get_jobe_connection_info). */
const coderunner = (k: string | null = key) => ({
  'User-Agent': 'CodeRunner',
  'Content-Type': 'application/json; charset=utf-8',
  'Accept-Charset': 'utf-8',
  Accept: 'application/json',
  ...(k !== null && { 'X-API-KEY': k }),
  'X-CodeRunner-Job-Id': Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0'),
})

const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = coderunner()) =>
  fetch(`${server.url}${PREFIX}/${path}`, { method, headers, ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }) })

async function run(spec: Record<string, unknown>, headers?: Record<string, string>): Promise<{ status: number; body: any }> {
  const r = await request('POST', 'runs', { run_spec: spec }, headers)
  const text = await r.text()
  return { status: r.status, body: text ? JSON.parse(text) : text }
}

/** A run that must succeed as a Jobe result object. */
async function result(spec: Record<string, unknown>, k = key) {
  const r = await run(spec, coderunner(k))
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return JobeResult.parse(r.body)
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex')

describe('Jobe: routes and refusals', () => {
  test('GET languages: Jobe names with real versions, c cpp python3 java nodejs php pascal among them', async () => {
    const r = await request('GET', 'languages')
    expect(r.status).toBe(200)
    expect(r.headers.get('access-control-allow-origin')).toBe('*')
    const list = (await r.json()) as [string, string][]
    const names = list.map((l) => l[0])
    for (const n of ['c', 'cpp', 'python3', 'java', 'nodejs', 'php', 'pascal']) expect(names).toContain(n)
    for (const [, v] of list) expect(v).toMatch(/^\d+(\.\d+)*/)
  })

  test('403 for a missing, unknown or revoked key; OPTIONS is a preflight; anything else under the prefix is 404', async () => {
    expect((await request('GET', 'languages', undefined, coderunner(null))).status).toBe(403)
    expect((await run({ language_id: 'c', sourcecode: 'x' }, coderunner('not-a-key'))).status).toBe(403)
    const gone = await server.createClient('gone')
    await server.cli(['clients', 'revoke', 'gone'])
    expect((await request('GET', 'languages', undefined, coderunner(gone))).status).toBe(403)
    const pre = await fetch(`${server.url}${PREFIX}/runs`, { method: 'OPTIONS', headers: { Origin: 'https://moodle.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-api-key' } })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/PUT/)
    for (const [m, p] of [['GET', 'runs'], ['DELETE', 'files/abcdef123'], ['GET', 'files/abcdef123'], ['POST', 'languages'], ['GET', 'index'], ['GET', '']]) expect((await request(m!, p!)).status, `${m} ${p}`).toBe(404)
  })

  test('401 once the client has used its quota; each run counts as one submission', async () => {
    const small = await server.createClient('small', 1)
    expect((await run({ language_id: 'python3', sourcecode: 'print(1)' }, coderunner(small))).status).toBe(200)
    expect(await run({ language_id: 'python3', sourcecode: 'print(1)' }, coderunner(small))).toEqual({ status: 401, body: 'API usage quota exceeded' })
  })

  test("400s with Jobe's texts", async () => {
    expect(await run({ language_id: 'nosuchlanguage', sourcecode: 'x' })).toEqual({ status: 400, body: "Language 'nosuchlanguage' is not known" })
    expect(await run({ sourcecode: 'x' })).toEqual({ status: 400, body: "run_spec is missing the required attribute 'language_id'" })
    expect(await run({ language_id: 'python3' })).toEqual({ status: 400, body: "run_spec is missing the required attribute 'sourcecode'" })
    expect(await run({ language_id: 'c', sourcecode: 'x', parameters: { cputime: 151 } })).toEqual({ status: 400, body: 'cputime exceeds maximum allowed on this Jobe server (120 secs)' })
    expect(await run({ language_id: 'c', sourcecode: 'x', sourcefilename: '../../etc/x.c' })).toEqual({ status: 400, body: 'The sourcefilename for the run_spec is illegal' })
    expect((await run({ language_id: 'c', sourcecode: 'x', parameters: { runargs: [1] } })).status).toBe(400)
    const bad = await request('POST', 'runs', '{"run_spec": ')
    expect([bad.status, await bad.json()]).toEqual([400, 'Non-JSON post data received'])
  })
})

describe("Jobe: outcomes by Jobe's rules", () => {
  test('15 success, with stdin; an empty stderr is success even after return 3', async () => {
    expect(await result({ language_id: 'python3', sourcecode: 'print(input())\nprint(input())\n', input: 'Line1\nLine2\n' })).toMatchObject({ outcome: 15, stdout: 'Line1\nLine2\n', stderr: '', cmpinfo: '' })
    expect(await result({ language_id: 'c', sourcecode: '#include <stdio.h>\nint main(void) { printf("x"); return 3; }\n' })).toMatchObject({ outcome: 15, stdout: 'x' })
  })

  test('12 when anything is on stderr, even after exit 0; a crash is 12', async () => {
    expect(await result({ language_id: 'python3', sourcecode: 'import sys\nprint("warn", file=sys.stderr)\nsys.exit(0)\n' })).toMatchObject({ outcome: 12, stderr: 'warn\n' })
    expect(await result({ language_id: 'python3', sourcecode: 'data = [1, 2]\nprint(data[2])\n' })).toMatchObject({ outcome: 12, stderr: expect.stringMatching(/IndexError/) })
    expect(await result({ language_id: 'c', sourcecode: '#include <stdio.h>\nint main(void) { char *s = NULL; printf("%c", *s); return 0; }\n' })).toMatchObject({ outcome: 12, stderr: expect.stringMatching(/Segmentation fault/) })
  })

  test('11 with the compiler text: C, a C warning under -Werror, a python3 syntax error (checked before it runs), Java', async () => {
    const c = await result({ language_id: 'c', sourcecode: '#include <stdio.h>\nint main(void) { printf("x") }\n' })
    expect(c).toMatchObject({ outcome: 11, stdout: '' })
    expect(c.cmpinfo).toMatch(/error/)
    expect(await result({ language_id: 'c', sourcecode: 'int main(void) { int unused; return 0; }\n' })).toMatchObject({ outcome: 11, cmpinfo: expect.stringMatching(/unused/) })
    // C and C++ link with gold (its words for a link error); a request's own -fuse-ld=bfd comes after it and wins (ld.bfd's words)
    const undefinedRef = { language_id: 'c', sourcecode: 'void f(void);\nint main(void) { f(); return 0; }\n' }
    expect(await result(undefinedRef)).toMatchObject({ outcome: 11, cmpinfo: expect.stringMatching(/error: undefined reference to 'f'/) })
    expect(await result({ ...undefinedRef, parameters: { compileargs: ['-fuse-ld=bfd'] } })).toMatchObject({ outcome: 11, cmpinfo: expect.stringMatching(/undefined reference to `f'/) })
    expect(await result({ language_id: 'cpp', sourcecode: '#include <iostream>\nint main() { std::cout << "hi" << std::endl; }\n' })).toMatchObject({ outcome: 15, stdout: 'hi\n' })
    const py = await result({ language_id: 'python3', sourcecode: 'print("started")\nprint("Hello world!"\n' })
    expect(py).toMatchObject({ outcome: 11, stdout: '' })
    // py_compile's text exactly, untrimmed (Python 3.13's caret), as a native Jobe's cmpinfo has it
    expect(py.cmpinfo).toBe('  File "prog.py", line 2\n    print("Hello world!"\n         ^\nSyntaxError: \'(\' was never closed\n')
    // an IndentationError is py_compile's "Sorry:" form
    expect(await result({ language_id: 'python3', sourcecode: 'if 1:\nprint(2)\n' })).toMatchObject({
      outcome: 11,
      cmpinfo: "Sorry: IndentationError: expected an indented block after 'if' statement on line 1 (prog.py, line 2)",
    })
    // the check leaves nothing in the folder the program runs in
    expect(await result({ language_id: 'python3', sourcecode: 'import os\nprint(sorted(os.listdir(".")))\n' })).toMatchObject({ outcome: 15, stdout: "['prog.py']\n" })
    expect((await result({ language_id: 'java', sourcecode: 'public class T { public static void main(String[] a) { System.out.println("x") } }' })).outcome).toBe(11)
  })

  test('13 at the CPU limit (wall clock 2 x cputime), and for a program that writes without end', async () => {
    const started = Date.now()
    expect(await result({ language_id: 'c', sourcecode: 'int main(void) { for (;;) {} }\n', parameters: { cputime: 1 } })).toMatchObject({ outcome: 13 })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(await result({ language_id: 'python3', sourcecode: 'import time\ntime.sleep(30)\n', parameters: { cputime: 1 } })).toMatchObject({ outcome: 13 })
    // streamsize 0.1: 102,400 bytes kept (Jobe's MB is 1,024,000 bytes), the rest dropped
    const flood = await result({ language_id: 'c', sourcecode: '#include <stdio.h>\nint main(void) { for (;;) printf("Hello"); }\n', parameters: { streamsize: 0.1, cputime: 2 } })
    expect(flood.outcome).toBe(13)
    expect(flood.stdout).toBe('Hello'.repeat(20480))
  })

  test('memorylimit is an address-space limit: a 2 GB malloc returns NULL; past the jail memory cap the outcome is a real 17', async () => {
    const malloc = '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { char *p = malloc(2000000000); printf(p ? "malloc worked" : "Memory limit worked\\n"); return 0; }\n'
    expect(await result({ language_id: 'c', sourcecode: malloc })).toMatchObject({ outcome: 15, stdout: 'Memory limit worked\n' })
    // memorylimit 0: no address-space limit, the jail's memory cap only: touching 2 GB is killed there.
    // cputime 30: on a loaded machine faulting in pages up to the cap took longer than the default
    // 5 s (10 s of wall clock), and the run ended as a time limit (13) before the cap was reached
    const touch = '#include <stdlib.h>\n#include <string.h>\nint main(void) { char *p = malloc(2000000000); if (p) memset(p, 1, 2000000000); return 0; }\n'
    expect(await result({ language_id: 'c', sourcecode: touch, parameters: { memorylimit: 0, cputime: 30 } })).toMatchObject({ outcome: 17 })
  })

  test("nodejs under Jobe's memorylimit, as on Jobe: the 400 MB default is too little for V8 to start (12); 1000 MB runs, and an allocation past it fails (12)", async () => {
    const hello = 'console.log(42)\n'
    expect(await result({ language_id: 'nodejs', sourcecode: hello })).toMatchObject({ outcome: 12, stdout: '', stderr: expect.stringMatching(/Failed to reserve virtual memory/) })
    expect(await result({ language_id: 'nodejs', sourcecode: hello, parameters: { memorylimit: 1000 } })).toMatchObject({ outcome: 15, stdout: '42\n', stderr: '' })
    const big = 'const b = Buffer.alloc(2e9)\nconsole.log(b.length)\n'
    expect(await result({ language_id: 'nodejs', sourcecode: big, parameters: { memorylimit: 1000 } })).toMatchObject({ outcome: 12, stdout: '', stderr: expect.stringMatching(/RangeError: Array buffer allocation failed/) })
    // memorylimit 0: no address-space limit, as on Jobe (the jail's memory cap still holds)
    expect(await result({ language_id: 'nodejs', sourcecode: hello, parameters: { memorylimit: 0 } })).toMatchObject({ outcome: 15, stdout: '42\n' })
  })

  test("Jobe's 8 MiB stack limit, which memorylimit counts per thread: 24 threads of a C program under the 400 MB default, as on Jobe", async () => {
    const threads = '#include <pthread.h>\n#include <stdio.h>\n#include <unistd.h>\nstatic void *idle(void *arg) { sleep(1); return arg; }\nint main(void) {\n  pthread_t t[24];\n  int made = 0;\n  for (int i = 0; i < 24; i++) if (pthread_create(&t[i], NULL, idle, NULL) == 0) made++;\n  printf("%d threads\\n", made);\n  return 0;\n}\n'
    expect(await result({ language_id: 'c', sourcecode: threads })).toMatchObject({ outcome: 15, stdout: '24 threads\n' })
    expect(await result({ language_id: 'python3', sourcecode: 'import resource\nprint(resource.getrlimit(resource.RLIMIT_STACK)[0])\n' })).toMatchObject({ outcome: 15, stdout: '8388608\n' })
  })

  test('bytes that are not UTF-8 come back as \\xNN; UTF-8 comes back as is', async () => {
    expect(await result({ language_id: 'c', sourcecode: '#include <stdio.h>\nint main(void) { printf("Hello world\\n\\01\\006\\300\\311\\n"); return 0; }\n' })).toMatchObject({ outcome: 15, stdout: 'Hello world\n\\x01\\x06\\xc0\\xc9\n' })
    expect(await result({ language_id: 'python3', sourcecode: 'print("Un rôle délétère")\n' })).toMatchObject({ outcome: 15, stdout: 'Un rôle délétère\n' })
  })

  test('the overload test source answers 21', async () => {
    expect(await result({ language_id: 'python3', sourcecode: '!** TESTING OVERLOAD EXCEPTION **!' })).toEqual({ run_id: null, outcome: 21, cmpinfo: '', stdout: '', stderr: '' })
  })
})

describe('Jobe: what a CodeRunner student sees, as on a Jobe server', () => {
  test('output past streamsize is dropped and the program finishes: 15 with the first 2,048,000 bytes (C, python3); 1.5 MB is kept whole', async () => {
    const c = (n: number) => `#include <stdio.h>\nint main(void) { for (int i = 0; i < ${n}; i++) fputs("0123456789", stdout); puts("end"); return 0; }\n`
    const whole = await result({ language_id: 'c', sourcecode: c(150_000) })
    expect(whole).toMatchObject({ outcome: 15, stderr: '' })
    expect(whole.stdout).toBe(`${'0123456789'.repeat(150_000)}end\n`)
    const cut = await result({ language_id: 'c', sourcecode: c(300_000) })
    expect(cut).toMatchObject({ outcome: 15, stderr: '' })
    expect(cut.stdout).toBe('0123456789'.repeat(204_800))
    const py = await result({ language_id: 'python3', sourcecode: 'import sys\nfor i in range(300000):\n    sys.stdout.write("0123456789")\n' })
    expect(py).toMatchObject({ outcome: 15, stderr: '' })
    expect(py.stdout).toHaveLength(2_048_000)
    // stderr alike: kept to streamsize, and any of it is a runtime error
    const err = await result({ language_id: 'python3', sourcecode: 'import sys\nsys.stderr.write("e" * 3000000)\nprint("done")\n' })
    expect(err).toMatchObject({ outcome: 12, stdout: 'done\n' })
    expect(err.stderr).toHaveLength(2_048_000)
  })

  test("python3's 1000 MB address-space default: 300 MB is used (15), a runaway program ends with MemoryError (12), not the jail's 17", async () => {
    const use = 'b = bytearray(300 * 1000 * 1000)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint(len(b))\n'
    expect(await result({ language_id: 'python3', sourcecode: use })).toMatchObject({ outcome: 15, stdout: '300000000\n', stderr: '' })
    const runaway = await result({ language_id: 'python3', sourcecode: 'a = []\nwhile True:\n    a.append(bytearray(10**7))\n', sourcefilename: '__tester__.python3' })
    expect(runaway.outcome).toBe(12)
    expect(runaway.stderr).toMatch(/^Traceback \(most recent call last\):\n {2}File "__tester__\.python3", line 3, in <module>\n[\s\S]*MemoryError\n$/)
  })

  test("a source and stdin as large as Jobe takes: a 300 KB combinator program, 1.5 MB of input", async () => {
    const source = `${Array.from({ length: 6000 }, (_, i) => `def test_${i}(): return ${i}  # ${'x'.repeat(20)}`).join('\n')}\nimport sys\nprint(len(sys.stdin.read()), test_5999())\n`
    expect(Buffer.byteLength(source)).toBeGreaterThan(300_000)
    const input = `${'y'.repeat(1_499_999)}\n`
    expect(await result({ language_id: 'python3', sourcecode: source, input, sourcefilename: '__tester__.python3' })).toMatchObject({ outcome: 15, stdout: '1500000 5999\n' })
  })

  test('tracebacks name the file as on Jobe after CodeRunner: no jail folder (python3, nodejs)', async () => {
    const py = await result({ language_id: 'python3', sourcecode: 'def f():\n    return 1 / 0\nf()\n', sourcefilename: '__tester__.python3' })
    expect(py.outcome).toBe(12)
    expect(py.stderr).toContain('File "__tester__.python3", line 3, in <module>')
    expect(py.stderr).not.toContain('/work')
    const node = await result({ language_id: 'nodejs', sourcecode: 'function f() { throw new Error("boom") }\nf()\n', sourcefilename: '__tester__.nodejs', parameters: { memorylimit: 1000 } })
    expect(node.outcome).toBe(12)
    expect(node.stderr).toMatch(/^__tester__\.nodejs:1\n/)
    expect(node.stderr).toContain('at f (__tester__.nodejs:1:')
    expect(node.stderr).not.toContain('/work')
  })

  test("Java's stack trace with eight spaces for each tab, as JavaTask sends it", async () => {
    const boom = 'public class Boom {\n  public static void main(String[] a) {\n    throw new RuntimeException("boom");\n  }\n}\n'
    const r = await result({ language_id: 'java', sourcecode: boom, sourcefilename: 'Boom.java' })
    expect(r).toMatchObject({ outcome: 12, stderr: 'Exception in thread "main" java.lang.RuntimeException: boom\n        at Boom.main(Boom.java:3)\n' })
  })

  test("a signal's death in the shell's words: SIGTRAP is Trace/breakpoint trap, after what the program wrote", async () => {
    const trap = '#include <signal.h>\n#include <stdio.h>\nint main(void) { fputs("before", stderr); fflush(stderr); raise(SIGTRAP); return 0; }\n'
    expect(await result({ language_id: 'c', sourcecode: trap })).toMatchObject({ outcome: 12, stderr: 'beforeTrace/breakpoint trap\n' })
    const segv = '#include <signal.h>\nint main(void) { raise(SIGSEGV); return 0; }\n'
    expect(await result({ language_id: 'c', sourcecode: segv })).toMatchObject({ outcome: 12, stderr: 'Segmentation fault\n' })
  })

  test("PHP's cmpinfo: stdout, then stderr with its final newline, as PhpTask joins them", async () => {
    const r = await result({ language_id: 'php', sourcecode: '<?php\necho "x"\n', sourcefilename: '__tester__.php' })
    expect(r.outcome).toBe(11)
    expect(r.cmpinfo).toMatch(/^Errors parsing __tester__\.php\n[\s\S]*Parse error[\s\S]*\n$/)
  })
})

describe('Jobe: parameters', () => {
  test('compileargs, linkargs, interpreterargs and runargs reach the programs as argv items, words split as Jobe does, never a shell', async () => {
    expect(await result({ language_id: 'python3', sourcecode: '\n', parameters: { interpreterargs: ['-c "print(\\"Blah\\")"'] } })).toMatchObject({ outcome: 15, stdout: 'Blah\n' })
    expect(await result({ language_id: 'python3', sourcecode: 'import sys\nfor a in sys.argv[1:]: print(a)\n', parameters: { runargs: ['Arg1', 'Arg2', 'a;echo no', '$HOME'] } })).toMatchObject({ stdout: 'Arg1\nArg2\na;echo\nno\n$HOME\n' })
    // no -Werror: a warning alone still fails (Jobe reads any compiler stderr as an error)
    expect((await result({ language_id: 'c', sourcecode: '#include <stdio.h>\nint main(void) { printf("%d", X); return 0; }\n', parameters: { compileargs: ['-DX="4 + 3"'] } })).stdout).toBe('7')
    expect((await result({ language_id: 'c', sourcecode: '#include <math.h>\n#include <stdio.h>\nint main(void) { volatile double x = 2.0; printf("%.0f", sqrt(x) * sqrt(x)); return 0; }\n', parameters: { linkargs: ['-lm'] } })).stdout).toBe('2')
    expect((await result({ language_id: 'c', sourcecode: '#include <stdio.h>\nint main() { printf("x\\n"); }\n', parameters: { compileargs: ['std=c89'] } })).outcome).toBe(11)
  })

  test('numprocs bounds the processes; cputime raises the CPU limit; main_class picks the class Java runs', async () => {
    const fork = '#include <unistd.h>\n#include <stdio.h>\nint main(void) { int ok = 0; for (int i = 0; i < 1000; i++) { int pid = fork(); if (pid == 0) { for (;;) {} } if (pid > 0) ok++; } printf(ok > 5 && ok <= 20 ? "OK\\n" : "%d\\n", ok); return 0; }\n'
    expect(await result({ language_id: 'c', sourcecode: fork, parameters: { numprocs: 20 } })).toMatchObject({ outcome: 15, stdout: 'OK\n' })
    expect(await result({ language_id: 'python3', sourcecode: 'from time import perf_counter\nt = perf_counter()\nwhile perf_counter() < t + 6: pass\nprint("done")\n', parameters: { cputime: 8 } })).toMatchObject({ outcome: 15, stdout: 'done\n' })
    const two = 'class A { public static void main(String[] a) { System.out.println("A"); } }\nclass B { public static void main(String[] a) { System.out.println("B"); } }\n'
    expect(await result({ language_id: 'java', sourcecode: two, sourcefilename: 'Two.java', parameters: { main_class: 'B' } })).toMatchObject({ outcome: 15, stdout: 'B\n' })
  })

  test('unknown parameters (CodeRunner passes its own) and unknown run_spec members are ignored', async () => {
    expect(await result({ language_id: 'python3', sourcecode: 'print(2)', debug: 1, jobeserver: 'x', parameters: { jobeserver: 'x', jobeapikey: 'k', sourcefilename: 'p.py', disklimit: 20, whatever: [1] } })).toMatchObject({ outcome: 15, stdout: '2\n' })
  })
})

describe("Jobe: CodeRunner's own requests", () => {
  test("each language with CodeRunner's source file names (__tester__.<language>, Java's main class)", async () => {
    const cases: [string, string, string, string][] = [
      ['c', '__tester__.c', '#include <stdio.h>\nint main(void) { char s[20]; scanf("%s", s); printf("c %s\\n", s); return 0; }\n', 'in\n'],
      ['cpp', '__tester__.cpp', '#include <iostream>\nint main() { std::string s; std::cin >> s; std::cout << "cpp " << s << std::endl; }\n', 'in\n'],
      ['python3', '__tester__.python3', 'print("python3", input())\n', 'in\n'],
      ['java', 'Main.java', 'import java.util.Scanner;\npublic class Main { public static void main(String[] a) { System.out.println("java " + new Scanner(System.in).next()); } }\n', 'in\n'],
      ['nodejs', '__tester__.nodejs', 'console.log("nodejs " + require("fs").readFileSync(0, "utf8").trim())\n', 'in\n'],
      ['php', '__tester__.php', '<?php echo "php " . trim(fgets(STDIN)) . "\\n";\n', 'in\n'],
      ['pascal', '__tester__.pascal', 'var s: string;\nbegin\n  readln(s);\n  writeln(\'pascal \', s);\nend.\n', 'in\n'],
    ]
    for (const [language, file, source, input] of cases) {
      // CodeRunner's nodejs prototype asks for 1000 MB (memlimitmb): node cannot start under Jobe's 400 MB default
      const parameters = language === 'nodejs' ? { memorylimit: 1000 } : {}
      const r = await result({ language_id: language, sourcecode: source, sourcefilename: file, input, file_list: [], parameters })
      expect(r, language).toMatchObject({ outcome: 15, stdout: `${language} in\n` })
    }
  })

  test("languages Jobe does not name: listed under their lowercase codes, run with CodeRunner's requests; python2 under Jobe's name", async () => {
    const names = ((await (await request('GET', 'languages')).json()) as [string, string][]).map((l) => l[0])
    for (const n of ['python2', 'cpp17', 'ruby']) expect(names).toContain(n)
    for (const n of names) expect(n).toMatch(/^[a-z0-9_]+$/)
    expect(new Set(names).size).toBe(names.length)
    const cases: [string, string][] = [
      ['cpp17', '#include <iostream>\n#include <optional>\nint main(int argc, char **argv) { std::string s; std::cin >> s; std::optional<int> n = argc; std::cout << "cpp17 " << s << " " << *n << " " << argv[1] << std::endl; }\n'],
      ['ruby', 'puts "ruby #{$stdin.gets.strip} #{ARGV.length + 1} #{ARGV[0]}"\n'],
      ['python2', 'import sys\nprint "python2", raw_input(), len(sys.argv), sys.argv[1]\n'],
    ]
    for (const [language, source] of cases) {
      const r = await result({ language_id: language, sourcecode: source, sourcefilename: `__tester__.${language}`, input: 'in\n', file_list: [], parameters: { runargs: ['a;b'] } })
      expect(r, language).toMatchObject({ outcome: 15, stdout: `${language} in 2 a;b\n`, stderr: '' })
    }
    const broken = await result({ language_id: 'cpp17', sourcecode: 'int main() { return x; }\n' })
    expect(broken).toMatchObject({ outcome: 11, cmpinfo: expect.stringMatching(/x/) })
    // Jobe's rule holds for them too: stderr means 12
    expect(await result({ language_id: 'ruby', sourcecode: 'warn "w"\n' })).toMatchObject({ outcome: 12, stderr: 'w\n' })
  })

  test('404 → PUT each file → retry, exactly as CodeRunner does it; HEAD tells a file is there', async () => {
    const files = { 'data.txt': 'The first file\nLine 2', 'second.txt': 'Second file' }
    const spec = {
      language_id: 'python3',
      sourcecode: "print(open('data.txt').read())\nprint(open('second.txt').read())\n",
      sourcefilename: '__tester__.python3',
      input: '',
      file_list: Object.entries(files).map(([name, text]) => [md5(text + name), name]),
      parameters: { cputime: 5 },
    }
    const first = await run(spec)
    expect(first).toEqual({ status: 404, body: 'One or more of the specified files is missing/unavailable' })
    for (const [name, text] of Object.entries(files)) {
      const id = md5(text + name)
      expect((await request('HEAD', `files/${id}`)).status).toBe(404)
      const put = await request('PUT', `files/${id}`, { file_contents: Buffer.from(text).toString('base64') })
      expect(put.status).toBe(204)
      expect(await put.text()).toBe('')
      expect((await request('HEAD', `files/${id}`)).status).toBe(204)
    }
    const retry = await result(spec)
    expect(retry).toMatchObject({ outcome: 15, stdout: 'The first file\nLine 2\nSecond file\n' })
  })

  test("files are per client: another client's upload is not this client's file", async () => {
    const other = await server.createClient('other-site')
    const id = md5('shared?')
    expect((await request('PUT', `files/${id}`, { file_contents: Buffer.from('shared?').toString('base64') }, coderunner(other))).status).toBe(204)
    expect((await request('HEAD', `files/${id}`)).status).toBe(404)
    expect((await run({ language_id: 'python3', sourcecode: "print(open('f').read())", file_list: [[id, 'f']] })).status).toBe(404)
    expect(await result({ language_id: 'python3', sourcecode: "print(open('f').read())", file_list: [[id, 'f']] }, other)).toMatchObject({ outcome: 15, stdout: 'shared?\n' })
  })

  test('a Java program with a support class uploaded as a file', async () => {
    const thing = 'public class Thing {\n  private String m;\n  public Thing(String m) { this.m = m; }\n  public void printme() { System.out.println(m); }\n}\n'
    const id = md5(thing)
    expect((await request('PUT', `files/${id}`, { file_contents: Buffer.from(thing).toString('base64') })).status).toBe(204)
    const r = await result({ language_id: 'java', sourcecode: 'public class Blah {\n  public static void main(String[] a) { new Thing("Farewell cruel world").printme(); }\n}\n', file_list: [[id, 'Thing.java']], parameters: { cputime: 10 } })
    expect(r).toMatchObject({ outcome: 15, stdout: 'Farewell cruel world\n' })
  })
})

describe('Jobe: load', () => {
  test('a flood of concurrent runs: every one answered correctly, never more running than the pool has slots', async () => {
    let peak = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const h = (await (await fetch(`${server.url}/health`)).json()) as { pool: { size: number; busy: number } }
        peak = Math.max(peak, h.pool.busy)
        expect(h.pool.busy).toBeLessThanOrEqual(h.pool.size)
        await new Promise((r) => setTimeout(r, 20))
      }
    })()
    const n = 40
    const results = await Promise.all(Array.from({ length: n }, (_, i) => result({ language_id: i % 2 ? 'python3' : 'c', sourcecode: i % 2 ? `print(${i})` : `#include <stdio.h>\nint main(void) { printf("${i}\\n"); return 0; }\n`, sourcefilename: i % 2 ? '__tester__.python3' : '__tester__.c' })))
    sampling = false
    await sampler
    results.forEach((r, i) => expect(r, String(i)).toMatchObject({ outcome: 15, stdout: `${i}\n` }))
    expect(peak).toBeGreaterThan(0)
    expect(peak).toBeLessThanOrEqual(2)
  }, 240_000)

  test('a run that cannot start within jobe.wait_timeout_sec answers 21, and is never run', async () => {
    const busy = await startServer({ configToml: '[pool]\nsize = 1\n[jobe]\nwait_timeout_sec = 1\n' })
    try {
      const k = await busy.createClient('moodle')
      const post = (source: string) =>
        fetch(`${busy.url}${PREFIX}/runs`, { method: 'POST', headers: coderunner(k), body: JSON.stringify({ run_spec: { language_id: 'python3', sourcecode: source, parameters: { cputime: 3 } } }) }).then(async (r) => [r.status, await r.json()])
      const long = post('import time\ntime.sleep(4)\nprint("slept")\n')
      await new Promise((r) => setTimeout(r, 300))
      const second = await post('print("never")')
      expect(second).toEqual([200, { run_id: null, outcome: 21, cmpinfo: '', stdout: '', stderr: '' }])
      // the one that had started is answered when done, past the wait
      expect(await long).toEqual([200, expect.objectContaining({ outcome: 15, stdout: 'slept\n' })])
      const rows = busy.query<{ source: string; failure: string | null; started_at: number | null }>("select source, failure, started_at from submissions where api = 'jobe' order by id")
      expect(rows[1]).toMatchObject({ source: 'print("never")', started_at: null, failure: expect.stringMatching(/withdrawn/) })
    } finally {
      await busy.stop()
      busy.cleanup()
    }
  }, 120_000)
})
