import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.ts'
import { V4Reply } from '../hackerearth/schemas.ts'
import { addClient, createTestDeps, tempDir, testConfig, until, type TestDeps, json } from '../testing/evaluation.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

const PATH = '/v4/partner/code-evaluation/submissions/'

function setup(opts: Parameters<typeof createTestDeps>[0] = {}) {
  deps = createTestDeps(opts)
  return { app: createApp(deps), secret: addClient(deps) }
}

const submit = (app: ReturnType<typeof createApp>, body: unknown, headers: Record<string, string> = {}) =>
  app.request(PATH, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) })

describe('v4 submit', () => {
  test('REQUEST_QUEUED at once: he_id, absolute status_update_url, context echoed, no top-level message', async () => {
    const { app, secret } = setup()
    deps.pool.hold()
    const r = await submit(app, { lang: 'PYTHON3', source: 'print(1)', context: 'ctx', time_limit: 5, memory_limit: 246323 }, { 'client-secret': secret })
    expect(r.status).toBe(200)
    const body = await json(r)
    expect(V4Reply.parse(body)).toBeTruthy()
    expect(body).not.toHaveProperty('message')
    expect(body.request_status).toEqual({ code: 'REQUEST_QUEUED', message: 'Your request has been queued in the evaluation pipeline' })
    expect(body.status_update_url).toBe(`https://judge.example.com${PATH}${body.he_id}/`)
    expect(body.context).toBe('ctx')
    expect(body.result).toEqual({ run_status: { status: 'NA' }, compile_status: 'Compiling...' })
  })

  test('polling: REQUEST_QUEUED → CODE_COMPILED → REQUEST_COMPLETED, the output URL serves stdout', async () => {
    const { app, secret } = setup()
    deps.pool.hold()
    const queued = await json(await submit(app, { lang: 'C', source: 'int main(){}', input: 'out\n' }, { 'client-secret': secret }))
    const poll = async () => json(await app.request(new URL(queued.status_update_url).pathname, { headers: { 'client-secret': secret } }))
    await until(() => deps.pool.jobs.length === 1)
    const compiled = await poll()
    expect(compiled.request_status).toEqual({ code: 'CODE_COMPILED', message: 'Compilation step is over' })
    expect(compiled.result).toEqual({ run_status: {}, compile_status: 'OK' })
    deps.pool.release()
    await deps.dispatcher.waitFor(1)
    const done = await poll()
    expect(V4Reply.parse(done)).toBeTruthy()
    expect(done.request_status.code).toBe('REQUEST_COMPLETED')
    expect(done.result.run_status).toMatchObject({ status: 'AC', request_OK: 'True', exit_code: '0', status_detail: 'NA' })
    const out = await app.request(new URL(done.result.run_status.output).pathname, { headers: { accept: 'application/json', 'content-type': 'application/json' } })
    expect(out.status).toBe(200)
    expect(out.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(await out.text()).toBe('out\n')
  })

  test('callback: JSON at CODE_COMPILED then at REQUEST_COMPLETED, same shape as polling', async () => {
    const { app, secret } = setup()
    const queued = await json(await submit(app, { lang: 'C', source: 's', context: { k: [1] }, callback: 'https://client.example/cb' }, { 'client-secret': secret }))
    await until(() => deps.sent.length === 2)
    const bodies = deps.sent.map((s) => JSON.parse(s.body))
    expect(bodies.map((b) => b.request_status.code)).toEqual(['CODE_COMPILED', 'REQUEST_COMPLETED'])
    expect(deps.sent.every((s) => s.contentType === 'application/json')).toBe(true)
    const polled = await json(await app.request(`${PATH}${queued.he_id}`, { headers: { 'client-secret': secret } }))
    expect(bodies[1]).toEqual(polled)
    expect(bodies[1].context).toEqual({ k: [1] })
  })

  test('compile error: CODE_COMPILED callback with the compiler text, then REQUEST_COMPLETED with CE', async () => {
    const { app, secret } = setup()
    const q = await json(await submit(app, { lang: 'C', source: 'COMPILE_ERROR', callback: 'http://cb' }, { 'client-secret': secret }))
    await until(() => deps.sent.length === 2)
    const [compiled, completed] = deps.sent.map((s) => JSON.parse(s.body))
    expect(compiled.result.compile_status).toMatch(/error: expected/)
    expect(completed.result.compile_status).toBe(compiled.result.compile_status)
    expect(completed.result.run_status.status).toBe('CE')
    const polled = await json(await app.request(`${PATH}${q.he_id}/`, { headers: { 'client-secret': secret } }))
    expect(polled.request_status.code).toBe('REQUEST_COMPLETED')
  })
})

describe('v4 tolerance', () => {
  test.each([
    ['header in odd case with spaces', (s: string) => ({ headers: { 'CLIENT-SECRET': `  ${s} ` }, body: {} })],
    ['client_secret in the body', (s: string) => ({ headers: {}, body: { client_secret: s } })],
  ])('secret: %s', async (_n, how) => {
    const { app, secret } = setup()
    const { headers, body } = how(secret)
    const r = await submit(app, { lang: 'PYTHON3', source: 'x', ...body }, headers)
    expect(r.status).toBe(200)
  })

  test.each([
    ['form data', (b: Record<string, string>) => ({ body: new URLSearchParams(b) })],
    ['JSON with charset', (b: Record<string, string>) => ({ body: JSON.stringify(b), headers: { 'content-type': 'application/json; charset=utf-8' } })],
    ['JSON with no Content-Type', (b: Record<string, string>) => ({ body: new TextEncoder().encode(JSON.stringify(b)) })],
    ['multipart', (b: Record<string, string>) => {
      const fd = new FormData()
      for (const [k, v] of Object.entries(b)) fd.append(k, v)
      return { body: fd }
    }],
  ])('body as %s', async (_n, make) => {
    const { app, secret } = setup()
    const { body, headers } = make({ lang: 'PYTHON3', source: 'print(1)', time_limit: '5', memory_limit: '', callback: '', context: 'c' }) as { body: NonNullable<RequestInit['body']>; headers?: Record<string, string> }
    const r = await app.request(PATH.slice(0, -1), { method: 'POST', body, headers: { 'client-secret': secret, ...headers } })
    expect(r.status).toBe(200)
    const j = await json(r)
    expect(j).toMatchObject({ request_status: { code: 'REQUEST_QUEUED' }, context: 'c' })
    await deps.dispatcher.waitFor(1)
    expect(deps.db.$client.prepare('select callback_url, memory_limit_kb from submissions').get()).toEqual({ callback_url: null, memory_limit_kb: 262144 })
  })

  test.each([['CPP', 'CPP'], ['CPP11', 'CPP11'], ['JAVA', 'JAVA'], ['JAVASCRIPT', 'JAVASCRIPT'], ['C++', 'CPP'], ['C#', 'CSHARP'], ['python3', 'PYTHON3']])(
    'legacy code %s runs as %s',
    async (sent, code) => {
      const { app, secret } = setup()
      expect((await submit(app, { lang: sent, source: 'x' }, { 'client-secret': secret })).status).toBe(200)
      await until(() => deps.pool.jobs.length === 1)
      expect(deps.pool.jobs[0].language).toBe(code)
    }
  )

  test('huge limits are clamped, not refused; id of any type is accepted', async () => {
    const { app, secret } = setup()
    for (const id of ['a', 5, null]) {
      const r = await submit(app, { lang: 'C', source: 'x', time_limit: 99999, memory_limit: 2463232, id }, { 'client-secret': secret })
      expect(r.status).toBe(200)
    }
    await until(() => deps.pool.jobs.length === 3)
    expect(deps.pool.jobs.every((j) => j.timeLimitSec === 5 && j.memoryLimitKb === 262144)).toBe(true)
  })
})

describe('v4 errors', () => {
  test.each([
    ['source missing', { lang: 'C' }, 400, 'ArgumentMissingError: source is needed!', {}],
    ['lang missing', { source: 'x' }, 400, 'ArgumentMissingError: lang is needed!', {}],
    ['unknown lang', { source: 'x', lang: 'BRAINFUCK' }, 400, "LanguageNotSupportedError: lang 'BRAINFUCK' is not supported", { lang: 'BRAINFUCK' }],
    ['bad number', { source: 'x', lang: 'C', time_limit: 'soon' }, 400, 'InvalidArgumentError: time_limit is not valid (Invalid input: expected number, received string)', { time_limit: 'soon' }],
  ])('%s → %s', async (_n, body, status, message, errors) => {
    const { app, secret } = setup()
    const r = await submit(app, body, { 'client-secret': secret })
    expect(r.status).toBe(status)
    expect(await json(r)).toEqual({ message, errors, request_status: { code: 'REQUEST_FAILED', message } })
  })

  test.each([
    ['not provisioned', 'C', 'is not provisioned on this server'],
    ['not in languages.enabled', 'C++', 'is not enabled on this server'],
  ])('a language %s → 400 LanguageNotSupportedError, nothing stored, queued or counted', async (kind, lang, why) => {
    const config = kind === 'not provisioned' ? testConfig({ paths: { toolchains: tempDir() } }) : testConfig({ languages: { enabled: ['C', 'PYTHON3'] } })
    const { app, secret } = setup({ config })
    const r = await submit(app, { source: 'x', lang }, { 'client-secret': secret })
    const message = `LanguageNotSupportedError: lang '${lang}' ${why}`
    expect([r.status, await json(r)]).toEqual([400, { message, errors: { lang }, request_status: { code: 'REQUEST_FAILED', message } }])
    expect(deps.db.$client.prepare('select (select count(*) from submissions) n, (select sum(used) from clients) used').get()).toEqual({ n: 0, used: 0 })
    expect(deps.pool.jobs).toHaveLength(0)
  })

  test.each([
    ['no secret', {}],
    ['unknown secret', { 'client-secret': 'x'.repeat(40) }],
  ])('%s → 401 UnregisteredClientError, errors {}', async (_n, headers) => {
    const { app } = setup()
    const r = await submit(app, { lang: 'C', source: 'x' }, headers)
    expect(r.status).toBe(401)
    expect(await json(r)).toMatchObject({ message: 'UnregisteredClientError: Client does not exist', errors: {} })
  })

  test('quota used up → 403 QuotaExceededError with quota and current_count', async () => {
    const { app } = setup()
    const secret = addClient(deps, { name: 'small', quota: 1 })
    expect((await submit(app, { lang: 'C', source: 'x' }, { 'client-secret': secret })).status).toBe(200)
    const r = await submit(app, { lang: 'C', source: 'x' }, { 'client-secret': secret })
    expect(r.status).toBe(403)
    expect(await json(r)).toMatchObject({ message: 'QuotaExceededError: API usage quota exceeded', errors: { quota: 1, current_count: 1 } })
  })

  test('unknown he_id, or another client\'s → 404 JSON', async () => {
    const { app, secret } = setup()
    const q = await json(await submit(app, { lang: 'C', source: 'x' }, { 'client-secret': secret }))
    const other = addClient(deps, { name: 'other' })
    for (const [id, s] of [['00000000-0000-4000-8000-000000000000', secret], [q.he_id, other]]) {
      const r = await app.request(`${PATH}${id}/`, { headers: { 'client-secret': s } })
      expect(r.status).toBe(404)
      expect((await json(r)).message).toMatch(/^NotFoundError/)
    }
  })

  test('wrong methods → 405 JSON', async () => {
    const { app } = setup()
    expect((await app.request(PATH)).status).toBe(405)
    expect((await app.request(`${PATH}abc/`, { method: 'POST' })).status).toBe(405)
    expect((await json(await app.request(`${PATH}abc/`, { method: 'DELETE' }))).message).toMatch(/^MethodNotAllowedError/)
  })

  test('an unexpected fault is a JSON 500 without a stack', async () => {
    const { app, secret } = setup()
    deps.db.$client.exec('drop table submissions')
    const r = await submit(app, { lang: 'C', source: 'x' }, { 'client-secret': secret })
    expect(r.status).toBe(500)
    const text = await r.text()
    expect(JSON.parse(text).message).toBe('InternalServerError: something went wrong on our side')
    expect(text).not.toMatch(/sqlite|\.ts:/i)
  })
})

describe('CORS', () => {
  test('preflight for client-secret, content-type from an allowed origin', async () => {
    const { app } = setup({ config: testConfig({ server: { cors_origins: ['https://app.example'] } }) })
    const pre = (origin: string) =>
      app.request(PATH, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'client-secret, content-type' } })
    const ok = await pre('https://app.example')
    expect(ok.status).toBe(204)
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/client-secret/)
    expect(ok.headers.get('access-control-allow-methods')).toMatch(/POST/)
    expect((await pre('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull()
  })

  test('the actual request carries the allow-origin header', async () => {
    const { app, secret } = setup()
    const r = await submit(app, { lang: 'C', source: 'x' }, { 'client-secret': secret, origin: 'https://any.example' })
    expect(r.headers.get('access-control-allow-origin')).toBe('*')
  })
})
