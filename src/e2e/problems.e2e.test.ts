// Problems end to end: both upload forms, every refusal, ownership, deletion with the
// content-addressed files, graded submissions by problem_id, and the CLI. Real server and jail.
import { execFileSync } from 'node:child_process'
import { execa } from 'execa'
import { request } from 'node:http'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { V4Reply } from '../hackerearth/schemas.ts'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const PROBLEMS = '/v4/partner/code-evaluation/problems/'
const SUBMISSIONS = '/v4/partner/code-evaluation/submissions/'
const ROOT = join(import.meta.dirname, '..', '..')
let server: RunningServer
let http: ReturnType<typeof api>
let alice: string
let bob: string
const tmp = mkdtempSync(join(tmpdir(), 'arbiter-problems-e2e-'))

beforeAll(async () => {
  server = await startServer({ configToml: '[grading]\nmax_tests = 20\ntest_max_bytes = 65536\ntotal_max_bytes = 262144' })
  http = api(server.url)
  alice = await server.createClient('alice')
  bob = await server.createClient('bob')
}, 60_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
  rmSync(tmp, { recursive: true, force: true })
})

/** A deflated zip of [name, text] entries (text given on stdin: a bomb's megabytes do not fit in argv). */
const zip = (entries: [string, string][]) =>
  execFileSync('python3', ['-c', `
import io, json, sys, zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as z:
    for name, data in json.load(sys.stdin):
        z.writestr(name, data)
sys.stdout.buffer.write(buf.getvalue())`], { input: JSON.stringify(entries), maxBuffer: 64 << 20 })
const postJson = async (secret: string, body: unknown) => {
  const r = await http.post(PROBLEMS, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' })
  return { status: r.status, body: await json(r) }
}
const postRaw = async (secret: string, body: string) => {
  const r = await http.post(PROBLEMS, body, { 'client-secret': secret, 'content-type': 'application/json' })
  return { status: r.status, body: await json(r) }
}
/**
 * POSTs head, then piece `times` times, then tail to base's problems, chunked (no Content-Length), and
 * stops sending once the server answers: the answer and how many bytes had been sent by then.
 */
const streamUpload = (base: string, secret: string, head: string, piece: Buffer, times: number, tail: string) =>
  new Promise<{ status: number; body: string; sentBytes: number; fullBytes: number }>((resolve, reject) => {
    let sent = head.length
    let answered = false
    const req = request(`${base}${PROBLEMS}`, { method: 'POST', headers: { 'client-secret': secret, 'content-type': 'application/json' } }, (res) => {
      answered = true
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => {
        resolve({ status: res.statusCode!, body, sentBytes: sent, fullBytes: head.length + piece.length * times + tail.length })
        req.destroy()
      })
    })
    req.on('error', (err) => answered || reject(err))
    req.write(head)
    let n = 0
    const more = () => {
      if (answered || req.destroyed) return
      if (n >= times) return req.end(tail)
      n++
      sent += piece.length
      if (req.write(piece)) setImmediate(more)
      else req.once('drain', more)
    }
    more()
  })
/** /health's answer times, every 20 ms while `during` runs; during's result and the times. */
async function healthDuring<T>(base: string, during: () => Promise<T>): Promise<{ result: T; times: number[] }> {
  await fetch(`${base}/health`) // a connection to reuse: the times are the server's, not a first connect's
  const times: number[] = []
  let busy = true
  const probe = (async () => {
    while (busy) {
      const t = performance.now()
      expect((await fetch(`${base}/health`)).status).toBe(200)
      times.push(performance.now() - t)
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  try {
    return { result: await during(), times }
  } finally {
    busy = false
    await probe
  }
}
const postZip = async (secret: string, data: Buffer, fields: Record<string, string> = { name: 'zipped' }) => {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  form.set('tests', new Blob([data]), 'tests.zip')
  const r = await fetch(`${server.url}${PROBLEMS}`, { method: 'POST', headers: { 'client-secret': secret }, body: form })
  return { status: r.status, body: await json(r) }
}
const blobs = () => {
  const dir = join(server.dataDir, 'problems', 'blobs')
  return existsSync(dir) ? readdirSync(dir).flatMap((d) => readdirSync(join(dir, d))).filter((f) => !f.endsWith('.tmp')) : []
}
const graded = async (secret: string, body: Record<string, unknown>) => {
  const q = await json(await http.post(SUBMISSIONS, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' }))
  if (!q.he_id) return q
  let done: V4Reply | undefined
  await waitUntil(async () => (done = (await json(await http.get(`${SUBMISSIONS}${q.he_id}/`, { 'client-secret': secret }))) as V4Reply).request_status.code === 'REQUEST_COMPLETED', 60_000, 'completion')
  return done!
}

describe('problems', () => {
  let jsonId: string
  test('JSON upload: stored once, listed, read back without its data', async () => {
    const r = await postJson(alice, {
      name: 'sum',
      checker: 'tokens',
      time_limit: 2,
      test_cases: [{ input: '1 2', expected_output: '3', points: 2 }, { input: '5 5', expected_output: '10' }, { input: '1 2', expected_output: '3' }],
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toMatchObject({ name: 'sum', test_count: 3, checker: 'tokens', time_limit: 2 })
    jsonId = r.body.problem_id
    expect(jsonId).toMatch(/^p_[0-9a-f]{24}$/)
    // equal files are stored once: "1 2" and "3" twice, "5 5" and "10" once
    expect(blobs()).toHaveLength(4)
    const one = await json(await http.get(`${PROBLEMS}${jsonId}/`, { 'client-secret': alice }))
    expect(one.tests).toEqual([
      { id: '1', input_bytes: 3, expected_output_bytes: 1, points: 2, time_limit: null },
      { id: '2', input_bytes: 3, expected_output_bytes: 2, points: 1, time_limit: null },
      { id: '3', input_bytes: 3, expected_output_bytes: 1, points: 1, time_limit: null },
    ])
    expect(JSON.stringify(one)).not.toContain('"input"')
    const list = await json(await http.get(PROBLEMS, { 'client-secret': alice }))
    expect(list.problems.map((p: { problem_id: string }) => p.problem_id)).toContain(jsonId)
  })

  test('multipart upload with a zip, in natural order; graded by problem_id, the problem\'s checker and points', { timeout: 90_000 }, async () => {
    const r = await postZip(alice, zip([['tests/10.in', '4 4'], ['tests/10.out', '8'], ['tests/2.in', '1 1'], ['tests/2.out', '2']]), { name: 'zipped', checker: '{"type":"float","abs":0.001}' })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toMatchObject({ test_count: 2, checker: { type: 'float', abs: 0.001 } })
    const done = await graded(alice, { lang: 'PYTHON3', source: 'print(sum(map(int, input().split())) + 0.0001)', problem_id: r.body.problem_id })
    expect(done.result.tests!.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([['2', 'AC'], ['10', 'AC']])
    const byJson = await graded(alice, { lang: 'PYTHON3', source: 'a, b = map(int, input().split())\nprint(a + b if a != 5 else 0)', problem_id: jsonId })
    expect(byJson.result.score).toEqual({ passed: 2, total: 3, points: 3, max_points: 4 })
  })

  test('refusals, each with a clear v4 error and nothing stored', async () => {
    const before = blobs().length
    const cases: [string, () => Promise<{ status: number; body: any }>, number, RegExp][] = [
      ['no name', () => postJson(alice, { test_cases: [{ input: '', expected_output: '' }] }), 400, /name is needed/],
      ['no tests', () => postJson(alice, { name: 'x', test_cases: [] }), 400, /test_cases/],
      ['too many tests', () => postJson(alice, { name: 'x', test_cases: Array.from({ length: 21 }, () => ({ input: 'a', expected_output: 'b' })) }), 413, /more than 20 tests/],
      ['a file too large', () => postJson(alice, { name: 'x', test_cases: [{ input: 'q'.repeat(70_000), expected_output: '' }] }), 413, /larger than 65536/],
      ['a bad checker', () => postJson(alice, { name: 'x', checker: 'roughly', test_cases: [{ input: '', expected_output: '' }] }), 400, /checker/],
      ['a zip with ..', () => postZip(alice, zip([['../1.in', 'a'], ['1.out', 'b']])), 400, /\.\./],
      ['an unpaired file', () => postZip(alice, zip([['1.in', 'new input'], ['1.out', 'b'], ['2.in', 'c']])), 400, /2.in has no 2.out/],
      ['a zip bomb', () => postZip(alice, zip([['1.in', '\0'.repeat(1 << 20)], ['1.out', 'b']])), 400, /larger than/],
      ['not a zip', () => postZip(alice, Buffer.from('hello')), 400, /does not open/],
      ['a name twice in the zip', () => postZip(alice, zip([['1.in', 'a'], ['1.out', 'b'], ['1.out', 'forged']])), 400, /1.out: appears twice/],
      ['a file that is no test', () => postZip(alice, zip([['1.in', 'a'], ['1.out', 'b'], ['notes.txt', 'c']])), 400, /notes.txt is not a test file/],
      ['two tests of one name (two layouts)', () => postZip(alice, zip([['1.in', 'a'], ['1.out', 'b'], ['1', 'c'], ['1.a', 'd']])), 400, /two tests are named 1: 1.in \+ 1.out and 1 \+ 1.a/],
      ['test_cases twice (JSON.parse keeps the last)', () => postRaw(alice, '{"name":"x","test_cases":[{"input":"","expected_output":""}],"test\\u005fcases":[]}'), 400, /test_cases is given twice/],
      ['over the count under an escaped key', () => postRaw(alice, `{"name":"x","test\\u005fcases":[${Array(21).fill('{"input":"","expected_output":""}').join(',')}]}`), 413, /more than 20 tests/],
      ['no secret', async () => { const r = await http.post(PROBLEMS, '{}', { 'content-type': 'application/json' }); return { status: r.status, body: await json(r) } }, 401, /Client does not exist/],
    ]
    for (const [what, call, status, message] of cases) {
      const r = await call()
      expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(status)
      expect(r.body.message, what).toMatch(message)
      expect(r.body.request_status?.code, what).toBe('REQUEST_FAILED')
    }
    // the unpaired upload wrote no file for its paired test either
    expect(blobs().length).toBe(before)
  })

  test('an over-count JSON upload is refused while it streams in, and /health stays quick during a flood of them', async () => {
    // 600,000 empty tests (~20 MB), sent chunked (no Content-Length): refused at the 21st test, long
    // before the body ends; the request is answered while the client is still sending
    const chunk = Buffer.from(Array(2_000).fill('{"input":"","expected_output":""}').join(',') + ',')
    const upload = () =>
      new Promise<{ status: number; body: string; sentChunks: number }>((resolve, reject) => {
        let sent = 0
        const req = request(`${server.url}${PROBLEMS}`, { method: 'POST', headers: { 'client-secret': alice, 'content-type': 'application/json' } }, (res) => {
          let body = ''
          res.on('data', (d) => (body += d))
          res.on('end', () => resolve({ status: res.statusCode!, body, sentChunks: sent }))
        })
        req.on('error', reject)
        req.write('{"name":"flood","test_cases":[')
        const more = () => {
          if (req.destroyed || sent >= 300) return req.end('{}]}')
          sent++
          if (req.write(chunk)) setImmediate(more)
          else req.once('drain', more)
        }
        more()
      })
    const healthTimes: number[] = []
    let flooding = true
    const probe = (async () => {
      while (flooding) {
        const t = performance.now()
        expect((await http.get('/health')).status).toBe(200)
        healthTimes.push(performance.now() - t)
        await new Promise((r) => setTimeout(r, 20))
      }
    })()
    const replies = await Promise.all(Array.from({ length: 6 }, upload))
    flooding = false
    await probe
    for (const r of replies) {
      expect(r.status, r.body).toBe(413)
      expect(JSON.parse(r.body).message).toMatch(/more than 20 tests/)
      expect(r.sentChunks).toBeLessThan(300) // answered before the client had sent its whole body
    }
    expect(healthTimes.length).toBeGreaterThan(0)
    // before the streaming count each such request held the event loop 2.8-6.6 s
    expect(Math.max(...healthTimes)).toBeLessThan(1000)
  })

  test('over-size JSON uploads are refused while they stream in, at the cap they break, and /health stays quick', { timeout: 180_000 }, async () => {
    // a server with the default caps (100 tests, 2 MiB a file, 128 MiB in all): a JSON body may be
    // ~130 MiB, so every body below would have been read whole and parsed before being refused (or
    // stored: the junk field and the whitespace are valid JSON around a valid problem)
    const big = await startServer()
    try {
      const secret = await big.createClient('carol')
      const MiB = 1 << 20
      const fill = (text: string) => Buffer.from(text.repeat(Math.ceil(65536 / text.length)))
      const one = '{"input":"1","expected_output":"1"}'
      const uploads: [what: string, head: string, piece: Buffer, times: number, tail: string, message: RegExp][] = [
        ['a 100 MiB input', '{"name":"big","test_cases":[{"input":"', fill('a'), 1600, '","expected_output":""}]}', /test 1: input is larger than 2097152 bytes/],
        ['a 100 MiB expected output of escapes', `{"name":"big","test_cases":[${one},{"input":"","expected_output":"`, fill('\\n'), 1600, '"}]}', /test 2: expected_output is larger than 2097152 bytes/],
        ['100 MiB in a field that is no test', `{"name":"junk","test_cases":[${one}],"description":"`, fill('d'), 1600, '"}', /besides the tests' inputs and expected outputs/],
        ['100 MiB of whitespace', `{"name":"spaces","test_cases":[${one}]`, fill(' '), 1600, '}', /besides the tests' inputs and expected outputs/],
        ['20 MiB of small values', `{"name":"values","test_cases":[${one}],"pad":[`, fill('0,'), 320, '0]}', /more than \d+ JSON values/],
        ['20 MiB of empty tests under an escaped key', '{"name":"flood","test\\u005fcases":[', fill('{"input":"","expected_output":""},'), 320, '{}]}', /more than 100 tests/],
      ]
      const { result: replies, times } = await healthDuring(big.url, () => Promise.all(uploads.map(([, head, piece, n, tail]) => streamUpload(big.url, secret, head, piece, n, tail))))
      uploads.forEach(([what, , , , , message], k) => {
        const r = replies[k]
        expect(r.status, `${what}: ${r.body}`).toBe(413)
        expect(JSON.parse(r.body).message, what).toMatch(message)
        // answered a few MiB in (the client's socket buffers hold some more), long before the end
        expect(r.sentBytes, what).toBeLessThan(Math.min(24 * MiB, r.fullBytes / 2))
      })
      expect(times.length).toBeGreaterThan(0)
      expect(Math.max(...times)).toBeLessThan(1000)
      expect((await json(await api(big.url).get(PROBLEMS, { 'client-secret': secret }))).problems).toEqual([])
    } finally {
      await big.stop()
      big.cleanup()
    }
  })

  test('a graded submission with more test cases than allowed is refused by their count, before each is validated', async () => {
    // the 21st test case of 20 allowed is refused as such, even though an earlier one is invalid: the
    // count comes first (a 2 MiB body holds ~60,000 test cases, each validated before, one by one)
    const tests = Array.from({ length: 21 }, (_, i) => ({ input: i === 0 ? 5 : '', expected_output: '' }))
    const r = await http.post(SUBMISSIONS, JSON.stringify({ lang: 'PYTHON3', source: 'print(1)', test_cases: tests }), { 'client-secret': alice, 'content-type': 'application/json' })
    const body = await json(r)
    expect(r.status, JSON.stringify(body)).toBe(413)
    expect(body.message).toMatch(/more than 20 test cases/)
    const many = Array.from({ length: 60_000 }, () => ({ input: '', expected_output: '' }))
    const t = performance.now()
    const flood = await http.post(SUBMISSIONS, JSON.stringify({ lang: 'PYTHON3', source: 'print(1)', test_cases: many }), { 'client-secret': alice, 'content-type': 'application/json' })
    expect(flood.status).toBe(413)
    expect((await json(flood)).message).toMatch(/more than 20 test cases/)
    expect(performance.now() - t).toBeLessThan(2000)
  })

  test('a test whose name needs escaping has a working output URL', async () => {
    const r = await postZip(alice, zip([['a#1 ?.in', '2 3'], ['a#1 ?.out', '5']]), { name: 'odd names' })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const done: any = await graded(alice, { lang: 'PYTHON3', source: 'a,b=map(int,input().split());print(a+b)', problem_id: r.body.problem_id })
    expect(done.result.tests[0].id).toBe('a#1 ?')
    const url: string = done.result.tests[0].output
    expect(url.endsWith('/tests/a%231%20%3F')).toBe(true)
    const out = await fetch(url)
    expect(out.status).toBe(200)
    expect((await out.text()).trim()).toBe('5')
  })

  test('a problem is its client\'s: another client gets 404 for it, cannot grade against it or delete it', async () => {
    expect((await http.get(`${PROBLEMS}${jsonId}/`, { 'client-secret': bob })).status).toBe(404)
    expect((await json(await http.get(PROBLEMS, { 'client-secret': bob }))).problems).toEqual([])
    expect((await fetch(`${server.url}${PROBLEMS}${jsonId}/`, { method: 'DELETE', headers: { 'client-secret': bob } })).status).toBe(404)
    const r = await http.post(SUBMISSIONS, JSON.stringify({ lang: 'PYTHON3', source: 'print(1)', problem_id: jsonId }), { 'client-secret': bob, 'content-type': 'application/json' })
    expect(r.status).toBe(404)
  })

  test('deletion removes the files no other problem uses, and keeps the shared ones', async () => {
    const other = await postJson(alice, { name: 'shares', test_cases: [{ input: '1 2', expected_output: '3' }] })
    const before = new Set(blobs())
    const r = await fetch(`${server.url}${PROBLEMS}${jsonId}/`, { method: 'DELETE', headers: { 'client-secret': alice } })
    expect(await r.json()).toEqual({ problem_id: jsonId, deleted: true })
    const after = new Set(blobs())
    expect(before.size - after.size).toBe(2) // "5 5" and "10"; "1 2" and "3" stay for the other problem
    expect((await http.get(`${PROBLEMS}${jsonId}/`, { 'client-secret': alice })).status).toBe(404)
    expect((await http.get(`${PROBLEMS}${other.body.problem_id}/`, { 'client-secret': alice })).status).toBe(200)
  })

  test('cli problems create / list / delete, and cli grade --problem', { timeout: 120_000 }, async () => {
    const dir = join(tmp, 'tests')
    mkdirSync(dir)
    writeFileSync(join(dir, '1.in'), '2 3\n')
    writeFileSync(join(dir, '1.out'), '5\n')
    const cli = (...args: string[]) => execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: { ARBITER_DATA: server.dataDir }, reject: false })
    const created = await cli('problems', 'create', '--client', 'alice', '--name', 'from cli', '--tests', dir, '--checker', 'lines', '--json')
    expect(created.exitCode, created.stderr).toBe(0)
    const id = JSON.parse(created.stdout).problem_id
    const listed = JSON.parse((await cli('problems', 'list', '--client', 'alice')).stdout)
    expect(listed.map((p: { problem_id: string }) => p.problem_id)).toContain(id)
    writeFileSync(join(tmp, 'sum.py'), 'print(sum(map(int, input().split())))\n')
    const g = await cli('grade', '--lang', 'PYTHON3', '--source', join(tmp, 'sum.py'), '--problem', id)
    expect(g.exitCode, g.stderr).toBe(0)
    expect(g.stdout).toMatch(/score: 1 of 1 tests passed \(AC\)/)
    const deleted = await cli('problems', 'delete', id)
    expect(JSON.parse(deleted.stdout)).toEqual({ problem_id: id, deleted: true })
    expect((await http.get(`${PROBLEMS}${id}/`, { 'client-secret': alice })).status).toBe(404)
  })
})
