// The real Judge0 clients from PyPI, unchanged but for the base URL and token, against the real
// server: the official SDK (judge0), judge0-client and judge0api, each through its documented calls
// (src/e2e/judge0-clients.py runs them; scripts/install-test-clients.sh installs them).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startReceiver, startServer, waitUntil, type Receiver, type RunningServer } from '../testing/harness.ts'
import { JUDGE0_CE_IDS } from '../judge0/languages.ts'

const VENV_PYTHON = join(process.env.ARBITER_TEST_CLIENTS ?? '/var/lib/arbiter/test-clients', 'venv', 'bin', 'python')
const DRIVER = join(import.meta.dirname, 'judge0-clients.py')

let server: RunningServer
let receiver: Receiver
let secret: string

beforeAll(async () => {
  if (!existsSync(VENV_PYTHON)) throw new Error(`${VENV_PYTHON} is missing: run scripts/install-test-clients.sh (scripts/test.sh does)`)
  server = await startServer()
  receiver = await startReceiver()
  secret = await server.createClient('judge0-clients')
  // room for the server's start on a loaded machine (it took over 60 s at a load average of 15-18)
}, 180_000)

afterAll(async () => {
  await receiver?.close()
  await server?.stop()
  server?.cleanup()
})

/** Runs one scenario of the driver; timeoutMs: how long it may take (the every-language run is ~80 jobs). */
async function scenario(name: string, token = secret, input?: unknown, timeoutMs = 150_000): Promise<any> {
  const r = await execa(VENV_PYTHON, [DRIVER, name], {
    input: input === undefined ? '' : JSON.stringify(input),
    env: { ARBITER_JUDGE0: `${server.url}/judge0`, ARBITER_SECRET: token, ARBITER_CALLBACK: `${receiver.url}/sdk-cb`, ARBITER_RECEIVER: receiver.url, JUDGE0_SUPPRESS_PREVIEW_WARNING: '1' },
    reject: false,
    timeout: timeoutMs,
  })
  if (r.exitCode !== 0) throw new Error(`${name} failed (${r.exitCode}):\n${r.stderr}\n${r.stdout}`)
  return JSON.parse(r.stdout)
}

const ACCEPTED = 3

/** What a client's callback delivered to the receiver at path: one PUT, the submission's JSON. */
async function calledBack(path: string): Promise<any> {
  await waitUntil(() => receiver.received.some((x) => x.path === path), 30_000, `the callback at ${path}`)
  const got = receiver.received.filter((x) => x.path === path)
  expect(got).toHaveLength(1)
  expect(got[0]!.method).toBe('PUT')
  return JSON.parse(got[0]!.body)
}

describe('the official SDK (judge0 0.0.8)', () => {
  test('its client reads languages, config and about: Judge0 aliases resolve to offered ids', { timeout: 60_000 }, async () => {
    const r = await scenario('official_languages')
    expect(r.version).toBe('1.13.1')
    expect(r.supported).toEqual({ PYTHON: true, C: true, CPP: true, JAVA: true, GO: true, RUST: true, MULTI_FILE: true, BASH: true })
    expect(r.languages).toContainEqual([71, expect.stringMatching(/^Python \(3\.\d+\.\d+\)$/)])
    expect(r.config_max_batch).toBe(20)
    expect(r.statuses).toHaveLength(14)
    expect(r.language_71).toMatchObject({ id: 71, source_file: 'main.py', is_archived: false })
  })

  test('run: python3, C with stdin, Java and C++ (its README examples)', { timeout: 120_000 }, async () => {
    const r = await scenario('official_run')
    expect(r.python).toMatchObject({ stdout: 'hello, world\n', status: ACCEPTED, exit_code: 0 })
    expect(r.c).toMatchObject({ stdout: '8\nHello, Bob!\n', status: ACCEPTED })
    expect(r.java).toMatchObject({ stdout: 'hello, world\n', status: ACCEPTED })
    expect(r.cpp).toMatchObject({ stdout: '42\n', status: ACCEPTED })
    expect(typeof r.python.time).toBe('number')
    expect(r.python.created_at).toMatch(/^\d{4}-/)
  })

  test("Groovy by its alias (88), the older GCCs by Judge0's ids 48-50 and 52-54: run, stdin, compile and runtime errors", { timeout: 300_000 }, async () => {
    const r = await scenario('official_new_languages', secret, undefined, 280_000)
    expect(r.supported).toEqual({ GROOVY: true, 48: true, 49: true, 50: true, 52: true, 53: true, 54: true })
    // the real versions: Judge0's GCC 7.4 and 9.2 are bullseye's 9.3, its 8.3 is 10.2
    const named = (lang: string, major: number) => expect.stringMatching(new RegExp(`^${lang} \\(GCC ${major}\\.\\d+\\.\\d+\\)$`))
    expect(r.names).toEqual({ 48: named('C', 9), 49: named('C', 10), 50: named('C', 9), 52: named('C\\+\\+', 9), 53: named('C\\+\\+', 10), 54: named('C\\+\\+', 9), 88: expect.stringMatching(/^Groovy \(4\.0\.\d+\)$/) })
    expect(r.groovy).toMatchObject({ stdout: '2 + 40 = 42\n', status: ACCEPTED, exit_code: 0 })
    expect(r.groovy_ce.status).toBe(6)
    expect(r.groovy_ce.compile_output).toMatch(/Unexpected input/)
    expect(r.groovy_re).toMatchObject({ status: 11, exit_code: 1 })
    expect(r.groovy_re.stderr).toMatch(/IllegalStateException: boom/)
    // the GCC that ran and the dialect each entry compiles in: gnu11 (201112) on 48, gnu17 (201710) on 49
    expect(r.gcc48).toMatchObject({ stdout: expect.stringMatching(/^42 9\.\d+ 201112\n$/), status: ACCEPTED })
    expect(r.gcc49).toMatchObject({ stdout: expect.stringMatching(/^8 10\.\d+ 201710\n$/), status: ACCEPTED })
    expect(r.gcc49_ce.status).toBe(6)
    expect(r.gcc49_ce.compile_output).toMatch(/error: expected .;. before .}. token/)
    // 50 (the SDK's C) is GCC 9 in gnu17, GCC 9's default; C++ is gnu++14 (201402) on 52 (the SDK's CPP), 53 and 54
    expect(r.gcc50).toMatchObject({ stdout: expect.stringMatching(/^10 9\.\d+ 201710\n$/), status: ACCEPTED })
    expect(r.cpp52).toMatchObject({ stdout: expect.stringMatching(/^52 9\.\d+ 201402\n$/), status: ACCEPTED })
    expect(r.cpp53).toMatchObject({ stdout: expect.stringMatching(/^2 10\.\d+ 201402\n$/), status: ACCEPTED })
    expect(r.cpp54).toMatchObject({ stdout: expect.stringMatching(/^54 9\.\d+ 201402\n$/), status: ACCEPTED })
    // C++17 code: a compile error in the default dialect, as on Judge0; compiled when the client asks for gnu++17
    expect(r.cpp52_17.status).toBe(6)
    expect(r.cpp52_17.compile_output).toMatch(/optional/)
    expect(r.cpp52_17_asked).toMatchObject({ stdout: '42\n', status: ACCEPTED })
  })

  test('test cases: expected_output judged Judge0\'s way', { timeout: 120_000 }, async () => {
    const r = await scenario('official_test_cases')
    expect(r.results.map((s: { status: number; stdout: string }) => [s.status, s.stdout])).toEqual([
      [3, 'Hello, Bob!\n'],
      [3, 'Hello, Alice!\n'],
      [4, 'Hello, Charlie!\n'],
    ])
  })

  test('29 submissions: batches of 20, each result its own, errors as statuses', { timeout: 150_000 }, async () => {
    const r = await scenario('official_batch')
    const results = r.results as { status: number; stdout: string | null; compile_output: string | null; exit_code: number | null }[]
    expect(results).toHaveLength(29)
    results.slice(0, 25).forEach((s, i) => expect([s.status, s.stdout]).toEqual([3, `${i * i}\n`]))
    expect([results[25]!.status, results[25]!.stdout]).toEqual([3, 'c\n'])
    expect(results[26]!.status).toBe(6)
    expect(results[26]!.compile_output).toMatch(/error/)
    expect([results[27]!.status, results[27]!.exit_code]).toEqual([11, 3])
    expect(results[28]!.status).toBe(5)
  })

  test('async_run then wait', { timeout: 60_000 }, async () => {
    const r = await scenario('official_async_and_wait')
    expect(r.done).toMatchObject({ stdout: 'late\n', status: ACCEPTED, token: r.token })
  })

  test('cpu_extra_time, stack_limit and number_of_runs from its Submission are applied', { timeout: 120_000 }, async () => {
    const [graced, deep, shallow, thrice] = (await scenario('official_limits')).results
    // TLE, yet let run past 1 s to its end: its real time is shown
    expect(graced).toMatchObject({ status: 5, stdout: 'done\n' })
    expect(graced.time).toBeGreaterThan(1.15)
    expect(deep).toMatchObject({ status: ACCEPTED, stdout: '40000' })
    expect(shallow.status).toBe(7)
    expect(thrice).toMatchObject({ status: ACCEPTED, stdout: 'done\n' })
    expect(thrice.time).toBeGreaterThanOrEqual(0.19)
  })

  test('the implicit client from JUDGE0_CE_ENDPOINT and JUDGE0_CE_AUTH_HEADERS', { timeout: 60_000 }, async () => {
    expect(await scenario('official_implicit_client')).toMatchObject({ stdout: 'implicit\n', status: ACCEPTED })
  })

  test("its errors: a refused attribute is httpx's HTTPStatusError carrying Judge0's 422 body (the server's floors included)", { timeout: 60_000 }, async () => {
    const r = await scenario('official_errors')
    expect(r.memory_floor).toEqual({ status: 422, body: { memory_limit: ['must be greater than or equal to 16384'] } })
    expect(r.cpu_floor).toEqual({ status: 422, body: { cpu_time_limit: ['must be greater than or equal to 0.1'] } })
    expect(r.network).toEqual({ status: 422, body: { enable_network: ['enabling network is not allowed'] } })
    expect(r.too_many_runs).toEqual({ status: 422, body: { number_of_runs: ['must be less than or equal to 20'] } })
    // a batch with one refused item: the server answers as Judge0 (201, the error in its place); the SDK
    // 0.0.8 itself then fails on the item without a token (its own limitation, the same against Judge0)
    expect(r.batch).toMatchObject({ type: 'TypeError' })
  })

  test('callback_url from its Submission: one PUT with the submission, and its wait still sees it done', { timeout: 60_000 }, async () => {
    const r = await scenario('official_callback')
    expect(r).toMatchObject({ stdout: 'sdk called back\n', status: ACCEPTED })
    const body = await calledBack('/official-cb')
    expect(body.token).toBe(r.token)
    expect(Buffer.from(body.stdout, 'base64').toString()).toBe('sdk called back\n')
    expect(body.status).toEqual({ id: 3, description: 'Accepted' })
  })

  test('a wrong token: the client refuses to start (its authentication error)', { timeout: 60_000 }, async () => {
    const r = await scenario('official_bad_token')
    expect(r.error).toMatch(/^Authentication failed/)
    expect(r.cause).toMatch(/401/)
  })
})

/** A program per Judge0 id: it prints 42 (Plain Text: its source is the output); `compileError`, for the
 * ids Judge0 compiles, is one that does not compile. Each language a row: a new id adds its row here. */
describe("the official SDK: Judge0's 89 (a zip of scripts) and 44 (a binary), through the real server and jail", () => {
  let tmp: string
  let listener: Server
  let connections = 0
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'arbiter-judge0-e2e-'))
    listener = createServer((s) => {
      connections++
      s.end('the host\n')
    })
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  })
  afterAll(() => {
    listener?.close()
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })
  /** A static program from the host's gcc, as Base64. */
  const built = (name: string, c: string) => {
    writeFileSync(join(tmp, `${name}.c`), c)
    execFileSync('gcc', ['-static', '-O2', '-o', join(tmp, name), join(tmp, `${name}.c`)])
    return readFileSync(join(tmp, name)).toString('base64')
  }

  test('89 builds with its compile script and runs; a failing compile is 6 with its output, a failing run 11; the run script stays in the jail. 44 runs a static binary; not ELF is 11; seccomp holds', { timeout: 300_000 }, async () => {
    const port = (listener.address() as { port: number }).port
    const executable = built('hello', '#include <stdio.h>\nint main(void){char l[32];if(!fgets(l,sizeof l,stdin))return 1;printf("hello, %s",l);return 0;}\n')
    const hostile = built(
      'hostile',
      '#define _GNU_SOURCE\n#include <errno.h>\n#include <fcntl.h>\n#include <sched.h>\n#include <stdio.h>\n#include <string.h>\n#include <sys/socket.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n' +
        'static void attempt(const char*n,long r){printf("%s=%s\\n",n,r>=0?"OK":strerrorname_np(errno));}\n' +
        'int main(void){attempt("unshare",unshare(CLONE_NEWUSER));attempt("netlink",socket(AF_NETLINK,SOCK_RAW,0));attempt("bpf",syscall(SYS_bpf,0,0,0));attempt("shadow",open("/etc/shadow",O_RDONLY));attempt("root",open("/usr/x",O_WRONLY|O_CREAT,0644));return 0;}\n'
    )
    expect(Buffer.from(executable, 'base64').length).toBeGreaterThan(256 * 1024)
    const r = await scenario('official_judge0_forms', secret, { executable, hostile, port })
    expect(r.supported).toEqual({ MULTI_FILE: true, EXECUTABLE: true })
    expect(r.built).toMatchObject({ status: ACCEPTED, stdout: '42\n' })
    expect(r.compile_error).toMatchObject({ status: COMPILE_ERROR, stdout: null, time: null })
    expect(r.compile_error.compile_output).toContain('checking')
    expect(r.compile_error.compile_output).toContain('no compiler for this')
    expect(r.nzec).toMatchObject({ status: 11, exit_code: 3, stdout: 'partial\n' })
    // Judge0 sends message in Base64 too, which this SDK leaves as it is
    expect(Buffer.from(r.nzec.message, 'base64').toString()).toBe('Exited with error status 3')
    expect(r.hostile).toMatchObject({ status: ACCEPTED })
    const tried = Object.fromEntries(r.hostile.stdout.trim().split('\n').map((l: string) => l.split('=')))
    expect(Object.keys(tried)).toEqual(['unshare', 'shadow', 'write_root', 'loopback', 'dns'])
    for (const [what, status] of Object.entries(tried)) expect(status, `${what}: ${r.hostile.stdout}`).not.toBe('0')
    expect(connections).toBe(0)
    expect(r.executable).toMatchObject({ status: ACCEPTED, stdout: 'hello, the jail!\n' })
    expect(r.not_elf).toMatchObject({ status: 11, exit_code: 127 })
    expect(r.not_elf.stderr).toContain('Exec format error')
    expect(r.hostile_exe).toMatchObject({ status: ACCEPTED, stdout: 'unshare=EPERM\nnetlink=EPERM\nbpf=EPERM\nshadow=EACCES\nroot=EROFS\n' })
  })
})

interface LanguageRow {
  source: string
  stdin?: string
  compileError?: string
  /** A multi-file program's (89) files: its source is then blank */
  files?: Record<string, string>
}
const C_42 = '#include <stdio.h>\nint main(void) { printf("%d\\n", 6 * 7); return 0; }\n'
const C_BROKEN = 'int main(void) { return missing; }\n'
const CPP_42 = '#include <iostream>\nint main() { std::cout << 6 * 7 << "\\n"; }\n'
const CPP_BROKEN = 'int main() { return missing; }\n'
const JAVA_42 = 'public class Main {\n    public static void main(String[] args) {\n        System.out.println(6 * 7);\n    }\n}\n'
const LANGUAGE_ROWS: Record<number, LanguageRow> = {
  43: { source: '42\n' },
  // a #! script is an executable too (the binaries: official_judge0_forms)
  44: { source: '#!/bin/sh\necho $((6 * 7))\n' },
  45: {
    source: 'section .data\nmsg: db "42", 10\nsection .text\nglobal _start\n_start:\n    mov eax, 1\n    mov edi, 1\n    lea rsi, [rel msg]\n    mov edx, 3\n    syscall\n    mov eax, 60\n    xor edi, edi\n    syscall\n',
    compileError: 'section .text\nglobal _start\n_start:\n    mov eax,\n',
  },
  46: { source: 'read -r a b\necho $((a * b))\n', stdin: '6 7\n' },
  48: { source: C_42, compileError: C_BROKEN },
  49: { source: C_42, compileError: C_BROKEN },
  50: { source: C_42, compileError: C_BROKEN },
  51: { source: 'class Program {\n    static void Main() {\n        System.Console.WriteLine(6 * 7);\n    }\n}\n', compileError: 'class Program {\n    static void Main() {\n        int x = ;\n    }\n}\n' },
  52: { source: CPP_42, compileError: CPP_BROKEN },
  53: { source: CPP_42, compileError: CPP_BROKEN },
  54: { source: CPP_42, compileError: CPP_BROKEN },
  55: { source: '(format t "~a~%" (* 6 7))\n' },
  56: { source: 'import std.stdio;\nvoid main() { writeln(6 * 7); }\n', compileError: 'void main() { int x = ; }\n' },
  57: { source: 'IO.puts(6 * 7)\n' },
  58: { source: 'main(_) -> io:format("~p~n", [6 * 7]).\n' },
  59: { source: 'program answer\n  print "(I0)", 6 * 7\nend program answer\n', compileError: 'program answer\n  print "(I0)", 6 *\nend program answer\n' },
  60: { source: 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println(6 * 7) }\n', compileError: 'package main\n\nfunc main() { x := }\n' },
  61: { source: 'main :: IO ()\nmain = print (6 * 7 :: Int)\n', compileError: 'main = print (6 *\n' },
  62: { source: JAVA_42, compileError: JAVA_42.replace('(6 * 7);', '(6 * 7)') },
  63: { source: 'console.log(6 * 7)\n' },
  64: { source: 'print(6 * 7)\n', compileError: 'print(6 *\n' },
  65: { source: 'let () = print_int (6 * 7); print_newline ()\n', compileError: 'let () = print_int (6 *\n' },
  66: { source: 'printf("%d\\n", 6 * 7)\n' },
  67: { source: 'program answer;\nbegin\n  writeln(6 * 7)\nend.\n', compileError: 'program answer;\nbegin\n  writeln(6 *)\nend.\n' },
  68: { source: '<?php\necho 6 * 7, "\\n";\n' },
  69: { source: ':- initialization(main).\nmain :- X is 6 * 7, write(X), nl.\n', compileError: ':- initialization(main).\nmain :- X is 6 *.\n' },
  70: { source: 'print 6 * 7\n' },
  71: { source: 'print(6 * 7)\n' },
  72: { source: 'puts 6 * 7\n' },
  73: { source: 'fn main() {\n    println!("{}", 6 * 7);\n}\n', compileError: 'fn main() {\n    let x = ;\n}\n' },
  74: { source: 'const answer: number = 6 * 7\nconsole.log(answer)\n', compileError: "const answer: number = 'six times seven'\nconsole.log(answer)\n" },
  75: { source: C_42, compileError: C_BROKEN },
  76: { source: CPP_42, compileError: CPP_BROKEN },
  77: {
    source: 'IDENTIFICATION DIVISION.\nPROGRAM-ID. ANSWER.\nDATA DIVISION.\nWORKING-STORAGE SECTION.\n01 N PIC 99.\nPROCEDURE DIVISION.\n    COMPUTE N = 6 * 7.\n    DISPLAY N.\n    STOP RUN.\n',
    compileError: 'IDENTIFICATION DIVISION.\nPROGRAM-ID. ANSWER.\nPROCEDURE DIVISION.\n    DISPLAY MISSING-NAME.\n    STOP RUN.\n',
  },
  78: { source: 'fun main() {\n    println(6 * 7)\n}\n', compileError: 'fun main() {\n    println(6 * )\n}\n' },
  79: {
    source: '#import <Foundation/Foundation.h>\n#include <stdio.h>\nint main(void) {\n  NSString *s = [NSString stringWithFormat:@"%d", 6 * 7];\n  printf("%s\\n", [s UTF8String]);\n  return 0;\n}\n',
    compileError: '#import <Foundation/Foundation.h>\nint main(void) { NSString *s = @"x" return 0; }\n',
  },
  80: { source: 'cat(6 * 7, "\\n", sep = "")\n' },
  81: { source: 'object Main {\n  def main(args: Array[String]): Unit = println(6 * 7)\n}\n', compileError: 'object Main {\n  def main(args: Array[String]): Unit = println(6 * )\n}\n' },
  82: { source: 'SELECT 6 * 7;\n' },
  83: { source: 'print(6 * 7)\n', compileError: 'print(6 * )\n' },
  85: { source: 'print 6 * 7, "\\n";\n' },
  86: { source: '(println (* 6 7))\n' },
  88: { source: 'println(6 * 7)\n', compileError: 'println(6 * )\n' },
  89: { source: '', files: { compile: 'gcc -o answer answer.c\n', run: './answer\n', 'answer.c': C_42 } },
}
/** The ids Judge0 CE 1.13.1 gives a compile_cmd (its db/languages/active.rb): a compile error there is status 6. */
const JUDGE0_COMPILES = [45, 47, 48, 49, 50, 51, 52, 53, 54, 56, 59, 60, 61, 62, 64, 65, 67, 69, 73, 74, 75, 76, 77, 78, 79, 81, 83, 84, 88]
/** Judge0 CE 1.13.1's ids that are not served here (docs/api/judge0.md, "Not offered"): 422 as an unknown id. */
const NEVER_OFFERED = [47, 84, 87]
const COMPILE_ERROR = 6

describe('the official SDK runs a program in every Judge0 CE 1.13.1 language offered', () => {
  const ids = Object.keys(LANGUAGE_ROWS).map(Number)

  test("the table's ids are every id of Judge0 CE 1.13.1 but 47, 84 and 87", () => {
    expect(ids).toEqual(JUDGE0_CE_IDS.filter((id) => !NEVER_OFFERED.includes(id)))
  })

  test('the table has a row for each Judge0 CE id the server lists, and a program that does not compile for each id Judge0 compiles', { timeout: 60_000 }, async () => {
    const listed = (await (await fetch(`${server.url}/judge0/languages`, { headers: { 'X-Auth-Token': secret } })).json()) as { id: number }[]
    expect(ids).toEqual(listed.map((l) => l.id).filter((id) => JUDGE0_CE_IDS.includes(id)).sort((a, b) => a - b))
    expect(ids.filter((id) => LANGUAGE_ROWS[id]!.compileError !== undefined)).toEqual(ids.filter((id) => JUDGE0_COMPILES.includes(id)))
  })

  test('each answers 42, each compile error is Compilation Error (6); 47, 84 and 87: the SDK refuses them (not listed) and the server answers its request 422', { timeout: 600_000 }, async () => {
    const runs = ids.flatMap((id) => {
      const row = LANGUAGE_ROWS[id]!
      return [{ id, source: row.source, stdin: row.stdin ?? null, files: row.files ?? null }, ...(row.compileError === undefined ? [] : [{ id, source: row.compileError, stdin: null, files: null }])]
    })
    const r = await scenario('official_every_language', secret, { runs, refused: NEVER_OFFERED }, 570_000)
    expect(r.results).toHaveLength(runs.length)
    const seen = runs.map((run, i) => {
      const got = r.results[i]
      const want = LANGUAGE_ROWS[run.id]!.source === run.source ? { status: ACCEPTED, stdout: '42\n' } : { status: COMPILE_ERROR, stdout: null }
      return { id: run.id, want, got: { status: got.status, stdout: got.stdout }, detail: got.status === want.status ? '' : `${got.compile_output ?? ''}${got.stderr ?? ''}${got.message ?? ''}`.slice(0, 400) }
    })
    // all of them at once, so that a failure names every id that went wrong
    expect(seen.filter((s) => s.got.status !== s.want.status || s.got.stdout !== s.want.stdout)).toEqual([])
    for (const [i, run] of runs.entries()) if (r.results[i].status === COMPILE_ERROR) expect(r.results[i].compile_output, `id ${run.id}`).toBeTruthy()
    for (const id of NEVER_OFFERED)
      expect(r.refused[id]).toEqual({ sdk: `Client Client does not support language with id ${id}!`, status: 422, body: { language_id: [`language with id ${id} doesn't exist`] } })
  })
})

describe('judge0-client 0.4.0 (async)', () => {
  test('create and poll, additional_files, arguments and compiler options, a compile error, about and workers', { timeout: 120_000 }, async () => {
    const r = await scenario('client_run')
    expect(r.python).toMatchObject({ stdout: 'sum = 42\n', status: { id: 3, description: 'Accepted' } })
    expect(r.additional_files).toMatchObject({ stdout: '42\n', status: { id: 3 } })
    expect(r.multi_file).toMatchObject({ stdout: '42\n', status: { id: 3 } })
    expect(r.arguments).toMatchObject({ stdout: '[a][b c][$HOME;id]', status: { id: 3 } })
    expect(r.compile_error.status).toEqual({ id: 6, description: 'Compilation Error' })
    expect(r.compile_error.compile_output).toMatch(/error/)
    expect(r.about.version).toBe('1.13.1')
    expect(r.workers[0]).toMatchObject({ queue: '1.13.1', paused: 0 })
  })

  test('its errors: enable_network, a CPU limit out of range, a memory limit under the floor, an unknown token, a wrong token', { timeout: 60_000 }, async () => {
    const r = await scenario('client_errors')
    expect(r.network).toMatch(/^HTTP 422: .*enabling network is not allowed/)
    expect(r.cpu_limit).toMatch(/^HTTP 422: .*must be less than or equal to/)
    expect(r.memory_floor).toMatch(/^HTTP 422: .*must be greater than or equal to 16384/)
    expect(r.unknown_token).toMatch(/^HTTP 404/)
    expect(r.bad_token).toMatch(/^HTTP 401/)
  })

  test('callback_url: the submission arrives as a PUT, Base64 text its client decodes', { timeout: 60_000 }, async () => {
    const r = await scenario('client_callback')
    await waitUntil(() => receiver.received.some((x) => x.path === '/sdk-cb'), 30_000, 'the callback')
    const got = receiver.received.find((x) => x.path === '/sdk-cb')!
    expect(got.method).toBe('PUT')
    const body = JSON.parse(got.body)
    expect(body.token).toBe(r.token)
    expect(Buffer.from(body.stdout, 'base64').toString()).toBe('called back\n')
  })
})

describe('judge0-client 0.4.0: get_isolate() and get_license()', () => {
  test("Judge0's /isolate and /license as text: what runs programs here (nsjail, no isolate) and whose software this is", { timeout: 60_000 }, async () => {
    const r = await scenario('client_info')
    expect(r.isolate).toMatch(/^Arbiter jail \(no isolate here\): programs run in nsjail/)
    expect(r.license).toMatch(/^Arbiter: /)
    expect(r.license).toMatch(/not Judge0/)
  })
})

describe('judge0api 0.1.20', () => {
  test('authenticate, submit with wait, Wrong Answer, submit without wait and load', { timeout: 90_000 }, async () => {
    const r = await scenario('api_run')
    expect(r.wait).toMatchObject({ stdout: 'Hello Judge0\n', status: { id: 3, description: 'Accepted' } })
    expect(r.wait.time).toMatch(/^\d+\.\d+$/)
    expect(r.wrong).toMatchObject({ stdout: 'nope\n', status: { id: 4, description: 'Wrong Answer' } })
    expect(r.polled).toMatchObject({ stdout: '42\n', status: { id: 3 }, language_id: 50, exit_code: 0 })
  })

  test('a wrong token: /authenticate answers 401', { timeout: 60_000 }, async () => {
    expect(await scenario('api_bad_token')).toEqual({ status: 401 })
  })

  test("its errors: requests' HTTPError with Judge0's 422 body (a floor, a ceiling, number_of_runs 0, an unknown language)", { timeout: 60_000 }, async () => {
    const r = await scenario('api_errors')
    expect(r.memory_floor).toEqual({ status: 422, body: { memory_limit: ['must be greater than or equal to 16384'] } })
    expect(r.cpu_ceiling).toEqual({ status: 422, body: { cpu_time_limit: ['must be less than or equal to 5.0'] } })
    expect(r.runs).toEqual({ status: 422, body: { number_of_runs: ['must be greater than 0'] } })
    expect(r.language).toEqual({ status: 422, body: { language_id: ["language with id 99999 doesn't exist"] } })
  })

  test('callback_url: judge0api 0.1.20 keeps it on its object but never sends it (submit sends a fixed list of fields), so no PUT arrives', { timeout: 60_000 }, async () => {
    const r = await scenario('api_callback')
    expect(r).toMatchObject({ stdout: 'api called back\n', status: { id: 3 }, kept_locally: `${receiver.url}/api-cb` })
    // the server got no callback_url: none stored, none sent (a callback would be out within this wait)
    const shown: any = await (await fetch(`${server.url}/judge0/submissions/${r.token}?fields=callback_url`, { headers: { 'X-Auth-Token': secret } })).json()
    expect(shown).toEqual({ callback_url: null })
    await new Promise((res) => setTimeout(res, 1500))
    expect(receiver.received.filter((x) => x.path === '/api-cb')).toEqual([])
  })
})
