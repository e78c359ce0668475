import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.ts'
import { addClient, createTestDeps, fakeProvision, json, provisionedToolchains, testConfig, testLanguages, thrownAppError, until, type TestDeps } from '../testing/evaluation.ts'
import { acceptSubmission } from '../evaluation/submissions.ts'
import { loadLanguages } from '../languages.ts'
import { makeZip } from '../testing/zips.ts'

import type { OutboxRow } from '../jobs/outbox.ts'
import { createFakePool, okRun } from '../testing/fake-pool.ts'
import { clients, submissions } from '../storage/schema.ts'
import { decode64 } from './replies.ts'
import { ISOLATE_TEXT, LICENSE_TEXT } from './routes.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

const put: OutboxRow[] = []
function setup(opts: Parameters<typeof createTestDeps>[0] = {}) {
  put.length = 0
  deps = createTestDeps({ senders: { callback: async (row) => void put.push(row) }, ...opts })
  return { app: createApp(deps), secret: addClient(deps) }
}

type App = ReturnType<typeof createApp>
const post = (app: App, path: string, secret: string, body: unknown) =>
  app.request(`/judge0${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Auth-Token': secret }, body: JSON.stringify(body) })
const get = (app: App, path: string, secret: string) => app.request(`/judge0${path}`, { headers: { 'X-Auth-Token': secret } })
const done = async (app: App, secret: string, token: string, query = '') => {
  let body: any
  for (let i = 0; i < 200; i++) {
    body = await json(await get(app, `/submissions/${token}?fields=*${query}`, secret))
    if (body.status.id > 2) return body
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error(`${token} never finished`)
}

describe('Judge0 auth', () => {
  test('X-Auth-Token as header or query; missing or unknown: 401 with an empty body', async () => {
    const { app, secret } = setup()
    for (const r of [await app.request('/judge0/languages'), await get(app, '/languages', 'nope')]) {
      expect(r.status).toBe(401)
      expect(await r.text()).toBe('')
    }
    expect((await app.request(`/judge0/statuses?X-Auth-Token=${secret}`)).status).toBe(200)
    expect((await post(app, '/authenticate', secret, {})).status).toBe(200)
    expect((await app.request(`/judge0/authenticate?X-Auth-Token=${secret}`, { method: 'POST' })).status).toBe(200)
    const authz = await post(app, '/authorize', secret, {})
    expect(authz.status).toBe(403)
    expect((await app.request('/judge0/authorize', { method: 'POST' })).status).toBe(401)
  })

  test("another client's token is 404, as is a HackerEarth he_id", async () => {
    const { app, secret } = setup()
    const other = addClient(deps, { name: 'other' })
    const { token } = await json(await post(app, '/submissions', secret, { source_code: 'print(1)', language_id: 71 }))
    expect((await get(app, `/submissions/${token}`, other)).status).toBe(404)
    expect(await json(await get(app, `/submissions/${token}`, other))).toEqual({ status: 404, error: 'Not Found' })
    const v4 = await json(await app.request('/v4/partner/code-evaluation/submissions/', { method: 'POST', headers: { 'client-secret': secret, 'content-type': 'application/json' }, body: JSON.stringify({ lang: 'PYTHON3', source: 'x' }) }))
    expect((await get(app, `/submissions/${v4.he_id}`, secret)).status).toBe(404)
    const batch = await json(await get(app, `/submissions/batch?tokens=${token},${v4.he_id}`, other))
    expect(batch).toEqual({ submissions: [null, null] })
  })
})

describe('Judge0 submissions', () => {
  test('201 {token}, then In Queue → Accepted, default fields in Judge0 order, fields=* exactly 35', async () => {
    const { app, secret } = setup()
    deps.pool.hold()
    const r = await post(app, '/submissions/', secret, { source_code: 'print(input())', language_id: 71, stdin: 'hi\n', expected_output: 'hi' })
    expect(r.status).toBe(201)
    const { token, ...rest } = await json(r)
    expect(rest).toEqual({})
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const queued = await json(await get(app, `/submissions/${token}`, secret))
    expect(Object.keys(queued)).toEqual(['stdout', 'time', 'memory', 'stderr', 'token', 'compile_output', 'message', 'status'])
    expect(queued.status.id).toBeLessThanOrEqual(2)
    deps.pool.release()
    const body = await done(app, secret, token)
    expect(Object.keys(body)).toHaveLength(35)
    expect(body).toMatchObject({
      stdout: 'hi\n', stdin: 'hi\n', expected_output: 'hi', language_id: 71, status_id: 3, status: { id: 3, description: 'Accepted' },
      time: '0.01', wall_time: '0.02', memory: 3072, exit_code: 0, exit_signal: null, message: null, compile_output: null,
      cpu_time_limit: '5.0', cpu_extra_time: '1.0', wall_time_limit: '10.0', memory_limit: 128000, stack_limit: 64000,
      max_processes_and_or_threads: 60, max_file_size: 1024, number_of_runs: 1, enable_network: false, redirect_stderr_to_stdout: false,
      language: { id: 71, name: 'Python (3.13)' },
    })
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(body.finished_at).toMatch(/\.\d{3}Z$/)
  })

  test('wait=true answers the finished submission; Wrong Answer when expected_output differs', async () => {
    const { app, secret } = setup()
    const r = await post(app, '/submissions?wait=true', secret, { source_code: 'x', language_id: 71, stdin: 'a\n', expected_output: 'b' })
    expect(r.status).toBe(201)
    const body = await json(r)
    expect(Object.keys(body)).toEqual(['stdout', 'time', 'memory', 'stderr', 'token', 'compile_output', 'message', 'status'])
    expect(body.status).toEqual({ id: 4, description: 'Wrong Answer' })
  })

  // wait=true builds its reply from the completed row it was handed, not from a second read: what a
  // later GET of the token reads from the database is the same bytes, whatever the fields and encoding
  test.each([
    ['', { source_code: 'x', language_id: 71, stdin: 'a\n', expected_output: 'b' }],
    ['&fields=*', { source_code: 'print(input())', language_id: 71, stdin: 'h\u00e9\n', expected_output: 'h\u00e9' }],
    ['&fields=*&base64_encoded=true', { source_code: Buffer.from('print(1)').toString('base64'), language_id: 71, stdin: Buffer.from('\0\u00ff').toString('base64') }],
    ['&fields=*', { source_code: 'COMPILE_ERROR', language_id: 1007 }],
    ['&fields=stdout,status,time,memory,number_of_runs', { source_code: 'x', language_id: 71, number_of_runs: 3 }],
  ])('wait=true%s: the reply is what a GET of its token then reads', async (query, body) => {
    const { app, secret } = setup()
    const r = await post(app, `/submissions?wait=true${query}`, secret, body)
    expect(r.status).toBe(201)
    const text = await r.text()
    const [row] = deps.db.select({ token: submissions.publicId, state: submissions.state }).from(submissions).all()
    expect(row!.state).toBe('completed')
    // no fields given: wait=true's defaults, which a GET shows by default too
    const stored = await get(app, `/submissions/${row!.token}?${query.slice(1)}`, secret)
    expect(stored.status).toBe(200)
    expect(text).toBe(await stored.text())
  })

  test('base64_encoded=true: request text decoded, reply text in encode64 form', async () => {
    const { app, secret } = setup()
    const b = (s: string) => Buffer.from(s).toString('base64')
    const body = await json(await post(app, '/submissions?wait=true&base64_encoded=true&fields=stdout,stdin,source_code,status', secret, { source_code: b('print(1)'), stdin: b('y'.repeat(70)), language_id: 71 }))
    expect(body.stdout).toBe(Buffer.from('y'.repeat(70)).toString('base64').replace(/.{1,60}/g, '$&\n'))
    expect(body.stdout.split('\n')[0]).toHaveLength(60)
    expect(decode64(body.source_code).toString()).toBe('print(1)')
    expect(Object.keys(body)).toEqual(['source_code', 'stdin', 'stdout', 'status'])
  })

  test('invalid fields: 400 naming them', async () => {
    const { app, secret } = setup()
    const r = await get(app, '/submissions/whatever?fields=stdout,nope', secret)
    expect(r.status).toBe(400)
    expect(await json(r)).toEqual({ error: 'invalid fields: [nope]' })
  })

  test("422 with Judge0's {field: [messages]}", async () => {
    const { app, secret } = setup()
    const r = await post(app, '/submissions', secret, { source_code: '', language_id: 89, cpu_time_limit: 100, enable_network: true })
    expect(r.status).toBe(422)
    expect(await json(r)).toEqual({
      source_code: ["can't be blank"],
      cpu_time_limit: ['must be less than or equal to 5.0'],
      language_id: ["language with id 89 doesn't exist"],
      enable_network: ['enabling network is not allowed'],
    })
  })

  test('compile errors are status 6 with the compiler\'s text; run failures map to Judge0 statuses', async () => {
    const { app, secret } = setup()
    const ce = await json(await post(app, '/submissions?wait=true&fields=*', secret, { source_code: 'COMPILE_ERROR', language_id: 1007 }))
    expect(ce).toMatchObject({ status: { id: 6, description: 'Compilation Error' }, time: null, memory: null, stdout: null, exit_code: null })
    expect(ce.compile_output).toContain("error: expected ';'")
  })

  test('options and arguments reach the job as argv items; files from the zip; limits as the job\'s', async () => {
    const { app, secret } = setup()
    await post(app, '/submissions?wait=true', secret, { source_code: 'int main(){}', language_id: 1007, compiler_options: '-DX="a b"', command_line_arguments: "1 '2 3' ;id", cpu_time_limit: 2, wall_time_limit: 4, max_processes_and_or_threads: 10, max_file_size: 64, redirect_stderr_to_stdout: true })
    const job = deps.pool.jobs[0]!
    expect(job.compileArgv).toEqual(['cc', '-DX=a b', 'main'])
    expect(job.runArgv).toEqual(['./main', '1', '2 3', ';id'])
    expect(job).toMatchObject({ timeLimitSec: 2, wallTimeSec: 4, processes: 10, outputBytes: 65536, redirectStderrToStdout: true, memoryLimitKb: 128000 })
  })

  test('cpu_extra_time, stack_limit and number_of_runs reach the job as extra CPU time, the stack limit and a repeat count', async () => {
    const { app, secret } = setup()
    await post(app, '/submissions?wait=true', secret, { source_code: 'x', language_id: 71, cpu_time_limit: 1, cpu_extra_time: 0.5, stack_limit: 8000, number_of_runs: 3 })
    expect(deps.pool.jobs[0]).toMatchObject({ timeLimitSec: 1, cpuExtraSec: 0.5, stackKb: 8000, repeat: 3 })
    // Judge0's defaults: 1 s extra, a 64000 KB stack, one run
    await post(app, '/submissions?wait=true', secret, { source_code: 'x', language_id: 71 })
    expect(deps.pool.jobs[1]).toMatchObject({ cpuExtraSec: 1, stackKb: 64000 })
    expect(deps.pool.jobs[1]!.repeat).toBeUndefined()
    // isolate's stack limit 0 is none: the stack may take all of memory_limit
    await post(app, '/submissions?wait=true', secret, { source_code: 'x', language_id: 71, stack_limit: 0, cpu_extra_time: 0, memory_limit: 256000 })
    expect(deps.pool.jobs[2]).toMatchObject({ stackKb: 256000 })
    expect(deps.pool.jobs[2]!.cpuExtraSec).toBeUndefined()
  })

  test('past Judge0\'s maxima: 422 in its words (number_of_runs 20, stack_limit 128000, cpu_extra_time 5)', async () => {
    const { app, secret } = setup()
    const r = await post(app, '/submissions', secret, { source_code: 'x', language_id: 71, number_of_runs: 21, cpu_extra_time: 5.5, stack_limit: 128001 })
    expect(r.status).toBe(422)
    expect(await json(r)).toEqual({
      number_of_runs: ['must be less than or equal to 20'],
      cpu_extra_time: ['must be less than or equal to 5.0'],
      stack_limit: ['must be less than or equal to 128000'],
    })
    expect(deps.pool.jobs).toHaveLength(0)
    const ok = await post(app, '/submissions', secret, { source_code: 'x', language_id: 71, number_of_runs: 20, cpu_extra_time: 5, stack_limit: 128000 })
    expect(ok.status).toBe(201)
  })

  test('number_of_runs: time and memory are the mean of the runs (memory truncated, as Judge0\'s integer column); wall_time and output the last run\'s', async () => {
    const figures = [
      { cpuSec: 0.01, wallSec: 0.05, memoryKb: 3000 },
      { cpuSec: 0.02, wallSec: 0.06, memoryKb: 3001 },
      { cpuSec: 0.04, wallSec: 0.07, memoryKb: 3001 },
    ]
    const { app, secret } = setup({ pool: createFakePool({ behave: (job) => ({ compile: { ok: true, message: '' }, run: okRun({ ...figures[2], stdout: `ran ${job.repeat}` }), repeats: figures }) }) })
    const body = await json(await post(app, '/submissions?wait=true&fields=time,memory,wall_time,stdout,number_of_runs,status', secret, { source_code: 'x', language_id: 71, number_of_runs: 3 }))
    expect(body).toEqual({ stdout: 'ran 3', time: '0.023333', memory: 3000, number_of_runs: 3, wall_time: '0.07', status: { id: 3, description: 'Accepted' } })
  })

  test('wait=true is held at most judge0.wait_max_sec: then 201 with the submission as it stands, its token and status whatever the fields; it still finishes', async () => {
    const { app, secret } = setup({ config: testConfig({ judge0: { wait_max_sec: 0.3 } }) })
    deps.pool.hold()
    const started = Date.now()
    const r = await post(app, '/submissions?wait=true&fields=stdout', secret, { source_code: 'x', language_id: 71, stdin: 'late\n' })
    const held = Date.now() - started
    expect(r.status).toBe(201)
    expect(held).toBeGreaterThanOrEqual(290)
    expect(held).toBeLessThan(3000)
    const body = await json(r)
    expect(Object.keys(body)).toEqual(['stdout', 'token', 'status'])
    expect(body.stdout).toBeNull()
    expect([1, 2]).toContain(body.status.id)
    deps.pool.release()
    expect(await done(app, secret, body.token)).toMatchObject({ status: { id: 3 }, stdout: 'late\n' })
    // done within the cap: only the fields asked for
    const quick = await json(await post(app, '/submissions?wait=true&fields=stdout', secret, { source_code: 'x', language_id: 71, stdin: 'soon\n' }))
    expect(quick).toEqual({ stdout: 'soon\n' })
  })

  test('callback_url gets a PUT of the default fields in Base64 through the outbox', async () => {
    const { app, secret } = setup()
    const { token } = await json(await post(app, '/submissions', secret, { source_code: 'x', language_id: 71, stdin: 'called\n', callback_url: 'http://127.0.0.1:9/cb' }))
    await until(() => put.length === 1)
    expect(put[0]).toMatchObject({ kind: 'callback', method: 'PUT', target: 'http://127.0.0.1:9/cb', contentType: 'application/json' })
    const body = JSON.parse(put[0]!.body)
    expect(Object.keys(body)).toEqual(['stdout', 'time', 'memory', 'stderr', 'token', 'compile_output', 'message', 'status'])
    expect(body).toMatchObject({ token, stdout: 'Y2FsbGVkCg==\n', status: { id: 3, description: 'Accepted' } })
  })
})

describe('Judge0 quota', () => {
  test('a client past its quota gets 429 with an error, nothing stored', async () => {
    deps = createTestDeps({ senders: { callback: async () => {} } })
    const app = createApp(deps)
    const secret = addClient(deps, { name: 'small', quota: 1 })
    expect((await post(app, '/submissions', secret, { source_code: 'x', language_id: 71 })).status).toBe(201)
    const r = await post(app, '/submissions', secret, { source_code: 'x', language_id: 71 })
    expect(r.status).toBe(429)
    expect(await json(r)).toEqual({ error: 'API usage quota exceeded' })
  })
})

describe('Judge0 queued cap', () => {
  test('too many of the client\'s submissions waiting: 429 with an error and Retry-After, nothing stored', async () => {
    deps = createTestDeps({ senders: { callback: async () => {} }, start: false, config: testConfig({ evaluation: { max_queued_per_client: 1 } }) })
    const app = createApp(deps)
    const secret = addClient(deps)
    expect((await post(app, '/submissions', secret, { source_code: 'x', language_id: 71 })).status).toBe(201)
    const r = await post(app, '/submissions', secret, { source_code: 'x', language_id: 71 })
    expect(r.status).toBe(429)
    expect(r.headers.get('retry-after')).toBe('5')
    expect((await json(r)).error).toMatch(/already waiting to run/)
  })

  test('a batch that fills the queue part-way: tokens for what was stored, an error for the rest, Retry-After', async () => {
    deps = createTestDeps({ senders: { callback: async () => {} }, start: false, config: testConfig({ evaluation: { max_queued_per_client: 2 } }) })
    const app = createApp(deps)
    const secret = addClient(deps)
    const item = { source_code: 'x', language_id: 71 }
    const r = await post(app, '/submissions/batch', secret, { submissions: [item, item, item] })
    expect(r.status).toBe(201)
    expect(r.headers.get('retry-after')).toBe('5')
    const body = await json(r)
    expect(body[0].token).toBeTruthy()
    expect(body[1].token).toBeTruthy()
    expect(body[2].error).toMatch(/already waiting to run/)
  })
})

describe('Judge0 batch', () => {
  test('create: a token or the errors per item; 400 for none or more than 20', async () => {
    const { app, secret } = setup()
    const r = await post(app, '/submissions/batch', secret, { submissions: [{ source_code: 'a', language_id: 71 }, { source_code: 'b', language_id: 123456789 }, { language_id: 71, source_code: '' }] })
    expect(r.status).toBe(201)
    const body = await json(r)
    expect(body[0]).toHaveProperty('token')
    expect(body.slice(1)).toEqual([{ language_id: ["language with id 123456789 doesn't exist"] }, { source_code: ["can't be blank"] }])
    const none = await post(app, '/submissions/batch', secret, { submissions: [] })
    expect([none.status, await json(none)]).toEqual([400, { error: 'there should be at least one submission in a batch' }])
    const many = await post(app, '/submissions/batch', secret, { submissions: Array.from({ length: 21 }, () => ({ source_code: 'a', language_id: 71 })) })
    expect([many.status, await json(many)]).toEqual([400, { error: 'number of submissions in a batch should be less than or equal to 20' }])
    const allBad = await post(app, '/submissions/batch', secret, { submissions: [{ language_id: 71 }] })
    expect(allBad.status).toBe(422)
    const tokens = [body[0].token, '00000000-0000-4000-8000-000000000000']
    await done(app, secret, body[0].token)
    const shown = await json(await get(app, `/submissions/batch?tokens=${tokens.join(',')}&fields=token,status_id`, secret))
    expect(shown).toEqual({ submissions: [{ status_id: 3, token: body[0].token }, null] })
  })
})

describe('Judge0 bytes stay bytes (base64_encoded=true)', () => {
  const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64')

  test('expected_output is compared on bytes: 41 FE 0A against 41 FF 0A is Wrong Answer, the same bytes Accepted', async () => {
    const { app, secret } = setup()
    // the fake pool's program prints its stdin
    const wrong = await json(await post(app, '/submissions?base64_encoded=true&wait=true&fields=status_id', secret, { source_code: b64([0x70]), language_id: 71, stdin: b64([0x41, 0xfe, 0x0a]), expected_output: b64([0x41, 0xff, 0x0a]) }))
    expect(wrong).toEqual({ status_id: 4 })
    const right = await json(await post(app, '/submissions?base64_encoded=true&wait=true&fields=status_id', secret, { source_code: b64([0x70]), language_id: 71, stdin: b64([0x41, 0xfe, 0x00, 0x0a]), expected_output: b64([0x41, 0xfe, 0x00, 0x0a, 0x20, 0x0a]) }))
    // Judge0's strip still applies, bytewise: trailing blanks and blank lines ignored
    expect(right).toEqual({ status_id: 3 })
  })

  test('source, stdin and expected_output reach the core as the bytes sent and come back as them; plain replies of them are Judge0\'s 400', async () => {
    const { app, secret } = setup()
    const sent = { source_code: [0x23, 0xff, 0xfe, 0x00, 0xed, 0xa0, 0x80, 0x0a], stdin: [0x41, 0xff, 0xfe, 0x0a], expected_output: [0x41, 0xff, 0xfe, 0x0a] }
    const r = await post(app, '/submissions?base64_encoded=true', secret, { language_id: 71, ...Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, b64(v)])) })
    const { token } = await json(r)
    const body = await done(app, secret, token, '&base64_encoded=true')
    const job = deps.pool.jobs.at(-1)!
    expect(job.inputEncoding).toBe('latin1')
    expect([...Buffer.from(job.source, 'latin1')]).toEqual(sent.source_code)
    expect([...Buffer.from(job.input, 'latin1')]).toEqual(sent.stdin)
    for (const k of ['source_code', 'stdin', 'expected_output', 'stdout'] as const) expect([...decode64(body[k])], k).toEqual(k === 'stdout' ? sent.stdin : sent[k])
    expect(body.status.id).toBe(3)
    const plain = await get(app, `/submissions/${token}?fields=source_code`, secret)
    expect([plain.status, await json(plain)]).toEqual([400, { error: 'some attributes for this submission cannot be converted to UTF-8, use base64_encoded=true query parameter' }])
    const batch = await get(app, `/submissions/batch?tokens=${token}&fields=stdin`, secret)
    expect(batch.status).toBe(400)
    // valid UTF-8 text is shown as text
    const { token: t2 } = await json(await post(app, '/submissions', secret, { source_code: 'print("é")', language_id: 71, stdin: '€\u0000' }))
    expect(await done(app, secret, t2)).toMatchObject({ source_code: 'print("é")', stdin: '€\u0000', stdout: '€\u0000' })
    expect(Buffer.from(deps.pool.jobs.at(-1)!.input, 'latin1').toString('utf8')).toBe('€\0')
  })

  test('a body that is not valid UTF-8 is a 400, never read with replacement characters', async () => {
    const { app, secret } = setup()
    const bad = Buffer.concat([Buffer.from('{"source_code": "print(1)", "language_id": 71, "stdin": "A'), Buffer.from([0xff]), Buffer.from('"}')])
    const r = await app.request('/judge0/submissions', { method: 'POST', body: bad, headers: { 'content-type': 'application/json', 'X-Auth-Token': secret } })
    expect([r.status, await json(r)]).toEqual([400, { error: 'the body is not valid UTF-8' }])
    expect(deps.db.select().from(submissions).all()).toHaveLength(0)
  })

  test('a lone surrogate in plain text is a 422 on its attribute, nothing stored', async () => {
    const { app, secret } = setup()
    const r = await post(app, '/submissions', secret, { source_code: 'print(1)', language_id: 71, stdin: 'a\ud800b' })
    expect([r.status, await json(r)]).toEqual([422, { stdin: ['is not valid Unicode text (it holds a lone surrogate), use base64_encoded=true query parameter to send bytes'] }])
    expect(deps.db.select().from(submissions).all()).toHaveLength(0)
  })
})

describe('Judge0 replies bounded before they are built (judge0.reply_max_bytes)', () => {
  const big = (n: number) => ({ source_code: 'print(input())', language_id: 71, stdin: 'x'.repeat(n), expected_output: 'x'.repeat(n) })

  test('a batch read naming one big submission 20 times is a 413 in Judge0\'s {error} shape; under the budget, each position answered', async () => {
    const { app, secret } = setup()
    const { token } = await json(await post(app, '/submissions', secret, big(900_000)))
    await done(app, secret, token)
    const many = await get(app, `/submissions/batch?tokens=${Array(20).fill(token).join(',')}&fields=*&base64_encoded=true`, secret)
    expect(many.status).toBe(413)
    const body = await json(many)
    expect(Object.keys(body)).toEqual(['error'])
    expect(body.error).toMatch(/larger than 16777216 bytes .*fewer tokens at a time/)
    // the same submission four times (about 3.7 MB each): every position, each the same, the length declared
    const ok = await get(app, `/submissions/batch?tokens=${Array(4).fill(token).join(',')}&fields=*&base64_encoded=true`, secret)
    expect(ok.status).toBe(200)
    const text = await ok.text()
    expect(Number(ok.headers.get('content-length'))).toBe(Buffer.byteLength(text))
    const shown = JSON.parse(text).submissions
    expect(shown).toHaveLength(4)
    expect(new Set(shown.map((s: unknown) => JSON.stringify(s))).size).toBe(1)
    expect(decode64(shown[0].stdout).length).toBe(900_000)
  })

  test('plain text counted as it is encoded: NULs (six bytes each in JSON) pass the estimate and are refused as they are counted', async () => {
    const { app, secret } = setup({ config: testConfig({ judge0: { reply_max_bytes: 1 << 20 } }) })
    const { token } = await json(await post(app, '/submissions', secret, { source_code: 'print(input())', language_id: 71, stdin: '\0'.repeat(100_000) }))
    await done(app, secret, token, '&base64_encoded=true')
    // base64: about 270 KB, under the budget
    expect((await get(app, `/submissions/batch?tokens=${token},${token}&fields=stdin,stdout&base64_encoded=true`, secret)).status).toBe(200)
    // plain: 200 KB of bytes is under the budget, 2.4 MB of JSON is not
    const plain = await get(app, `/submissions/batch?tokens=${token},${token}&fields=stdin,stdout`, secret)
    expect([plain.status, (await json(plain)).error]).toEqual([413, expect.stringMatching(/larger than 1048576 bytes/)])
    const one = await get(app, `/submissions/${token}?fields=stdin,stdout`, secret)
    expect([one.status, (await json(one)).error]).toEqual([413, expect.stringMatching(/fewer fields \(fields=…\), or base64_encoded=true/)])
    const fewer = await get(app, `/submissions/${token}?fields=stdout`, secret)
    expect(fewer.status).toBe(200)
    expect((await json(fewer)).stdout).toBe('\0'.repeat(100_000))
  })

  test('wait=true over the budget: 201 with the token and why, so the client can read it another way', async () => {
    const { app, secret } = setup({ config: testConfig({ judge0: { reply_max_bytes: 1 << 20 } }) })
    const r = await post(app, '/submissions?wait=true&fields=stdin,stdout,expected_output', secret, big(400_000))
    expect(r.status).toBe(201)
    const body = await json(r)
    expect(Object.keys(body).sort()).toEqual(['error', 'token'])
    expect(body.error).toMatch(/larger than 1048576 bytes/)
    expect((await get(app, `/submissions/${body.token}?fields=stdout`, secret)).status).toBe(200)
  })

  test('a token of another client or protocol costs nothing and is null; unknown and repeated tokens keep their places', async () => {
    const { app, secret } = setup()
    const other = addClient(deps, { name: 'other' })
    const { token } = await json(await post(app, '/submissions', secret, big(900_000)))
    await done(app, secret, token)
    // the other client's 20 names of it are 20 nulls, not 20 submissions
    const r = await get(app, `/submissions/batch?tokens=${Array(20).fill(token).join(',')}&fields=*&base64_encoded=true`, other)
    expect([r.status, await json(r)]).toEqual([200, { submissions: Array(20).fill(null) }])
    const mixed = await json(await get(app, `/submissions/batch?tokens=nope,${token},nope,${token}&fields=token`, secret))
    expect(mixed).toEqual({ submissions: [null, { token }, null, { token }] })
  })
})

describe('Judge0 information routes', () => {
  test('languages: Judge0 ids for offered codes, sorted by name; 89 and unknown ids are 404', async () => {
    const { app, secret } = setup()
    const list = await json(await get(app, '/languages', secret))
    expect(list.map((l: { id: number }) => l.id).sort((a: number, b: number) => a - b)).toEqual([51, 63, 70, 71, 1001, 1002, 1007, 1008])
    expect(Object.keys(list[0])).toEqual(['id', 'name'])
    const all = await json(await get(app, '/languages/all', secret))
    expect(all.every((l: { is_archived: boolean }) => l.is_archived === false)).toBe(true)
    expect(await json(await get(app, '/languages/71', secret))).toEqual({ id: 71, name: 'Python (3.13)', is_archived: false, source_file: 'main', compile_cmd: null, run_cmd: './main' })
    // 89 (the multi-file program) is a manifest entry, not provisioned in this fixture
    expect((await get(app, '/languages/89', secret)).status).toBe(404)
    expect((await get(app, '/languages/62', secret)).status).toBe(404)
  })

  test('statuses, about, config_info, workers, system_info', async () => {
    const { app, secret } = setup()
    const statuses = await json(await get(app, '/statuses', secret))
    expect(statuses).toHaveLength(14)
    expect(statuses[13]).toEqual({ id: 14, description: 'Exec Format Error' })
    const about = await json(await get(app, '/about', secret))
    expect(about.version).toBe('1.13.1')
    expect(Object.keys(about)).toEqual(['version', 'homepage', 'source_code', 'maintainer'])
    const config = await json(await get(app, '/config_info', secret))
    expect(config).toMatchObject({ enable_wait_result: true, max_submission_batch_size: 20, allow_enable_network: false, enable_network: false, cpu_time_limit: 5, max_cpu_time_limit: 5, max_memory_limit: 262144 })
    expect(Object.keys(config)).toHaveLength(39) // Judge0 1.13.1 Config.config_info, all of them
    const workers = await json(await get(app, '/workers', secret))
    expect(workers).toEqual([{ queue: '1.13.1', size: 0, available: 2, idle: 2, working: 0, paused: 0, failed: 0 }])
    expect(await json(await get(app, '/system_info', secret))).toHaveProperty('CPU(s)')
    expect(await (await get(app, '/version', secret)).text()).toBe('1.13.1')
    expect((await get(app, '/nothing-here', secret)).status).toBe(404)
  })

  test('/isolate and /license answer text as Judge0 does, saying what this server is (not isolate, not Judge0\'s GPL)', async () => {
    const { app, secret } = setup()
    for (const [path, text] of [['/isolate', ISOLATE_TEXT], ['/license', LICENSE_TEXT]] as const) {
      const r = await get(app, path, secret)
      expect(r.status, path).toBe(200)
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/)
      expect(await r.text()).toBe(text)
      expect((await app.request(`/judge0${path}`)).status).toBe(401)
    }
    expect(ISOLATE_TEXT).toMatch(/nsjail/)
    expect(LICENSE_TEXT).toMatch(/^Arbiter/)
    expect(LICENSE_TEXT).not.toMatch(/GNU GENERAL PUBLIC LICENSE/)
  })

  test('a memory_limit or cpu_time_limit under the server\'s floor is a 422, nothing stored', async () => {
    const { app, secret } = setup({ config: testConfig({ limits: { min_memory_kb: 32768, min_time_sec: 0.25 } }) })
    const r = await post(app, '/submissions', secret, { source_code: 'print(1)', language_id: 71, memory_limit: 20000, cpu_time_limit: 0.2 })
    expect(r.status).toBe(422)
    expect(await json(r)).toEqual({ cpu_time_limit: ['must be greater than or equal to 0.25'], memory_limit: ['must be greater than or equal to 32768'] })
    expect(deps.db.select().from(submissions).all()).toHaveLength(0)
    const ok = await post(app, '/submissions?wait=true&fields=memory_limit,cpu_time_limit', secret, { source_code: 'print(1)', language_id: 71, memory_limit: 32768, cpu_time_limit: 0.25 })
    expect([ok.status, await json(ok)]).toEqual([201, { cpu_time_limit: '0.25', memory_limit: 32768 }])
    expect(deps.db.select().from(submissions).get()).toMatchObject({ memoryLimitKb: 32768, timeLimitSec: 0.25 })
  })

  test('/openapi.json lists the Judge0 routes', async () => {
    const { app } = setup()
    const doc = await json(await app.request('/openapi.json'))
    for (const p of ['/judge0/submissions', '/judge0/submissions/{token}', '/judge0/submissions/batch', '/judge0/languages', '/judge0/languages/{id}', '/judge0/statuses', '/judge0/about', '/judge0/config_info', '/judge0/workers', '/judge0/system_info', '/judge0/authenticate', '/judge0/authorize', '/judge0/isolate', '/judge0/license'])
      expect(Object.keys(doc.paths)).toContain(p)
  })
})


// zips made by python3 subprocesses, megabytes of Base64: room for a loaded machine
describe("Judge0's own forms: 44 Executable and 89 Multi-file program", { timeout: 60_000 }, () => {
  /** The test languages and the manifest's two forms, all provisioned in the test file's toolchains. */
  function formsSetup() {
    const manifest = loadLanguages()
    const forms = [manifest.get('EXECUTABLE')!, manifest.get('MULTIFILE')!]
    fakeProvision(provisionedToolchains(), forms)
    const languages = new Map([...testLanguages(), ...forms.map((l) => [l.code, l] as const)])
    const pool = createFakePool()
    return { ...setup({ languages, pool }), pool }
  }

  test('89: the zip becomes the job (run script as source, compile script as compile step); source_code is null in the reply', async () => {
    const { app, secret, pool } = formsSetup()
    const zip = makeZip([['compile', 'gcc -o p main.c\n'], ['run', './p\n'], ['main.c', 'int main(){return 0;}\n']])
    const r = await post(app, '/submissions?wait=true&fields=source_code,additional_files,language_id,status', secret, { language_id: 89, additional_files: zip.toString('base64') })
    expect(r.status).toBe(201)
    const body = await json(r)
    expect(body).toMatchObject({ source_code: null, language_id: 89 })
    // the zip as sent (always Base64: it is bytes)
    expect(Buffer.from(decode64(body.additional_files)).equals(zip)).toBe(true)
    const job = pool.jobs.at(-1)!
    expect([job.language, job.sourceFileName, Buffer.from(job.source, 'latin1').toString(), job.compileArgv, job.runArgv]).toEqual(['MULTIFILE', 'run', './p\n', ['bash', 'compile'], ['bash', 'run']])
    expect(pool.files.at(-1)!.map((f) => f.name).sort()).toEqual(['compile', 'main.c'])
    const listed = await json(await get(app, '/languages', secret))
    expect(listed).toEqual(expect.arrayContaining([{ id: 89, name: 'Multi-file program' }, { id: 44, name: 'Executable' }]))
    // Judge0's refusals, with a zip of traversal names and without one
    const bad = await post(app, '/submissions', secret, { language_id: 89, source_code: 'echo', additional_files: makeZip([['../run', 'x']]).toString('base64') })
    expect([bad.status, await json(bad)]).toEqual([422, { source_code: ['must be blank'], additional_files: ['holds "../run": a path with ..'] }])
  })

  test('44: a binary past limits.source_max_bytes is taken up to limits.executable_max_bytes, at the edge and in the core', async () => {
    const { app, secret, pool } = formsSetup()
    const { source_max_bytes: sourceMax, executable_max_bytes: exeMax } = deps.config.limits
    const elf = Buffer.concat([Buffer.from('\x7fELF'), Buffer.alloc(sourceMax * 2, 0xf0)])
    const r = await post(app, '/submissions?base64_encoded=true', secret, { language_id: 44, source_code: elf.toString('base64') })
    expect(r.status).toBe(201)
    await until(() => pool.jobs.length === 1)
    expect(Buffer.from(pool.jobs[0].source, 'latin1').equals(elf)).toBe(true)
    const over = await post(app, '/submissions?base64_encoded=true', secret, { language_id: 44, source_code: Buffer.alloc(exeMax + 1, 0xf0).toString('base64') })
    expect([over.status, await json(over)]).toEqual([422, { source_code: [`is too long (maximum is ${exeMax} bytes)`] }])
    // where the job is built: the core holds the same cap whatever a face let through
    const client = deps.db.select().from(clients).get()!
    const core = thrownAppError(() => acceptSubmission(deps, client as never, { api: 'judge0', lang: 'EXECUTABLE', source: 'x'.repeat(exeMax + 1), inputEncoding: 'latin1' }))
    expect([core.code, core.message]).toEqual(['PayloadTooLarge', `PayloadTooLarge: source is larger than ${exeMax} bytes`])
    expect(() => acceptSubmission(deps, client as never, { api: 'judge0', lang: 'EXECUTABLE', source: 'x'.repeat(sourceMax + 1), inputEncoding: 'latin1' })).not.toThrow()
  })

  test('the other APIs neither list nor take them', async () => {
    const { app, secret } = formsSetup()
    for (const lang of ['EXECUTABLE', 'MULTIFILE']) {
      const r = await app.request('/v4/partner/code-evaluation/submissions/', { method: 'POST', headers: { 'client-secret': secret, 'content-type': 'application/json' }, body: JSON.stringify({ lang, source: '#!/bin/sh\necho hi\n' }) })
      expect(r.status, lang).toBe(400)
      expect(JSON.stringify(await json(r))).toContain(`lang '${lang}' is not supported`)
    }
  })
})
