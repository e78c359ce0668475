import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.ts'
import { createFakePool } from '../testing/fake-pool.ts'
import { V3Reply } from '../hackerearth/schemas.ts'
import { addClient, createTestDeps, tempDir, testConfig, until, type TestDeps, json } from '../testing/evaluation.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

function setup(opts: Parameters<typeof createTestDeps>[0] = {}) {
  deps = createTestDeps(opts)
  return { app: createApp(deps), secret: addClient(deps) }
}

const form = (fields: Record<string, string>) => ({ method: 'POST', body: new URLSearchParams(fields) })

describe('v3 errors (spec table A)', () => {
  test.each([
    ['client_secret missing', {}, 'ArgumentMissingError: client_secret is needed!', {}],
    ['client_secret unknown', { client_secret: 'nope' }, 'UnregisteredClientError: Client does not exist', { client_secret: '…' }],
    ['source missing', { client_secret: '$', lang: 'C' }, 'ArgumentMissingError: source is needed!', {}],
    ['lang missing', { client_secret: '$', source: 'x' }, 'ArgumentMissingError: lang is needed!', {}],
  ])('%s → 400', async (_n, fields, message, errors) => {
    const { app, secret } = setup()
    const body = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v === '$' ? secret : v]))
    for (const path of ['/code/run/', '/code/compile/', '/v3/code/run/', '/v3/code/compile']) {
      const r = await app.request(path, form(body))
      expect(r.status).toBe(400)
      expect(await json(r)).toEqual({ message, errors })
    }
  })

  test('unknown lang → 400 with a JSON message naming it', async () => {
    const { app, secret } = setup()
    const r = await app.request('/code/run/', form({ client_secret: secret, source: 'x', lang: 'INTERCAL' }))
    expect(r.status).toBe(400)
    expect(await json(r)).toEqual({ message: "LanguageNotSupportedError: lang 'INTERCAL' is not supported", errors: { lang: 'INTERCAL' } })
  })

  test.each([
    ['not provisioned', () => testConfig({ paths: { toolchains: tempDir() } }), 'C', "LanguageNotSupportedError: lang 'C' is not provisioned on this server"],
    ['not in languages.enabled', () => testConfig({ languages: { enabled: ['PYTHON3'] } }), 'C', "LanguageNotSupportedError: lang 'C' is not enabled on this server"],
  ])('a language %s → 400 at once, nothing stored or run', async (_n, config, lang, message) => {
    const { app, secret } = setup({ config: config() })
    for (const path of ['/code/run/', '/v3/code/compile/']) {
      const r = await app.request(path, form({ client_secret: secret, source: 'x', lang }))
      expect(r.status).toBe(400)
      expect(await json(r)).toEqual({ message, errors: { lang } })
    }
    expect(deps.db.$client.prepare('select count(*) n from submissions').get()).toEqual({ n: 0 })
    expect(deps.pool.jobs).toHaveLength(0)
  })

  test('GET on a v3 path is a JSON 405, never a redirect', async () => {
    const { app } = setup()
    const r = await app.request('/code/run/')
    expect(r.status).toBe(405)
    expect(r.headers.get('allow')).toBe('POST')
    expect(await json(r)).toMatchObject({ message: expect.stringMatching(/^MethodNotAllowedError/) })
  })

  test('a revoked client is unknown', async () => {
    const { app, secret } = setup()
    const { revokeClient } = await import('../clients/clients.ts')
    revokeClient(deps.db, new Date(), 'test')
    const r = await app.request('/code/run/', form({ client_secret: secret, source: 'x', lang: 'C' }))
    expect((await json(r)).message).toBe('UnregisteredClientError: Client does not exist')
  })

  test('body over the cap → 413, nothing stored', async () => {
    const { app, secret } = setup({ config: testConfig({ server: { body_limit_bytes: 200 } }) })
    const r = await app.request('/code/run/', form({ client_secret: secret, source: 'x'.repeat(300), lang: 'C' }))
    expect(r.status).toBe(413)
    expect((await json(r)).message).toMatch(/^PayloadTooLargeError/)
    expect(deps.pool.jobs).toHaveLength(0)
  })
})

describe('v3 run, synchronous', () => {
  test.each(['/code/run/', '/code/run', '/v3/code/run/', '/v3/code/run'])('%s answers the final result', async (path) => {
    const { app, secret } = setup()
    const r = await app.request(path, form({ client_secret: secret, source: 'print(input())', lang: 'PYTHON', input: 'hello\n', time_limit: '99', memory_limit: '9999999', async: '0', id: 'my-1' }))
    expect(r.status).toBe(200)
    const body = await json(r)
    expect(V3Reply.parse(body)).toBeTruthy()
    expect(body).toMatchObject({ message: 'OK', errors: {}, id: 'my-1', compile_status: 'OK', async: 0 })
    expect(body.run_status).toMatchObject({ status: 'AC', output: 'hello\n', time_limit: 5, memory_limit: 262144, async: 0, request_OK: 'True' })
    expect(typeof body.run_status.time_used).toBe('string')
    expect(typeof body.run_status.memory_used).toBe('string')
    expect(typeof body.run_status.exit_code).toBe('string')
    expect(body.web_link).toBe(`https://judge.example.com/view/${body.code_id}`)
  })

  test('JSON body (any Content-Type), id as a number, v4 code mapped', async () => {
    const { app, secret } = setup()
    const r = await app.request('/code/run/', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ client_secret: secret, source: 's', lang: 'JAVASCRIPT_NODE', input: 'in', id: 17, extra: true }),
    })
    const body = await json(r)
    expect(body).toMatchObject({ message: 'OK', id: 17, run_status: { status: 'AC', output: 'in' } })
    expect(deps.pool.jobs[0].language).toBe('JAVASCRIPT_NODE')
  })

  test('compile endpoint: compile only, no run_status', async () => {
    const { app, secret } = setup()
    const r = await app.request('/code/compile/', form({ client_secret: secret, source: 'int main(){}', lang: 'C' }))
    const body = await json(r)
    expect(body).toMatchObject({ message: 'OK', compile_status: 'OK' })
    expect(body).not.toHaveProperty('run_status')
    expect(deps.pool.jobs[0].compileOnly).toBe(true)
  })

  test('compile error: compiler text in compile_status, run_status CE', async () => {
    const { app, secret } = setup()
    const body = await json(await app.request('/code/run/', form({ client_secret: secret, source: 'COMPILE_ERROR', lang: 'C' })))
    expect(body.compile_status).toMatch(/error: expected/)
    expect(body.run_status.status).toBe('CE')
  })

  test('the sandbox failing on our side every time: 500 with the v3 body', async () => {
    const pool = createFakePool({
      behave: () => {
        throw new Error('jail broken')
      },
    })
    const { app, secret } = setup({ pool })
    const r = await app.request('/code/run/', form({ client_secret: secret, source: 's', lang: 'C' }))
    expect(r.status).toBe(500)
    const body = await json(r)
    expect(body.message).toBe('InternalServerError: internal error: jail broken')
    expect(body.run_status.request_OK).toBe('False')
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts/)
  })
})

describe('v3 run, asynchronous', () => {
  test('async=1 answers at once with Compiling... / NA; the callback gets payload', async () => {
    const { app, secret } = setup()
    deps.pool.hold()
    const r = await app.request('/code/run/', form({ client_secret: secret, source: 's', lang: 'C', input: 'x', async: '1', id: '99', callback: 'http://client.com/cb', time_limit: '2' }))
    const body = await json(r)
    expect(body).toEqual({
      message: 'OK',
      errors: {},
      id: '99',
      code_id: body.code_id,
      async: 1,
      compile_status: 'Compiling...',
      web_link: `https://judge.example.com/view/${body.code_id}`,
      run_status: { status: 'NA', time_limit: 2, memory_limit: 262144, async: 1 },
    })
    deps.pool.release()
    await until(() => deps.sent.length === 1)
    const sent = deps.sent[0]
    expect(sent.target).toBe('http://client.com/cb')
    expect(sent.contentType).toBe('application/x-www-form-urlencoded')
    const payload = JSON.parse(new URLSearchParams(sent.body).get('payload')!)
    expect(payload).toMatchObject({ id: '99', code_id: body.code_id, message: 'OK', compile_status: 'OK', run_status: { status: 'AC', output: 'x', async: 1 } })
  })
})
