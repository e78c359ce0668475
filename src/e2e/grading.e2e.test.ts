// Graded v4 submissions end to end: the real server and jail; compile once, one fresh jail
// per test, judged by the checkers; poll and callback; stop_on_first_failure; the web_link table; a
// request without the new fields unchanged; refusals of bad test sets.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { V4Reply } from '../hackerearth/schemas.ts'
import { api, json, startReceiver, startServer, waitUntil, type Receiver, type RunningServer } from '../testing/harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'

let server: RunningServer
let receiver: Receiver
let secret: string
let http: ReturnType<typeof api>

beforeAll(async () => {
  server = await startServer({ configToml: '[grading]\nmax_tests = 120\nchecker_time_sec = 1' })
  http = api(server.url)
  receiver = await startReceiver()
  secret = await server.createClient('grading-e2e')
}, 60_000)

afterAll(async () => {
  await receiver?.close()
  await server?.stop()
  server?.cleanup()
})

const submit = async (body: unknown) => {
  const r = await http.post(PATH, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' })
  return { status: r.status, body: await json(r) }
}
const poll = async (publicId: string) => json(await http.get(`${PATH}${publicId}/`, { 'client-secret': secret }))
const completed = async (publicId: string, ms = 60_000) => {
  let last: { request_status: { code: string } } | undefined
  await waitUntil(async () => (last = await poll(publicId)).request_status.code === 'REQUEST_COMPLETED', ms, `${publicId} to complete`)
  return last as V4Reply
}

// sums the numbers of its input; a counter file in /work shows whether a test sees what an earlier wrote
const SUM_C = `#include <stdio.h>
int main(void){ FILE*f=fopen("seen","r"); if(f){ puts("LEFTOVER"); return 0; } f=fopen("seen","w"); fputs("x",f); fclose(f);
long long s=0,x; while(scanf("%lld",&x)==1) s+=x; printf("%lld\\n", s); return 0; }`

describe('graded submissions', () => {
  test('compiled once, each test in a fresh jail: AC, WA, TLE and RE per test, the first failure decides, score and points', { timeout: 120_000 }, async () => {
    const q = await submit({
      lang: 'C',
      source: `#include <stdio.h>
#include <stdlib.h>
int main(void){ long long s=0,x; while(scanf("%lld",&x)==1) s+=x;
  if (s == 7) for(;;);            /* test 3: TLE */
  if (s == 9) abort();            /* test 4: RE */
  printf("%lld\\n", s); return 0; }`,
      test_cases: [
        { input: '1 2', expected_output: '3\n' },
        { input: '2 2', expected_output: '5', points: 2 },
        { input: '3 4', expected_output: '7', time_limit: 1 },
        { input: '4 5', expected_output: '9' },
        { input: '10 20', expected_output: '30   \r\n\n', points: 3 },
      ],
    })
    expect(q.status, JSON.stringify(q.body)).toBe(200)
    expect(q.body.request_status.code).toBe('REQUEST_QUEUED')
    const done = await completed(q.body.he_id)
    expect(V4Reply.parse(done)).toBeTruthy()
    const r = done.result
    expect(r.tests!.map((t) => t.status)).toEqual(['AC', 'WA', 'TLE', 'RE', 'AC'])
    expect(r.tests!.map((t) => t.id)).toEqual(['1', '2', '3', '4', '5'])
    expect(r.tests![1].checker_message).toMatch(/line 1: expected "5", got "4"/)
    expect(r.tests![3].status_detail).toBe('SIGABRT')
    expect(r.tests!.map((t) => t.points)).toEqual([1, 0, 0, 0, 3])
    expect(r.score).toEqual({ passed: 2, total: 5, points: 4, max_points: 8 })
    // the first test that is not AC decides run_status; time is the maximum (test 3 ran 1 s)
    expect(r.run_status.status).toBe('WA')
    expect(Number(r.run_status.time_used)).toBeGreaterThanOrEqual(0.9)
    expect(r.compile_status).toBe('OK')
    // that test's stdout at run_status.output, and each test's at its own URL
    expect(await (await fetch(r.run_status.output!)).text()).toBe('4\n')
    expect(await (await fetch(r.tests![4].output)).text()).toBe('30\n')
  })

  test('each test starts from what the compile step left, not what an earlier test wrote', { timeout: 60_000 }, async () => {
    const q = await submit({ lang: 'C', source: SUM_C, test_cases: [1, 2, 3].map((n) => ({ input: `${n} ${n}`, expected_output: String(2 * n) })) })
    const done = await completed(q.body.he_id)
    expect(done.result.tests!.map((t) => t.status), JSON.stringify(done.result.tests)).toEqual(['AC', 'AC', 'AC'])
    expect(done.result.run_status.status).toBe('AC')
  })

  test('stop_on_first_failure: the tests after the first failure are SKIPPED', { timeout: 60_000 }, async () => {
    const q = await submit({
      lang: 'PYTHON3',
      source: 'print(sum(map(int, input().split())))',
      stop_on_first_failure: true,
      test_cases: [
        { input: '1 1', expected_output: '2' },
        { input: '1 2', expected_output: '4' },
        { input: '2 2', expected_output: '4' },
      ],
    })
    const done = await completed(q.body.he_id)
    expect(done.result.tests!.map((t) => t.status)).toEqual(['AC', 'WA', 'SKIPPED'])
    expect(done.result.score).toEqual({ passed: 1, total: 3, points: 1, max_points: 3 })
    expect(done.result.run_status.status).toBe('WA')
    expect((await fetch(done.result.tests![2].output)).status).toBe(404)
  })

  test('checkers: float within tolerance, tokens, unordered, exact', { timeout: 90_000 }, async () => {
    const cases: [unknown, string, string, string][] = [
      [{ type: 'float', abs: 1e-3 }, 'print(1/3, 2.0)', '0.3333 2', 'AC'],
      [{ type: 'float', abs: 1e-9, rel: 1e-9 }, 'print(1/3)', '0.3333', 'WA'],
      ['tokens', 'print("a   b\\n\\nc")', 'a b c', 'AC'],
      ['unordered', 'print("b\\na")', 'a\nb\n', 'AC'],
      ['exact', 'print("a")', 'a', 'WA'],
    ]
    const ids = await Promise.all(cases.map(async ([checker, source, expected]) => (await submit({ lang: 'PYTHON3', source, checker, test_cases: [{ input: '', expected_output: expected }] })).body.he_id))
    for (const [i, id] of ids.entries()) {
      const done = await completed(id)
      expect(done.result.tests![0].status, JSON.stringify(cases[i][0])).toBe(cases[i][3])
    }
  })

  test('callbacks: CODE_COMPILED then REQUEST_COMPLETED with the tests and the score', { timeout: 60_000 }, async () => {
    const q = await submit({ lang: 'PYTHON3', source: 'print(input())', callback: `${receiver.url}/graded`, test_cases: [{ input: 'x', expected_output: 'x' }, { input: 'y', expected_output: 'z' }] })
    await waitUntil(() => receiver.received.filter((r) => r.path === '/graded').length === 2, 30_000, 'two callbacks')
    const [compiled, done] = receiver.received.filter((r) => r.path === '/graded').map((r) => JSON.parse(r.body) as V4Reply)
    expect(compiled.request_status.code).toBe('CODE_COMPILED')
    expect(done.request_status.code).toBe('REQUEST_COMPLETED')
    expect(done.he_id).toBe(q.body.he_id)
    expect(done.result.tests!.map((t) => t.status)).toEqual(['AC', 'WA'])
    expect(done.result.score).toEqual({ passed: 1, total: 2, points: 1, max_points: 2 })
  })

  test('a compile error is CE with no tests; the web_link page shows the test table', { timeout: 60_000 }, async () => {
    const ce = await completed((await submit({ lang: 'C', source: 'int main(void){ return 0 }', test_cases: [{ input: '', expected_output: '' }] })).body.he_id)
    expect(ce.result.run_status.status).toBe('CE')
    expect(ce.result.tests).toBeUndefined()
    expect(ce.result.score).toBeUndefined()

    const q = await submit({ lang: 'PYTHON3', source: 'print(input())', test_cases: [{ input: '<b>', expected_output: '<b>' }, { input: 'y', expected_output: 'n' }] })
    const done = await completed(q.body.he_id)
    const codeId = done.result.run_status.output!.split('/output/')[1]
    const html = await (await fetch(`${server.url}/view/${codeId}`)).text()
    expect(html).toContain('Tests: 1 of 2 passed, 1 of 2 points')
    expect(html).toMatch(/<td class="status">AC<\/td>[\s\S]*<td class="status">WA<\/td>/)
  })

  test('100 tests of 1 MB inputs, through a stored problem, compiled once', { timeout: 600_000 }, async () => {
    // each input: 1 MB of "1 " pairs and the test's number; the program prints their sum
    const tests = Array.from({ length: 100 }, (_, i) => ({ input: `${i} ${'1 '.repeat(524_288)}`, expected_output: String(i + 524_288) }))
    expect(Buffer.byteLength(tests[0].input)).toBeGreaterThan(1 << 20)
    const up = await http.post('/v4/partner/code-evaluation/problems/', JSON.stringify({ name: 'big', test_cases: tests }), { 'client-secret': secret, 'content-type': 'application/json' })
    const problem = await json(up)
    expect(up.status, JSON.stringify(problem).slice(0, 300)).toBe(200)
    expect(problem.test_count).toBe(100)
    const q = await submit({ lang: 'C', source: SUM_C.replace('FILE*f=fopen("seen","r"); if(f){ puts("LEFTOVER"); return 0; } f=fopen("seen","w"); fputs("x",f); fclose(f);', ''), problem_id: problem.problem_id })
    expect(q.status, JSON.stringify(q.body)).toBe(200)
    const done = await completed(q.body.he_id, 580_000)
    expect(done.result.score).toEqual({ passed: 100, total: 100, points: 100, max_points: 100 })
  })

  test('while it runs, a poll shows result.tests filling in', { timeout: 60_000 }, async () => {
    const q = await submit({ lang: 'PYTHON3', source: 'import time\ntime.sleep(0.4)\nprint(input())', test_cases: Array.from({ length: 6 }, (_, i) => ({ input: String(i), expected_output: String(i) })) })
    let partial: V4Reply | undefined
    await waitUntil(async () => {
      const r = (await poll(q.body.he_id)) as V4Reply
      if (r.request_status.code !== 'REQUEST_COMPLETED' && (r.result.tests?.length ?? 0) > 0) partial = r
      return partial !== undefined || r.request_status.code === 'REQUEST_COMPLETED'
    }, 30_000, 'tests to fill in')
    expect(partial, 'seen before completion').toBeDefined()
    expect(partial!.request_status.code).toBe('CODE_COMPILED')
    expect(partial!.result.tests!.length).toBeLessThan(6)
    expect(partial!.result.tests!.every((t) => t.status === 'AC')).toBe(true)
    const done = await completed(q.body.he_id)
    expect(done.result.score).toEqual({ passed: 6, total: 6, points: 6, max_points: 6 })
  })

  test('checker programs (testlib\'s protocol): files and argv, AC, WA, PE, partial points, and the checker\'s faults are IE', { timeout: 120_000 }, async () => {
    // a C checker: argv must be input output expected, the files must hold what they say
    const cChecker = `#include <stdio.h>
#include <string.h>
static long num(const char *f){ FILE *p = fopen(f, "r"); long v = -1; if (p) { if (fscanf(p, "%ld", &v) != 1) v = -2; fclose(p); } return v; }
int main(int argc, char **argv){
  if (argc != 4 || strcmp(argv[1], "input") || strcmp(argv[2], "output") || strcmp(argv[3], "expected")) { fprintf(stderr, "bad argv"); return 3; }
  long in = num("input"), out = num("output"), exp = num("expected");
  if (out == exp) return 0;
  if (out == exp + 1000) { fprintf(stderr, "spacing"); return 2; }
  if (out == 2 * exp) { printf("0.25\\n"); fprintf(stderr, "partly (input %ld)", in); return 7; }
  fprintf(stderr, "want %ld got %ld", exp, out); return 1;
}`
    const q = await submit({
      lang: 'PYTHON3',
      source: 'n = int(input())\nprint({1: 1, 2: 1002, 3: 6, 4: 5}.get(n, n))',
      checker: { type: 'program', lang: 'C', source: cChecker },
      test_cases: [
        { input: '1', expected_output: '1' },
        { input: '2', expected_output: '2' },
        { input: '3', expected_output: '3', points: 4 },
        { input: '4', expected_output: '4' },
      ],
    })
    const done = await completed(q.body.he_id, 90_000)
    const t = done.result.tests!
    expect(t.map((x) => [x.status, x.status_detail]), JSON.stringify(t)).toEqual([['AC', 'NA'], ['WA', 'PE'], ['WA', 'PARTIAL'], ['WA', 'NA']])
    expect(t[2].points).toBe(1) // a quarter of 4
    expect(t[2].checker_message).toBe('partly (input 3)')
    expect(t[3].checker_message).toBe('want 4 got 5')
    expect(done.result.score).toEqual({ passed: 1, total: 4, points: 2, max_points: 7 })

    // the checker's own faults are the grader's, never the student's verdict
    const faults: [string, string, RegExp][] = [
      ['exit 3', 'import sys\nsys.stderr.write("cannot judge")\nsys.exit(3)', /checker failed \(exit 3\): cannot judge/],
      ['crash', 'import os\nos.abort()', /checker killed by SIGABRT/],
      ['endless', 'while True: pass', /checker exceeded its time limit/],
      ['bad fraction', 'print("lots")\nimport sys\nsys.exit(7)', /no points fraction/],
      ['odd exit', 'import sys\nsys.exit(42)', /checker exited with 42/],
    ]
    for (const [what, source, message] of faults) {
      const r = await completed((await submit({ lang: 'PYTHON3', source: 'print(1)', checker: { type: 'program', lang: 'PYTHON3', source }, test_cases: [{ input: '', expected_output: '1' }] })).body.he_id, 60_000)
      expect(r.result.tests![0].status, what).toBe('IE')
      expect(r.result.tests![0].checker_message, what).toMatch(message)
      expect(r.result.run_status.status, what).toBe('IE')
    }
    // one that does not compile: every test IE, with the compiler's message
    const nc = await completed((await submit({ lang: 'PYTHON3', source: 'print(1)', checker: { type: 'program', lang: 'C', source: 'int main(void){ return 0 }' }, test_cases: [{ input: '', expected_output: '1' }] })).body.he_id, 60_000)
    expect(nc.result.tests![0].status).toBe('IE')
    expect(nc.result.tests![0].checker_message).toMatch(/checker does not compile/)
  })

  test('a hostile checker program is contained like any program', { timeout: 60_000 }, async () => {
    const hostile = `import os, socket, sys
tried = []
def attempt(name, fn):
    try:
        fn(); tried.append(name + " OK")
    except Exception as e:
        tried.append(name + " " + type(e).__name__)
attempt("read /etc/shadow", lambda: open("/etc/shadow").read())
attempt("write /usr/bin", lambda: open("/usr/bin/x", "w"))
attempt("connect", lambda: socket.create_connection(("127.0.0.1", ${new URL(server.url).port}), 1))
attempt("see the host", lambda: os.listdir("/var/lib/arbiter"))
sys.stderr.write("; ".join(tried))
sys.exit(0 if not any(t.endswith(" OK") for t in tried) else 1)`
    const r = await completed((await submit({ lang: 'PYTHON3', source: 'print(1)', checker: { type: 'program', lang: 'PYTHON3', source: hostile }, test_cases: [{ input: '', expected_output: '1' }] })).body.he_id, 60_000)
    expect(r.result.tests![0].checker_message).toMatch(/read \/etc\/shadow PermissionError; write \/usr\/bin (OSError|PermissionError); connect (OSError|ConnectionRefusedError|TimeoutError); see the host FileNotFoundError/)
    expect(r.result.tests![0].status).toBe('AC')
  })

  test('a checker program in a language that is not offered, or too large, is refused at once', async () => {
    const base = { lang: 'PYTHON3', source: 'print(1)', test_cases: [{ input: '', expected_output: '1' }] }
    for (const checker of [{ type: 'program', lang: 'INTERCAL', source: 'x' }, { type: 'program', lang: 'C', source: 'x'.repeat(600_000) }, { type: 'program', lang: 'C' }]) {
      const r = await submit({ ...base, checker })
      expect(r.status, JSON.stringify(checker).slice(0, 60)).toBeGreaterThanOrEqual(400)
      expect(r.status).toBeLessThan(500)
    }
  })

  test('refused: an empty test set, too many tests, a bad checker, a checker without tests, a test that is not an object', async () => {
    const base = { lang: 'PYTHON3', source: 'print(1)' }
    const bad = [
      { ...base, test_cases: [] },
      { ...base, test_cases: Array.from({ length: 121 }, () => ({ input: '', expected_output: '' })) },
      { ...base, checker: 'close-enough', test_cases: [{ input: '', expected_output: '1' }] },
      { ...base, checker: 'tokens' },
      { ...base, test_cases: ['1'] },
      { ...base, test_cases: [{ input: '' }] },
      { ...base, test_cases: [{ input: 'x'.repeat(2_200_000), expected_output: '' }] },
    ]
    for (const body of bad) {
      const r = await submit(body)
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBeGreaterThanOrEqual(400)
      expect(r.status).toBeLessThan(500)
      expect(r.body.request_status.code).toBe('REQUEST_FAILED')
    }
  })

  test('a request without the new fields is a plain submission, as before', { timeout: 30_000 }, async () => {
    const done = await completed((await submit({ lang: 'PYTHON3', source: 'print(input())', input: 'plain' })).body.he_id)
    expect(done.result).not.toHaveProperty('tests')
    expect(done.result).not.toHaveProperty('score')
    expect(done.result.run_status.status).toBe('AC')
    expect(await (await fetch(done.result.run_status.output!)).text()).toBe('plain\n')
  })
})
