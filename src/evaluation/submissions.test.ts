import { eq } from 'drizzle-orm'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { okRun } from '../testing/fake-pool.ts'
import { clients, outbox, submissions } from '../storage/schema.ts'
import { findClientBySecret } from '../clients/clients.ts'
import { claimNext } from './queue.ts'
import { acceptSubmission, completeSubmission, failAttempt, getByCodeId, getSubmission, markCompiled, type SubmissionInput } from './submissions.ts'
import { PROVISIONED_TTL_MS } from '../languages.ts'
import { jobSpecOf } from './model.ts'
import { addClient, createTestDeps, fakeProvision, tempDir, testConfig, thrownAppError, type TestDeps } from '../testing/evaluation.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

/** Deps whose dispatcher is not started: the tests drive the transitions by hand. */
function setup(config = testConfig()) {
  deps = createTestDeps({ config, start: false })
  const client = findClientBySecret(deps.db, addClient(deps))!
  return { client }
}

const v4 = (over: Partial<SubmissionInput> = {}): SubmissionInput => ({ api: 'v4', lang: 'PYTHON3', source: 'print(1)', ...over })

const rejects = thrownAppError

describe('acceptSubmission', () => {
  test('stores a queued row with the canonical code and the code as sent', () => {
    const { client } = setup()
    const row = acceptSubmission(deps, client, v4({ lang: ' c++ ' }))
    expect(row).toMatchObject({ state: 'queued', language: 'CPP', langRequested: ' c++ ', api: 'v4', async: true, priority: 1 })
    expect(row.publicId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(row.codeId).toMatch(/^[0-9a-f]{32}$/)
  })

  test.each([
    ['C#', 'CSHARP'],
    ['cpp11', 'CPP11'],
    ['JAVA', 'JAVA'],
    ['javascript', 'JAVASCRIPT'],
    ['PYTHON3', 'PYTHON3'],
  ])('lang %s → %s', (sent, code) => {
    const { client } = setup()
    expect(acceptSubmission(deps, client, v4({ lang: sent })).language).toBe(code)
  })

  test('unknown code: LanguageNotSupportedError naming it, nothing stored', () => {
    const { client } = setup()
    const e = rejects(() => acceptSubmission(deps, client, v4({ lang: 'INTERCAL' })))
    expect(e.code).toBe('LanguageNotSupported')
    expect(e.data).toEqual({ lang: 'INTERCAL' })
    expect(deps.db.select().from(submissions).all()).toHaveLength(0)
  })

  test('a toolchain that is not provisioned: LanguageNotSupportedError saying so, nothing stored or counted', () => {
    const { client } = setup(testConfig({ paths: { toolchains: tempDir() } }))
    const e = rejects(() => acceptSubmission(deps, client, v4({ lang: 'py3' })))
    expect([e.code, e.detail, e.data]).toEqual(['LanguageNotSupported', "lang 'py3' is not provisioned on this server", { lang: 'py3' }])
    expect(deps.db.select().from(submissions).all()).toHaveLength(0)
    expect(deps.db.select().from(clients).get()?.used).toBe(0)
  })

  test('a language provisioned while the server runs is accepted without a restart (within PROVISIONED_TTL_MS)', () => {
    const dir = tempDir()
    const { client } = setup(testConfig({ paths: { toolchains: dir } }))
    expect(rejects(() => acceptSubmission(deps, client, v4())).detail).toMatch(/not provisioned/)
    fakeProvision(dir, [deps.languages.get('PYTHON3')!])
    expect(rejects(() => acceptSubmission(deps, client, v4())).detail).toMatch(/not provisioned/) // the check is cached
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + PROVISIONED_TTL_MS + 1)
      expect(acceptSubmission(deps, client, v4()).language).toBe('PYTHON3')
    } finally {
      vi.useRealTimers()
    }
  })

  test('languages.enabled: any other code is refused as not enabled; codes and aliases in it, any case', () => {
    const { client } = setup(testConfig({ languages: { enabled: ['c', 'PY3'] } }))
    expect(acceptSubmission(deps, client, v4({ lang: 'C' })).language).toBe('C')
    expect(acceptSubmission(deps, client, v4({ lang: 'python3' })).language).toBe('PYTHON3')
    const e = rejects(() => acceptSubmission(deps, client, v4({ lang: 'C++' })))
    expect([e.code, e.detail, e.data]).toEqual(['LanguageNotSupported', "lang 'C++' is not enabled on this server", { lang: 'C++' }])
    expect(rejects(() => acceptSubmission(deps, client, v4({ lang: 'INTERCAL' }))).detail).toBe("lang 'INTERCAL' is not supported")
    expect(deps.db.select().from(submissions).all()).toHaveLength(2)
  })

  test.each([
    [{}, 5, 262144],
    [{ timeLimit: 99999, memoryLimit: 2463232 }, 5, 262144],
    [{ timeLimit: 1.5, memoryLimit: 65536 }, 1.5, 65536],
    [{ timeLimit: 0, memoryLimit: -3 }, 5, 262144],
    // under the floors: raised to them, never rounded down to 0 (which the jail would read as no limit)
    [{ timeLimit: 0.001, memoryLimit: 0.4 }, 0.1, 16384],
    [{ timeLimit: 1e-9, memoryLimit: 0.49 }, 0.1, 16384],
    [{ timeLimit: 0.05, memoryLimit: 1 }, 0.1, 16384],
  ] as [Partial<SubmissionInput>, number, number][])('limits %j → %s s, %s KB', (limits, t, m) => {
    const { client } = setup()
    expect(acceptSubmission(deps, client, v4(limits))).toMatchObject({ timeLimitSec: t, memoryLimitKb: m })
  })

  test('source and input caps: PayloadTooLargeError, nothing stored, nothing counted', () => {
    const { client } = setup(testConfig({ limits: { source_max_bytes: 10, input_max_bytes: 4 } }))
    expect(rejects(() => acceptSubmission(deps, client, v4({ source: 'x'.repeat(11) }))).message).toBe('PayloadTooLarge: source is larger than 10 bytes')
    // bytes, not characters
    expect(rejects(() => acceptSubmission(deps, client, v4({ input: 'ééé' }))).code).toBe('PayloadTooLarge')
    expect(deps.db.select().from(submissions).all()).toHaveLength(0)
    expect(deps.db.select().from(clients).get()!.used).toBe(0)
  })

  test('inputEncoding latin1: source and input counted as the bytes they are (one per character); a character past U+00FF refused', () => {
    const { client } = setup(testConfig({ limits: { source_max_bytes: 10, input_max_bytes: 4 } }))
    const bytes = (b: number[]) => Buffer.from(b).toString('latin1')
    // 10 and 4 bytes of 0xff: 20 and 8 bytes once read as text
    const row = acceptSubmission(deps, client, v4({ inputEncoding: 'latin1', source: bytes(Array(10).fill(0xff)), input: bytes([0x41, 0xff, 0xfe, 0x0a]) }))
    expect([...Buffer.from(row.input, 'latin1')]).toEqual([0x41, 0xff, 0xfe, 0x0a])
    expect(JSON.parse(row.jobSpecJson!)).toMatchObject({ inputEncoding: 'latin1' })
    expect(rejects(() => acceptSubmission(deps, client, v4({ inputEncoding: 'latin1', source: bytes(Array(11).fill(0xff)) }))).code).toBe('PayloadTooLarge')
    expect(rejects(() => acceptSubmission(deps, client, v4({ inputEncoding: 'latin1', source: 'print("€")' }))).code).toBe('InvalidArgument')
    expect(rejects(() => acceptSubmission(deps, client, v4({ inputEncoding: 'latin1', input: '\ud800' }))).code).toBe('InvalidArgument')
  })

  test("a protocol's own caps (the Jobe API's knobs) replace the limits' only for its own submissions", () => {
    const { client } = setup(testConfig({ limits: { source_max_bytes: 10, input_max_bytes: 4, max_memory_kb: 65536, output_cap_bytes: 1000 } }))
    const big = { source: 'x'.repeat(11), input: 'abcde', memoryLimit: 10_000_000, outputBytes: 5000, outputKeptBytes: 3000 }
    // without the knobs: the limits' caps, as every other API has them
    expect(rejects(() => acceptSubmission(deps, client, v4(big))).code).toBe('PayloadTooLarge')
    expect(rejects(() => acceptSubmission(deps, client, v4({ input: 'abcde' }))).code).toBe('PayloadTooLarge')
    const plain = acceptSubmission(deps, client, v4({ memoryLimit: 10_000_000, outputBytes: 5000, outputKeptBytes: 3000 }))
    expect(plain.memoryLimitKb).toBe(65536)
    expect(jobSpecOf(plain)).toMatchObject({ outputBytes: 1000, outputKeptBytes: 1000 })
    // with them: the protocol's own
    const knobs = { sourceMaxBytes: 20, inputMaxBytes: 8, maxMemoryKb: 1_000_000, outputMaxBytes: 4000 }
    const row = acceptSubmission(deps, client, v4({ ...big, ...knobs }))
    expect(row.memoryLimitKb).toBe(1_000_000)
    expect(jobSpecOf(row)).toMatchObject({ outputBytes: 4000, outputKeptBytes: 3000 })
    expect(rejects(() => acceptSubmission(deps, client, v4({ ...big, ...knobs, source: 'x'.repeat(21) }))).message).toBe('PayloadTooLarge: source is larger than 20 bytes')
  })

  test('callback: "" is none, a bare host gets http://, v3 sync ignores it', () => {
    const { client } = setup()
    expect(acceptSubmission(deps, client, v4({ callback: '' })).callbackUrl).toBeNull()
    expect(acceptSubmission(deps, client, v4({ callback: ' client.com/cb ' })).callbackUrl).toBe('http://client.com/cb')
    expect(acceptSubmission(deps, client, v4({ callback: '127.0.0.1:8000' })).callbackUrl).toBe('http://127.0.0.1:8000')
    expect(acceptSubmission(deps, client, { ...v4({ callback: 'https://a/b' }), api: 'v3' }).callbackUrl).toBeNull()
    expect(acceptSubmission(deps, client, { ...v4({ callback: 'https://a/b' }), api: 'v3', async: true }).callbackUrl).toBe('https://a/b')
  })

  test("a v3 synchronous request is claimed before its client's asynchronous backlog", () => {
    const { client } = setup()
    const a = acceptSubmission(deps, client, v4())
    const b = acceptSubmission(deps, client, { ...v4(), api: 'v3' })
    expect([a.priority, b.priority, a.async, b.async]).toEqual([1, 1, true, false])
    expect(claimNext(deps.db, new Date())!.id).toBe(b.id)
    expect(claimNext(deps.db, new Date())!.id).toBe(a.id)
    expect(claimNext(deps.db, new Date())).toBeUndefined()
  })

  test('quota: counted per client; the next one is refused with quota and current_count', () => {
    setup()
    const client = findClientBySecret(deps.db, addClient(deps, { name: 'q', quota: 2 }))!
    acceptSubmission(deps, client, v4())
    acceptSubmission(deps, client, v4())
    const e = rejects(() => acceptSubmission(deps, client, v4()))
    expect(e.message).toBe('QuotaExceeded: API usage quota exceeded')
    expect(e.data).toEqual({ quota: 2, current_count: 2 })
    expect(deps.db.select().from(submissions).where(eq(submissions.clientId, client.id)).all()).toHaveLength(2)
  })

  test('quota from the config when the client has none; 0 is unlimited', () => {
    const { client } = setup(testConfig({ evaluation: { default_quota: 1 } }))
    acceptSubmission(deps, client, v4())
    expect(rejects(() => acceptSubmission(deps, client, v4())).data).toEqual({ quota: 1, current_count: 1 })
    const unlimited = findClientBySecret(deps.db, addClient(deps, { name: 'u', quota: 0 }))!
    for (let i = 0; i < 5; i++) acceptSubmission(deps, unlimited, v4())
  })
})

describe('reading', () => {
  test('by he_id only for its own client; by code_id for anyone with the link', () => {
    const { client } = setup()
    const other = findClientBySecret(deps.db, addClient(deps, { name: 'other' }))!
    const row = acceptSubmission(deps, client, v4())
    expect(getSubmission(deps, client, row.publicId).id).toBe(row.id)
    expect(rejects(() => getSubmission(deps, other, row.publicId)).code).toBe('NotFound')
    expect(rejects(() => getSubmission(deps, client, 'nope')).code).toBe('NotFound')
    expect(getByCodeId(deps, row.codeId).id).toBe(row.id)
  })
})

describe('transitions', () => {
  const claim = () => claimNext(deps.db, new Date())!
  const ok = { compile: { ok: true, message: '' }, run: okRun({ stdout: 'hi' }) }
  const outboxRows = () => deps.db.select().from(outbox).all()

  test('compiled then completed: CODE_COMPILED and REQUEST_COMPLETED callbacks, once each, in order', () => {
    const { client } = setup()
    acceptSubmission(deps, client, v4({ callback: 'http://cb.test/x' }))
    const row = claim()
    markCompiled(deps, row, { ok: true, message: '' })
    expect(getByCodeId(deps, row.codeId)).toMatchObject({ state: 'compiled', compileStatus: 'OK' })
    const done = completeSubmission(deps, row, ok)!
    expect(done).toMatchObject({ state: 'completed', verdict: 'AC', stdout: 'hi' })
    const rows = outboxRows()
    expect(rows.map((r) => JSON.parse(r.body).request_status.code)).toEqual(['CODE_COMPILED', 'REQUEST_COMPLETED'])
    expect(rows.every((r) => r.target === 'http://cb.test/x' && r.contentType === 'application/json')).toBe(true)
  })

  test('compile error: CODE_COMPILED with the compiler text, then REQUEST_COMPLETED with CE', () => {
    const { client } = setup()
    acceptSubmission(deps, client, v4({ callback: 'http://cb.test/x' }))
    const row = claim()
    const result = { compile: { ok: false, message: 'main.c:1: error: expected' } }
    markCompiled(deps, row, result.compile)
    completeSubmission(deps, row, result)
    const bodies = outboxRows().map((r) => JSON.parse(r.body))
    expect(bodies.map((b) => b.request_status.code)).toEqual(['CODE_COMPILED', 'REQUEST_COMPLETED'])
    expect(bodies[0].result).toEqual({ run_status: {}, compile_status: 'main.c:1: error: expected' })
    expect(bodies[1].result.compile_status).toBe('main.c:1: error: expected')
    expect(bodies[1].result.run_status.status).toBe('CE')
  })

  test('a worker that never reported the compile step still yields CODE_COMPILED before completion', () => {
    const { client } = setup()
    acceptSubmission(deps, client, v4({ callback: 'http://cb.test/x' }))
    completeSubmission(deps, claim(), ok)
    // one row: CODE_COMPILED is its lead, sent just before it (jobs/outbox.ts sendLead)
    const [row, ...more] = outboxRows()
    expect(more).toEqual([])
    const lead = JSON.parse(row!.leadJson!) as { body: string; headers: Record<string, string> }
    expect([lead.body, row!.body].map((b) => JSON.parse(b).request_status.code)).toEqual(['CODE_COMPILED', 'REQUEST_COMPLETED'])
    expect(lead.headers['x-arbiter-event']).toBe('CODE_COMPILED')
  })

  test('a retried job whose compile step was never reported: CODE_COMPILED in a row of its own, once', () => {
    const { client } = setup(testConfig({ evaluation: { job_max_attempts: 2 } }))
    acceptSubmission(deps, client, v4({ callback: 'http://cb.test/x' }))
    const first = claim()
    deps.db.update(submissions).set({ state: 'queued' }).run()
    completeSubmission(deps, claim(), ok)
    expect(first.attempt).toBe(1)
    const rows = outboxRows()
    expect(rows.map((r) => [JSON.parse(r.body).request_status.code, r.leadJson])).toEqual([
      ['CODE_COMPILED', null],
      ['REQUEST_COMPLETED', null],
    ])
  })

  test('exactly once: a stale claim (re-queued and claimed again) cannot complete it', () => {
    const { client } = setup()
    acceptSubmission(deps, client, v4({ callback: 'http://cb.test/x' }))
    const first = claim()
    // a restart re-queues it; the second run owns it now
    deps.db.update(submissions).set({ state: 'queued' }).run()
    const second = claim()
    expect(second.attempt).toBe(first.attempt + 1)
    expect(completeSubmission(deps, first, ok)).toBeUndefined()
    markCompiled(deps, first, { ok: true, message: '' })
    expect(getByCodeId(deps, first.codeId).state).toBe('running')
    expect(completeSubmission(deps, second, ok)).toBeDefined()
    expect(completeSubmission(deps, second, ok)).toBeUndefined()
    expect(outboxRows().filter((r) => r.body.includes('REQUEST_COMPLETED'))).toHaveLength(1)
  })

  test('v3 async: one form callback with payload', () => {
    const { client } = setup()
    acceptSubmission(deps, client, { api: 'v3', async: true, lang: 'C', source: 'x', callback: 'http://cb.test/v3', id: 9 })
    completeSubmission(deps, claim(), ok)
    const [row] = outboxRows()
    expect(row.contentType).toBe('application/x-www-form-urlencoded')
    const payload = JSON.parse(new URLSearchParams(row.body).get('payload')!)
    expect(payload).toMatchObject({ id: 9, message: 'OK', run_status: { status: 'AC', output: 'hi' } })
  })

  test('our own failure is retried, then completed with request_OK False', () => {
    const { client } = setup(testConfig({ evaluation: { job_max_attempts: 2 } }))
    acceptSubmission(deps, client, v4({ callback: 'http://cb.test/x' }))
    const internal = { compile: { ok: true, message: '' }, run: okRun({ status: 'internal', message: 'cgroup gone' }) }
    expect(completeSubmission(deps, claim(), internal)).toBeUndefined()
    const again = claim()
    expect(again.attempt).toBe(2)
    const done = failAttempt(deps, again, 'worker died')!
    expect(done).toMatchObject({ state: 'completed', failure: 'internal error: worker died' })
    expect(JSON.parse(outboxRows().at(-1)!.body).result.run_status).toMatchObject({ request_OK: 'False' })
  })
})
