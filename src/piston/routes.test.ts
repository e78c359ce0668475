// The Piston routes on createApp(fake deps): the job handed to the pool, auth paths, the wait deadline,
// refusals, and the key kept out of logs.
import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.ts'
import { createFakePool, okRun } from '../testing/fake-pool.ts'
import { addClient, createTestDeps, json, testConfig, type TestDeps } from '../testing/evaluation.ts'
import { loggablePath } from './auth.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

function setup(opts: Parameters<typeof createTestDeps>[0] = {}) {
  deps = createTestDeps(opts)
  return { app: createApp(deps), secret: addClient(deps) }
}
const exec = (secret: string, body: unknown, path = '/piston/api/v2/execute') =>
  ({ method: 'POST', body: JSON.stringify(body), headers: { authorization: secret, 'content-type': 'text/plain' } }) as const

describe('POST /piston/api/v2/execute', () => {
  test('hands the core the plan: language, source, stdin with its newline, limits, wall clock, args; replies Piston’s shape', async () => {
    const { app, secret } = setup()
    const r = await app.request('/piston/api/v2/execute', exec(secret, { language: 'python', version: '3', files: [{ content: 'print(1)' }], stdin: 'x', args: ['a'], run_timeout: 2000, run_memory_limit: 64 << 20 }))
    expect(r.status).toBe(200)
    expect(await json(r)).toEqual({
      language: 'python',
      version: '3.0.0',
      run: { stdout: 'x\n', stderr: '', output: 'x\n', code: 0, signal: null, message: null, status: null, cpu_time: 10, wall_time: 20, memory: 3072 * 1024 },
    })
    const job = deps.pool.jobs[0]
    expect(job).toMatchObject({ language: 'PYTHON3', source: 'print(1)', input: 'x\n', timeLimitSec: 2, memoryLimitKb: 65536, wallTimeSec: 2, runArgv: ['./main', 'a'] })
    expect(deps.db.$client.prepare("select api from submissions").all()).toEqual([{ api: 'piston' }])
  })

  test('a body that is not valid UTF-8 is a 400, never read with replacement characters', async () => {
    const { app, secret } = setup()
    const good = Buffer.from(JSON.stringify({ language: 'python', version: '3', files: [{ content: 'print(1)' }], stdin: 'AB' }))
    const bad = Buffer.from(good.toString('latin1').replace('AB', 'A\xffB'), 'latin1')
    const r = await app.request('/piston/api/v2/execute', { method: 'POST', body: bad, headers: { authorization: secret } })
    expect([r.status, await json(r)]).toEqual([400, { message: 'the body is not valid UTF-8' }])
    expect(deps.pool.jobs).toHaveLength(0)
  })

  test('a compiled language gets a compile stage; a failed compile is also the run', async () => {
    const { app, secret } = setup()
    const okR = await app.request('/piston/api/v2/execute', exec(secret, { language: 'c++11', version: '*', files: [{ content: 'int main(){}' }] }))
    const ok = await json(okR)
    expect(okR.status, JSON.stringify(ok)).toBe(200)
    expect(ok.compile).toMatchObject({ code: 0, status: null })
    const broken = await json(await app.request('/piston/api/v2/execute', exec(secret, { language: 'c++11', version: '*', files: [{ content: 'COMPILE_ERROR' }] })))
    expect(broken.compile).toMatchObject({ code: 1, status: 'RE' })
    expect(broken.run).toEqual(broken.compile)
  })

  test('not started within piston.wait_sec: 503 {message}, withdrawn and never run', async () => {
    // no slot ever frees: the run stays queued
    const pool = createFakePool({ size: 0 })
    const { app, secret } = setup({ pool, config: testConfig({ piston: { wait_sec: 0.2 } }) })
    const r = await app.request('/piston/api/v2/execute', exec(secret, { language: 'python', version: '*', files: [{ content: 'x' }] }))
    expect(r.status).toBe(503)
    expect((await json(r)).message).toMatch(/busy/)
    expect(pool.jobs).toEqual([])
    expect(deps.db.$client.prepare('select state, failure from submissions').all()).toEqual([{ state: 'completed', failure: expect.stringMatching(/withdrawn/) }])
  })

  test('a client whose queue is full (evaluation.max_queued_per_client): 429 with Retry-After, nothing stored', async () => {
    const { app, secret } = setup({ start: false, config: testConfig({ evaluation: { max_queued_per_client: 1 }, piston: { wait_sec: 0.2 } }) })
    const first = app.request('/piston/api/v2/execute', exec(secret, { language: 'python', version: '*', files: [{ content: 'x' }] }))
    const r = await app.request('/piston/api/v2/execute', exec(secret, { language: 'python', version: '*', files: [{ content: 'y' }] }))
    expect(r.status).toBe(429)
    expect(r.headers.get('retry-after')).toMatch(/^\d+$/)
    expect((await json(r)).message).toMatch(/already waiting/)
    await first
    expect(deps.db.$client.prepare('select count(*) n from submissions').get()).toEqual({ n: 1 })
  })

  test('our own failure is 500 {message: "Internal error"}', async () => {
    const pool = createFakePool({ behave: () => ({ compile: { ok: true, message: '' }, run: okRun({ status: 'internal', message: 'jail broke' }) }) })
    const { app, secret } = setup({ pool })
    const r = await app.request('/piston/api/v2/execute', exec(secret, { language: 'python', version: '*', files: [{ content: 'x' }] }))
    expect(r.status).toBe(500)
    expect(await json(r)).toEqual({ message: 'Internal error' })
  })
})

describe('auth and paths', () => {
  test('the key in the path or the header; none, or a wrong one: 401', async () => {
    const { app, secret } = setup()
    expect((await app.request(`/piston/${secret}/api/v2/runtimes`)).status).toBe(200)
    expect((await app.request('/piston/api/v2/runtimes/', { headers: { authorization: secret } })).status).toBe(200)
    expect((await app.request('/piston/api/v2/runtimes')).status).toBe(401)
    expect((await app.request('/piston/nope/api/v2/runtimes', { headers: { authorization: secret } })).status).toBe(401)
  })

  test('an anonymous client only when configured, and only while it exists', async () => {
    const { app } = setup({ config: testConfig({ piston: { anonymous_client: 'guest' } }) })
    expect((await app.request('/piston/api/v2/packages')).status).toBe(401)
    addClient(deps, { name: 'guest' })
    expect((await app.request('/piston/api/v2/packages')).status).toBe(200)
  })

  test('logs never carry a key in the path', () => {
    expect(loggablePath('/piston/abcd1234/api/v2/execute')).toBe('/piston/…/api/v2/execute')
    expect(loggablePath('/piston/api/v2/execute')).toBe('/piston/api/v2/execute')
    expect(loggablePath('/code/run/')).toBe('/code/run/')
  })
})
