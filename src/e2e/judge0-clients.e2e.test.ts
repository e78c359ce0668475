// The real Judge0 clients from PyPI, unchanged but for the base URL and token, against the real
// server: the official SDK (judge0), judge0-client and judge0api, each through its documented calls
// (src/e2e/judge0-clients.py runs them; scripts/install-test-clients.sh installs them).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startReceiver, startServer, waitUntil, type Receiver, type RunningServer } from '../testing/harness.ts'

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
}, 60_000)

afterAll(async () => {
  await receiver?.close()
  await server?.stop()
  server?.cleanup()
})

async function scenario(name: string, token = secret): Promise<any> {
  const r = await execa(VENV_PYTHON, [DRIVER, name], {
    env: { ARBITER_JUDGE0: `${server.url}/judge0`, ARBITER_SECRET: token, ARBITER_CALLBACK: `${receiver.url}/sdk-cb`, ARBITER_RECEIVER: receiver.url, JUDGE0_SUPPRESS_PREVIEW_WARNING: '1' },
    reject: false,
    timeout: 150_000,
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
    expect(r.supported).toEqual({ PYTHON: true, C: true, CPP: true, JAVA: true, GO: true, RUST: true, MULTI_FILE: false, BASH: true })
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

describe('judge0-client 0.4.0 (async)', () => {
  test('create and poll, additional_files, arguments and compiler options, a compile error, about and workers', { timeout: 120_000 }, async () => {
    const r = await scenario('client_run')
    expect(r.python).toMatchObject({ stdout: 'sum = 42\n', status: { id: 3, description: 'Accepted' } })
    expect(r.additional_files).toMatchObject({ stdout: '42\n', status: { id: 3 } })
    expect(r.arguments).toMatchObject({ stdout: '[a][b c][$HOME;id]', status: { id: 3 } })
    expect(r.compile_error.status).toEqual({ id: 6, description: 'Compilation Error' })
    expect(r.compile_error.compile_output).toMatch(/error/)
    expect(r.about.version).toBe('1.13.1')
    expect(r.workers[0]).toMatchObject({ queue: '1.13.1', paused: 0 })
  })

  test('its errors: language 89, enable_network, a CPU limit out of range, a memory limit under the floor, an unknown token, a wrong token', { timeout: 60_000 }, async () => {
    const r = await scenario('client_errors')
    expect(r.multi_file).toMatch(/^HTTP 422: .*language with id 89 doesn't exist/)
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
