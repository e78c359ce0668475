// Judge0 CE end to end: the real server, real jail and toolchains; every status a program can reach,
// each request attribute that changes a run (cpu_extra_time, stack_limit and number_of_runs included;
// wait=true past its cap), the refusals, auth, batch, callbacks (PUT), Base64, and
// 16 concurrent clients whose results must come back complete and each to its own submission.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startReceiver, startServer, waitUntil, type Receiver, type RunningServer } from '../testing/harness.ts'

let server: RunningServer
let receiver: Receiver
let secret: string
let other: string

beforeAll(async () => {
  server = await startServer()
  receiver = await startReceiver()
  secret = await server.createClient('judge0-e2e')
  other = await server.createClient('judge0-e2e-other')
  // a server's start takes its seconds on a loaded machine
}, 180_000)

afterAll(async () => {
  await receiver?.close()
  await server?.stop()
  server?.cleanup()
})

const call = async (method: string, path: string, body?: unknown, token = secret) => {
  const r = await fetch(`${server.url}/judge0${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { 'X-Auth-Token': token } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await r.text()
  return { status: r.status, body: text ? JSON.parse(text) : null, text }
}
/** POST with wait=true: the finished submission, every attribute. */
const run = async (sub: Record<string, unknown>, query = '') => {
  const r = await call('POST', `/submissions?wait=true&fields=*${query}`, sub)
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body
}
const finished = async (token: string, query = '', who = secret) => {
  let last: any
  await waitUntil(async () => (last = (await call('GET', `/submissions/${token}?fields=*${query}`, undefined, who)).body).status.id > 2, 60_000, `${token} to finish`)
  return last
}

const C = (body: string) => `#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <signal.h>\nint main(int argc, char **argv) {\n${body}\n}\n`

describe('statuses from real runs', () => {
  test.each([
    ['3 Accepted (python3, expected_output with trailing spaces and blank lines)', { language_id: 71, source_code: 'print(input() + "  ")\nprint()\n', stdin: 'hi', expected_output: 'hi' }, 3],
    ['4 Wrong Answer', { language_id: 71, source_code: 'print("no")', expected_output: 'yes' }, 4],
    ['5 Time Limit Exceeded', { language_id: 71, source_code: 'while True: pass', cpu_time_limit: 0.5 }, 5],
    ['6 Compilation Error', { language_id: 50, source_code: 'int main( {' }, 6],
    ['7 SIGSEGV', { language_id: 50, source_code: C('volatile int *p = 0; *p = 1; return 0;') }, 7],
    ['8 SIGXFSZ (max_file_size)', { language_id: 71, source_code: 'print("x" * 100000)', max_file_size: 4 }, 8],
    ['9 SIGFPE', { language_id: 50, source_code: C('volatile int z = 0; int r = 10 / z; printf("%d", r); return 0;') }, 9],
    ['10 SIGABRT', { language_id: 50, source_code: C('abort();') }, 10],
    ['11 NZEC', { language_id: 71, source_code: 'import sys\nsys.exit(3)' }, 11],
    ['12 Other (memory over memory_limit: killed, signal 9)', { language_id: 50, source_code: C('size_t n = 200u << 20; volatile char *p = malloc(n); for (size_t i = 0; i < n; i += 4096) p[i] = 1; printf("%d", p[n - 4096]); return 0;'), memory_limit: 65536 }, 12],
  ])('%s', { timeout: 60_000 }, async (_name, sub, id) => {
    const body = await run(sub)
    expect(body.status.id, JSON.stringify(body)).toBe(id)
    expect(Object.keys(body)).toHaveLength(35)
    if (id === 6) {
      expect(body.compile_output).toMatch(/error/)
      expect([body.time, body.memory, body.stdout, body.exit_code]).toEqual([null, null, null, null])
    } else {
      expect(body.time).toMatch(/^\d+\.\d+$/)
      expect(typeof body.memory).toBe('number')
      expect(body.wall_time).toMatch(/^\d+\.\d+$/)
    }
    if (id === 11) expect([body.exit_code, body.message]).toEqual([3, 'Exited with error status 3'])
    if (id === 7) expect([body.exit_signal, body.message]).toEqual([11, 'Caught fatal signal 11'])
    if (id === 12) expect(body.exit_signal).toBe(9)
    if (id === 5) expect(body.message).toMatch(/^Time limit exceeded/)
    expect(body.finished_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })
})

describe('request attributes', () => {
  test('stdin, command_line_arguments and compiler_options as argv items, never a shell', { timeout: 60_000 }, async () => {
    const body = await run({
      language_id: 50,
      source_code: C('char line[64]; fgets(line, sizeof line, stdin); printf("%s", line); for (int i = 1; i < argc; i++) printf("[%s]", argv[i]); printf("%d\\n", X); return 0;'),
      stdin: 'in\n',
      command_line_arguments: "a 'b c' $(id) ;ls `x` > y",
      compiler_options: '-DX=42 -Wall',
    })
    expect(body.status.id).toBe(3)
    expect(body.stdout).toBe('in\n[a][b c][$(id)][;ls][`x`][>][y]42\n')
  })

  test('redirect_stderr_to_stdout', { timeout: 60_000 }, async () => {
    const body = await run({ language_id: 71, source_code: 'import sys\nprint("out")\nprint("err", file=sys.stderr)', redirect_stderr_to_stdout: true })
    expect([body.stdout, body.stderr]).toEqual(['out\nerr\n', null])
  })

  test('additional_files: the zip\'s files beside the source', { timeout: 60_000 }, async () => {
    const { execFileSync } = await import('node:child_process')
    const zip = execFileSync('/var/lib/arbiter/test-clients/venv/bin/python', ['-c', 'import io,zipfile,base64,sys\nb=io.BytesIO()\nz=zipfile.ZipFile(b,"w")\nz.writestr("helper.py","def answer():\\n    return 42\\n")\nz.close()\nsys.stdout.write(base64.b64encode(b.getvalue()).decode())'], { encoding: 'utf8' })
    const body = await run({ language_id: 71, source_code: 'import helper\nprint(helper.answer())', additional_files: zip })
    expect(body.stdout).toBe('42\n')
    expect(body.additional_files.replace(/\n/g, '')).toBe(zip)
  })

  test('bytes stay bytes through the jail: source, stdin and a zip\'s file reach the program exactly as sent (invalid UTF-8, NULs, ED A0 80)', { timeout: 90_000 }, async () => {
    const { execFileSync } = await import('node:child_process')
    const odd = Buffer.from([0x41, 0xff, 0xfe, 0x00, 0xed, 0xa0, 0x80, 0x0a])
    const zip = execFileSync('/var/lib/arbiter/test-clients/venv/bin/python', ['-c', `import io,zipfile,base64,sys\nb=io.BytesIO()\nz=zipfile.ZipFile(b,"w")\nz.writestr("data.bin",bytes.fromhex("${odd.toString('hex')}"))\nz.close()\nsys.stdout.write(base64.b64encode(b.getvalue()).decode())`], { encoding: 'utf8' })
    // C keeps any byte in a comment; the program prints its own source, its stdin and the file in hex
    const source = Buffer.concat([
      Buffer.from('#include <stdio.h>\nstatic void dump(FILE *f) { int c; if (!f) { puts("missing"); return; } while ((c = getc(f)) != EOF) printf("%02x", c); printf("\\n"); }\n/* '),
      odd.subarray(0, 7),
      Buffer.from(' */\nint main(void) { dump(fopen("main.c", "rb")); dump(stdin); dump(fopen("data.bin", "rb")); return 0; }\n'),
    ])
    const body = await run({ language_id: 50, source_code: source.toString('base64'), stdin: odd.toString('base64'), additional_files: zip }, '&base64_encoded=true')
    expect(body.status.id, JSON.stringify(body)).toBe(3)
    expect(Buffer.from(body.stdout, 'base64').toString()).toBe(`${source.toString('hex')}\n${odd.toString('hex')}\n${odd.toString('hex')}\n`)
    // and back as the same bytes
    expect([Buffer.from(body.source_code, 'base64'), Buffer.from(body.stdin, 'base64')]).toEqual([source, odd])
    // plain, the source is not UTF-8: Judge0's 400
    const plain = await call('GET', `/submissions/${body.token}?fields=source_code`)
    expect([plain.status, plain.body.error]).toEqual([400, expect.stringMatching(/cannot be converted to UTF-8/)])
  })

  test('expected_output compared on bytes: output 41 FE 0A against 41 FF 0A is Wrong Answer, against itself Accepted', { timeout: 60_000 }, async () => {
    const b64 = (b: number[]) => Buffer.from(b).toString('base64')
    const source = Buffer.from('import sys\nsys.stdout.buffer.write(sys.stdin.buffer.read())\n').toString('base64')
    const wrong = await run({ language_id: 71, source_code: source, stdin: b64([0x41, 0xfe, 0x0a]), expected_output: b64([0x41, 0xff, 0x0a]) }, '&base64_encoded=true')
    expect([wrong.status.id, [...Buffer.from(wrong.stdout, 'base64')]]).toEqual([4, [0x41, 0xfe, 0x0a]])
    const right = await run({ language_id: 71, source_code: source, stdin: b64([0x41, 0xfe, 0x00, 0x0a]), expected_output: b64([0x41, 0xfe, 0x00, 0x0a]) }, '&base64_encoded=true')
    expect(right.status.id).toBe(3)
  })

  test('base64_encoded=true both ways, the exact bytes; without it, output that is not UTF-8 is Judge0\'s error', { timeout: 60_000 }, async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64')
    const source = 'import sys\nsys.stdout.buffer.write(bytes([0xfe, 0x41]) + b"y" * 60)'
    const body = await run({ language_id: 71, source_code: b64(source), stdin: b64('') }, '&base64_encoded=true')
    expect(body.stdout).toMatch(/^[A-Za-z0-9+/=]{60}\n[A-Za-z0-9+/=]+\n$/)
    expect([...Buffer.from(body.stdout, 'base64').subarray(0, 3)]).toEqual([0xfe, 0x41, 0x79])
    const plain = await call('GET', `/submissions/${body.token}?fields=stdout`)
    expect(plain).toMatchObject({ status: 400, body: { error: 'some attributes for this submission cannot be converted to UTF-8, use base64_encoded=true query parameter' } })
    const waited = await call('POST', '/submissions?wait=true', { language_id: 71, source_code: source })
    expect(waited.status).toBe(201)
    expect(waited.body).toEqual({ error: 'some attributes for this submission cannot be converted to UTF-8, use base64_encoded=true query parameter', token: expect.any(String) })
    // UTF-8 output is text as it is
    expect((await run({ language_id: 71, source_code: 'print("żółw ✓")' })).stdout).toBe('żółw ✓\n')
  })
})

describe('limits Judge0 applies beyond CPU and memory', () => {
  // burns CPU until the process has used `s` seconds of it, then exits 0
  const burn = (s: number) => C(`while ((double)clock() / CLOCKS_PER_SEC < ${s}) ; puts("done"); return 0;`).replace('#include <stdio.h>', '#include <stdio.h>\n#include <time.h>')

  test('cpu_extra_time: 1.2 s of CPU at cpu_time_limit 1 with 0.5 extra is TLE, not stopped at 1 s: time shows all of it', { timeout: 60_000 }, async () => {
    const graced = await run({ language_id: 50, source_code: burn(1.2), cpu_time_limit: 1, cpu_extra_time: 0.5 })
    expect(graced).toMatchObject({ status: { id: 5 }, message: 'Time limit exceeded', stdout: 'done\n' })
    expect(Number(graced.time)).toBeGreaterThan(1.15)
    expect(Number(graced.time)).toBeLessThan(1.5)
    // no extra: stopped at the limit, before it could print
    const stopped = await run({ language_id: 50, source_code: burn(1.2), cpu_time_limit: 1, cpu_extra_time: 0 })
    expect(stopped).toMatchObject({ status: { id: 5 }, stdout: null })
    expect(Number(stopped.time)).toBeLessThan(1.15)
  })

  test('stack_limit: a 40 MB-deep recursion passes at 128000 KB and is SIGSEGV at 8000 KB', { timeout: 60_000 }, async () => {
    const source =
      '#include <stdio.h>\n__attribute__((noinline)) static long down(long n) { volatile char pad[1000]; pad[0] = (char)n; if (n == 0) return 0; long r = down(n - 1); return r + 1 + pad[0] - pad[0]; }\n' +
      'int main(void) { long n; if (scanf("%ld", &n) != 1) return 2; printf("%ld", down(n)); return 0; }\n'
    expect(await run({ language_id: 50, source_code: source, stdin: '40000', stack_limit: 128000 })).toMatchObject({ status: { id: 3 }, stdout: '40000' })
    expect(await run({ language_id: 50, source_code: source, stdin: '40000', stack_limit: 8000 })).toMatchObject({ status: { id: 7 }, exit_signal: 11 })
  })

  test('number_of_runs 3 runs the program 3 times, each in a fresh work directory, until one exits non-zero: time the mean, the output the last run\'s', { timeout: 120_000 }, async () => {
    // the run steps the jail ran, counted by /metrics: C (Clang), which no other test here runs, so no
    // other job's steps are counted with these
    const { token } = (await server.cli(['metrics', 'token'])) as { token: string }
    const series = 'arbiter_step_duration_seconds_count{step="run",language="C_CLANG"} '
    const runSteps = async () => {
      const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
      const line = text.split('\n').find((l) => l.startsWith(series))
      return line === undefined ? 0 : Number(line.slice(series.length))
    }
    const stepsOf = async (sub: Record<string, unknown>) => {
      const before = await runSteps()
      const body = await run({ language_id: 75, ...sub })
      return { body, steps: (await runSteps()) - before }
    }
    // 0.3 s of CPU, then a file in the work directory: a run that finds one left by an earlier run says so
    const source =
      '#include <stdio.h>\n#include <time.h>\n#include <unistd.h>\nint main(void) {\n  while ((double)clock() / CLOCKS_PER_SEC < 0.3) ;\n' +
      '  if (access("mark", F_OK) == 0) { puts("an earlier run\'s file"); return 0; }\n  FILE *f = fopen("mark", "w");\n  if (!f) return 3;\n  fclose(f);\n  puts("done");\n  return 0;\n}\n'
    const once = await stepsOf({ source_code: source, number_of_runs: 1 })
    expect(once.body).toMatchObject({ status: { id: 3 }, number_of_runs: 1, stdout: 'done\n' })
    expect(once.steps, 'number_of_runs 1: one run step').toBe(1)
    const thrice = await stepsOf({ source_code: source, number_of_runs: 3 })
    // the last run wrote its file into a work directory no earlier run had written to
    expect(thrice.body).toMatchObject({ status: { id: 3 }, number_of_runs: 3, stdout: 'done\n' })
    expect(thrice.steps, 'number_of_runs 3: three run steps').toBe(3)
    // the mean of three runs of 0.3 s of CPU each
    expect(Number(thrice.body.time)).toBeGreaterThanOrEqual(0.29)
    expect(Number(thrice.body.time)).toBeLessThan(0.6)
    // a run that exits non-zero is the last one made: one run step, its status
    const failing = await stepsOf({ source_code: source.replace('puts("done");\n  return 0;', 'puts("done");\n  return 4;'), number_of_runs: 3 })
    expect(failing.body).toMatchObject({ status: { id: 11 }, exit_code: 4, stdout: 'done\n' })
    expect(failing.steps, 'stopped after the first run').toBe(1)
  })

  test('wall_time_limit stops a program that sleeps: status 5 on the wall clock, at the limit, little CPU', { timeout: 60_000 }, async () => {
    const t = Date.now()
    const slept = await run({ language_id: 71, source_code: 'import time\nprint("start", flush=True)\ntime.sleep(10)\nprint("never")', wall_time_limit: 1.5 })
    const took = Date.now() - t
    expect(slept).toMatchObject({ status: { id: 5, description: 'Time Limit Exceeded' }, message: 'Time limit exceeded (wall clock)', wall_time_limit: '1.5', stdout: 'start\n' })
    expect(Number(slept.wall_time)).toBeGreaterThanOrEqual(1.4)
    expect(Number(slept.wall_time)).toBeLessThan(2.5)
    expect(Number(slept.time)).toBeLessThan(0.5)
    expect(took).toBeLessThan(8000)
    // the same program within a larger wall limit is not stopped early
    const waited = await run({ language_id: 71, source_code: 'import time\ntime.sleep(1)\nprint("woke")', wall_time_limit: 4 })
    expect(waited).toMatchObject({ status: { id: 3 }, stdout: 'woke\n' })
  })

  // forks (or starts threads) until the kernel refuses, each child or thread held alive; prints how many it got
  const forkCount =
    '#include <stdio.h>\n#include <signal.h>\n#include <unistd.h>\n' +
    'int main(void) { int n = 0; pid_t kids[1000]; for (; n < 1000; n++) { pid_t p = fork(); if (p < 0) break; if (p == 0) { pause(); _exit(0); } kids[n] = p; }\n' +
    '  printf("%d\\n", n); fflush(stdout); for (int i = 0; i < n; i++) kill(kids[i], SIGKILL); return 0; }\n'
  const threadCount =
    '#include <stdio.h>\n#include <pthread.h>\n#include <unistd.h>\nstatic void *hold(void *a) { (void)a; pause(); return 0; }\n' +
    'int main(void) { int n = 0; pthread_attr_t at; pthread_attr_init(&at); pthread_attr_setstacksize(&at, 65536); for (; n < 1000; n++) { pthread_t t; if (pthread_create(&t, &at, hold, 0) != 0) break; } printf("%d\\n", n); fflush(stdout); _exit(0); }\n'

  test('max_processes_and_or_threads bounds a fork bomb and a thread bomb: the kernel refuses past it', { timeout: 90_000 }, async () => {
    const forks = async (limit: number) => await run({ language_id: 50, source_code: forkCount, max_processes_and_or_threads: limit })
    // -pthread: 50 is GCC 9 on bullseye's glibc 2.31, where the threads are still libpthread's (as on Judge0's GCC 9.2)
    const threads = async (limit: number) => await run({ language_id: 50, source_code: threadCount, compiler_options: '-pthread', max_processes_and_or_threads: limit })
    const [f5, f40, t5, t40] = [await forks(5), await forks(40), await threads(5), await threads(40)]
    for (const r of [f5, f40, t5, t40]) expect(r.status.id, JSON.stringify(r)).toBe(3)
    // the program and the jail's init count too: a few fewer than the limit, and the limit is what moves the bound
    for (const [r, limit] of [[f5, 5], [f40, 40], [t5, 5], [t40, 40]] as const) {
      expect(Number(r.stdout), `${limit}: ${r.stdout}`).toBeLessThanOrEqual(limit - 1)
      expect(Number(r.stdout), `${limit}: ${r.stdout}`).toBeGreaterThanOrEqual(limit - 3)
    }
    // a bomb that never stops forking: bounded, ended by its time limit, and the next run is unaffected
    const bomb = await run({ language_id: 50, source_code: '#include <unistd.h>\nint main(void) { for (;;) fork(); }\n', max_processes_and_or_threads: 8, cpu_time_limit: 1, wall_time_limit: 2 })
    expect(bomb.status.id).toBe(5)
    expect(await run({ language_id: 71, source_code: 'print("after")' })).toMatchObject({ status: { id: 3 }, stdout: 'after\n' })
  })

  test('wait=true past judge0.wait_max_sec: 201 with the token and status (Processing), and it finishes as usual', { timeout: 120_000 }, async () => {
    const capped = await startServer({ configToml: '[judge0]\nwait_max_sec = 1\n' })
    try {
      const key = await capped.createClient('judge0-wait')
      const t = Date.now()
      const r = await fetch(`${capped.url}/judge0/submissions?wait=true&fields=stdout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Auth-Token': key },
        body: JSON.stringify({ language_id: 71, source_code: 'import time\ntime.sleep(3)\nprint("slept")' }),
      })
      const held = Date.now() - t
      expect(r.status).toBe(201)
      const body: any = await r.json()
      expect(Object.keys(body)).toEqual(['stdout', 'token', 'status'])
      expect([1, 2]).toContain(body.status.id)
      expect(held).toBeGreaterThanOrEqual(950)
      expect(held).toBeLessThan(3000)
      let last: any
      await waitUntil(async () => ((last = await (await fetch(`${capped.url}/judge0/submissions/${body.token}`, { headers: { 'X-Auth-Token': key } })).json()) as any).status.id > 2, 30_000, 'the held submission to finish')
      expect(last).toMatchObject({ status: { id: 3 }, stdout: 'slept\n' })
    } finally {
      await capped.stop()
      capped.cleanup()
    }
  })
})

describe('refusals and auth', () => {
  test('422 bodies for out-of-range limits, enable_network, language 89 without its zip and unknown ids', async () => {
    const r = await call('POST', '/submissions', { source_code: 'print(1)', language_id: 71, memory_limit: 1, enable_network: true, wall_time_limit: 1000 })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({
      wall_time_limit: [expect.stringMatching(/^must be less than or equal to /)],
      // Judge0's 2048, raised to the server's limits.min_memory_kb (16384 by default)
      memory_limit: ['must be greater than or equal to 16384'],
      enable_network: ['enabling network is not allowed'],
    })
    // 89 (a multi-file program) takes its zip and no source, as Judge0 has it; 47 is an id Judge0 CE 1.13.1 lists that is not offered
    expect((await call('POST', '/submissions', { source_code: 'x', language_id: 89 })).body).toEqual({ source_code: ['must be blank'], additional_files: ["can't be blank"] })
    expect((await call('POST', '/submissions', { source_code: 'x', language_id: 47 })).body).toEqual({ language_id: ["language with id 47 doesn't exist"] })
    expect((await call('POST', '/submissions', { source_code: 'x' })).body).toEqual({ language_id: ["can't be blank", "language with id  doesn't exist"] })
    expect((await call('POST', '/submissions', { source_code: 'x', language_id: 71, compiler_options: '-O2' })).body).toEqual({ compiler_options: ['setting compiler options is only allowed for compiled languages'] })
    expect((await call('POST', '/submissions', { source_code: 'x', language_id: 50, compiler_options: '"-O2', command_line_arguments: 'x'.repeat(513) })).body).toEqual({
      command_line_arguments: ['is too long (maximum is 512 characters)'],
      compiler_options: ['has an unterminated double quote'],
    })
    expect((await call('POST', '/submissions', { source_code: 'x', language_id: 71, enable_per_process_and_thread_time_limit: true, enable_per_process_and_thread_memory_limit: 'true', number_of_runs: 21 })).body).toEqual({
      number_of_runs: ['must be less than or equal to 20'],
      enable_per_process_and_thread_time_limit: ['this option cannot be enabled'],
      enable_per_process_and_thread_memory_limit: ['this option cannot be enabled'],
    })
    expect((await call('POST', '/submissions', { source_code: 'x', language_id: 71, additional_files: 'bm90IGEgemlw' })).body.additional_files[0]).toMatch(/^is not a zip archive/)
    expect((await call('GET', '/submissions/x?fields=stdout,bogus')).body).toEqual({ error: 'invalid fields: [bogus]' })
    const batch = await call('POST', '/submissions/batch', { submissions: [{ language_id: 71 }] })
    expect([batch.status, batch.body]).toEqual([422, [{ source_code: ["can't be blank"] }]])
  })

  test("under the server's floors (limits.min_memory_kb, min_time_sec): 422, never raised; at them, run as given", { timeout: 60_000 }, async () => {
    const stored = () => server.query<{ n: number }>("select count(*) n from submissions where api = 'judge0'")[0]!.n
    const before = stored()
    // between Judge0's 2048 and the server's 16384: Judge0 would take it, the core would raise it
    const low = await call('POST', '/submissions', { source_code: 'print(1)', language_id: 71, memory_limit: 8192, cpu_time_limit: 0.05 })
    expect([low.status, low.body]).toEqual([422, { cpu_time_limit: ['must be greater than or equal to 0.1'], memory_limit: ['must be greater than or equal to 16384'] }])
    const batch = await call('POST', '/submissions/batch', { submissions: [{ source_code: 'print(1)', language_id: 71, memory_limit: 16383 }] })
    expect([batch.status, batch.body]).toEqual([422, [{ memory_limit: ['must be greater than or equal to 16384'] }]])
    expect(stored()).toBe(before)
    // at the floors: what was asked is what runs and what is shown
    const at = await run({ source_code: 'print("floor")', language_id: 71, memory_limit: 16384, cpu_time_limit: 0.1, wall_time_limit: 2 })
    expect(at).toMatchObject({ memory_limit: 16384, cpu_time_limit: '0.1' })
    expect([3, 5, 12]).toContain(at.status.id)
    expect(server.query('select memory_limit_kb m, time_limit_sec t from submissions where he_id = ?', at.token)[0]).toEqual({ m: 16384, t: 0.1 })
    // 0 stays Judge0's "no CPU limit" (the largest allowed)
    expect((await run({ source_code: 'print("zero")', language_id: 71, cpu_time_limit: 0 })).stdout).toBe('zero\n')
  })

  test('401 without or with a wrong X-Auth-Token; another client\'s token is 404', { timeout: 60_000 }, async () => {
    expect((await call('GET', '/languages', undefined, '')).status).toBe(401)
    expect((await call('GET', '/languages', undefined, 'wrong')).status).toBe(401)
    expect((await call('POST', '/authenticate', {}, 'wrong')).status).toBe(401)
    expect((await call('POST', '/authenticate', {})).status).toBe(200)
    const { body } = await call('POST', '/submissions', { source_code: 'print(1)', language_id: 71 })
    await finished(body.token)
    expect((await call('GET', `/submissions/${body.token}`, undefined, other)).status).toBe(404)
    expect((await call('GET', `/submissions/batch?tokens=${body.token}`, undefined, other)).body).toEqual({ submissions: [null] })
  })
})

describe('the token as a query parameter, /authorize, and the information routes', () => {
  const raw = (method: string, path: string, headers: Record<string, string> = {}) => fetch(`${server.url}/judge0${path}`, { method, headers })

  test('?X-Auth-Token= works where the header does (GET and POST); a wrong one is 401; the header is read first, as Judge0 reads it', { timeout: 60_000 }, async () => {
    const q = `X-Auth-Token=${encodeURIComponent(secret)}`
    expect((await raw('GET', `/languages?${q}`)).status).toBe(200)
    expect((await raw('POST', `/authenticate?${q}`)).status).toBe(200)
    const created = await fetch(`${server.url}/judge0/submissions?wait=true&${q}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ language_id: 71, source_code: 'print("by query")' }) })
    expect(created.status).toBe(201)
    const body: any = await created.json()
    expect(body.stdout).toBe('by query\n')
    expect(((await (await raw('GET', `/submissions/${body.token}?${q}`)).json()) as any).stdout).toBe('by query\n')
    for (const r of [await raw('GET', '/languages?X-Auth-Token=wrong'), await raw('POST', '/authenticate?X-Auth-Token=wrong')]) {
      expect(r.status).toBe(401)
      expect(await r.text()).toBe('')
    }
    // Judge0: request.headers[name] || params[name]
    expect((await raw('GET', `/languages?${q}`, { 'X-Auth-Token': 'wrong' })).status).toBe(401)
    expect((await raw('GET', '/languages?X-Auth-Token=wrong', { 'X-Auth-Token': secret })).status).toBe(200)
  })

  test('/authorize: 403 (no administrator token here) after a valid token, header or query; 401 before', { timeout: 60_000 }, async () => {
    for (const r of [await raw('POST', '/authorize', { 'X-Auth-Token': secret }), await raw('POST', `/authorize?X-Auth-Token=${encodeURIComponent(secret)}`), await raw('POST', '/authorize', { 'X-Auth-Token': secret, 'X-Auth-User': 'admin' })]) {
      expect(r.status).toBe(403)
      expect(await r.text()).toBe('')
    }
    expect((await raw('POST', '/authorize')).status).toBe(401)
    expect((await raw('POST', '/authorize', { 'X-Auth-Token': 'wrong' })).status).toBe(401)
  })

  test('/languages/all: every offered language with is_archived false, the same ids as /languages', async () => {
    const all = await call('GET', '/languages/all')
    const listed = await call('GET', '/languages')
    expect(all.status).toBe(200)
    expect(all.body.map((l: any) => Object.keys(l))).toEqual(all.body.map(() => ['id', 'name', 'is_archived']))
    expect(all.body.every((l: any) => l.is_archived === false)).toBe(true)
    expect(all.body.map((l: any) => ({ id: l.id, name: l.name }))).toEqual(listed.body)
    expect(all.body.map((l: any) => l.id)).toEqual(expect.arrayContaining([50, 54, 62, 63, 71]))
    expect((await call('GET', '/languages/all', undefined, 'wrong')).status).toBe(401)
  })

  test("/system_info: this host's processors and memory in Judge0's shape", async () => {
    const { cpus, arch } = await import('node:os')
    const r = await call('GET', '/system_info')
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['Architecture', 'CPU(s)', 'Model name', 'Mem', 'Mem free'])
    expect(r.body['CPU(s)']).toBe(String(cpus().length))
    expect(r.body.Architecture).toBe(arch() === 'x64' ? 'x86_64' : arch())
    expect(r.body.Mem).toMatch(/^\d+\.\dGi$/)
    expect((await call('GET', '/system_info', undefined, '')).status).toBe(401)
  })

  test("/isolate and /license: text, as Judge0 serves them, saying what runs programs here and whose software this is", async () => {
    for (const path of ['/isolate', '/license']) {
      const r = await raw('GET', path, { 'X-Auth-Token': secret })
      expect(r.status, path).toBe(200)
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/)
      const text = await r.text()
      expect(text, path).toMatch(path === '/isolate' ? /nsjail/ : /^Arbiter/)
      expect((await raw('GET', path)).status).toBe(401)
    }
  })
})

describe('batch and callbacks', () => {
  test('batch create and show: tokens in order, errors in place', { timeout: 60_000 }, async () => {
    const r = await call('POST', '/submissions/batch', { submissions: [{ language_id: 71, source_code: 'print("py")' }, { language_id: 123456789, source_code: 'x' }, { language_id: 50, source_code: C('puts("c"); return 0;') }] })
    expect(r.status).toBe(201)
    expect(r.body[1]).toEqual({ language_id: ["language with id 123456789 doesn't exist"] })
    const tokens = [r.body[0].token, r.body[2].token]
    for (const t of tokens) await finished(t)
    const shown = await call('GET', `/submissions/batch?tokens=${tokens.join(',')}&fields=token,stdout,status_id,language_id`)
    expect(shown.body).toEqual({ submissions: [
      { language_id: 71, stdout: 'py\n', status_id: 3, token: tokens[0] },
      { language_id: 50, stdout: 'c\n', status_id: 3, token: tokens[1] },
    ] })
  })

  test('callback_url receives one PUT with the default attributes, text in Base64', { timeout: 60_000 }, async () => {
    const { body } = await call('POST', '/submissions', { language_id: 71, source_code: 'print("called back")', callback_url: `${receiver.url}/judge0/cb` })
    await waitUntil(() => receiver.received.some((r) => r.path === '/judge0/cb'), 30_000, 'the callback')
    const got = receiver.received.filter((r) => r.path === '/judge0/cb')
    expect(got).toHaveLength(1)
    expect(got[0]!.method).toBe('PUT')
    expect(got[0]!.headers['content-type']).toBe('application/json')
    const sent = JSON.parse(got[0]!.body)
    expect(Object.keys(sent)).toEqual(['stdout', 'time', 'memory', 'stderr', 'token', 'compile_output', 'message', 'status'])
    expect(sent).toMatchObject({ token: body.token, stdout: `${Buffer.from('called back\n').toString('base64')}\n`, status: { id: 3, description: 'Accepted' } })
  })
})

describe('concurrency', () => {
  test('16 clients at once: every submission completes with its own output', { timeout: 180_000 }, async () => {
    const n = 16
    const results = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const tag = `job-${i}-${Math.random().toString(36).slice(2)}`
        const lang = i % 2 ? 71 : 50
        const source = lang === 71 ? 'print(input()[::-1])' : C('char s[128]; scanf("%127s", s); size_t n = strlen(s); for (size_t k = n; k > 0; k--) putchar(s[k - 1]); putchar(10); return 0;')
        const wait = i % 4 === 0
        const r = await call('POST', `/submissions${wait ? '?wait=true&fields=*' : ''}`, { language_id: lang, source_code: source, stdin: tag, expected_output: [...tag].reverse().join('') })
        expect(r.status).toBe(201)
        const body = wait ? r.body : await finished(r.body.token)
        return { tag, body }
      })
    )
    for (const { tag, body } of results) {
      expect(body.stdout).toBe(`${[...tag].reverse().join('')}\n`)
      expect(body.stdin).toBe(tag)
      expect(body.status.id).toBe(3)
    }
    expect(new Set(results.map((r) => r.body.token)).size).toBe(n)
  })
})
