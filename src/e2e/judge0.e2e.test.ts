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
}, 60_000)

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

  test('number_of_runs 3 runs the program 3 times: three times the CPU one run takes, time the mean of one run', { timeout: 60_000 }, async () => {
    const source = burn(0.3)
    await run({ language_id: 50, source_code: source }) // compiled once, so both below take the compile cache
    const timed = async (n: number) => {
      const t = Date.now()
      const body = await run({ language_id: 50, source_code: source, number_of_runs: n })
      return { body, ms: Date.now() - t }
    }
    const once = await timed(1)
    const thrice = await timed(3)
    expect(thrice.body).toMatchObject({ status: { id: 3 }, number_of_runs: 3, stdout: 'done\n' })
    expect(Number(thrice.body.time)).toBeGreaterThanOrEqual(0.29)
    expect(Number(thrice.body.time)).toBeLessThan(0.6)
    // 2 more runs of 0.3 s of CPU each, one after the other
    expect(thrice.ms - once.ms).toBeGreaterThan(2 * 290)
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
  test('422 bodies for out-of-range limits, enable_network, language 89 and unknown ids', async () => {
    const r = await call('POST', '/submissions', { source_code: 'print(1)', language_id: 71, memory_limit: 1, enable_network: true, wall_time_limit: 1000 })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({
      wall_time_limit: [expect.stringMatching(/^must be less than or equal to /)],
      memory_limit: ['must be greater than or equal to 2048'],
      enable_network: ['enabling network is not allowed'],
    })
    expect((await call('POST', '/submissions', { source_code: 'x', language_id: 89 })).body).toEqual({ language_id: ["language with id 89 doesn't exist"] })
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
