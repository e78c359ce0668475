// v4 end to end: the real server, real jail; queued → completed by polling and by callback, the output
// URL, quota, the tolerance rules and the response invariants real clients rely on.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { V4Reply } from '../hackerearth/schemas.ts'
import { api, startReceiver, startServer, waitUntil, type Receiver, type RunningServer, json } from '../testing/harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'

let server: RunningServer
let receiver: Receiver
let secret: string
let http: ReturnType<typeof api>

beforeAll(async () => {
  server = await startServer({ configToml: 'cors_origins = ["https://app.example"]' })
  http = api(server.url)
  receiver = await startReceiver()
  secret = await server.createClient('v4-e2e')
}, 60_000)

afterAll(async () => {
  await receiver?.close()
  await server?.stop()
  server?.cleanup()
})

const submit = async (body: NonNullable<RequestInit['body']>, headers: Record<string, string> = { 'client-secret': secret, 'content-type': 'application/json' }) => {
  const r = await http.post(PATH, body, headers)
  return { status: r.status, body: await json(r) }
}
const poll = async (publicId: string, headers: Record<string, string> = { 'client-secret': secret }) => json(await http.get(`${PATH}${publicId}/`, headers))
const completed = async (publicId: string) => {
  let last: { request_status: { code: string } } | undefined
  await waitUntil(async () => (last = await poll(publicId)).request_status.code === 'REQUEST_COMPLETED', 20_000, `${publicId} to complete`)
  return last as V4Reply
}

describe('submit and poll', () => {
  test('REQUEST_QUEUED at once, REQUEST_COMPLETED by polling, output fetched from its URL', { timeout: 30_000 }, async () => {
    const q = await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(input()[::-1])', input: 'olleh', context: 'ctx-1', time_limit: 5, memory_limit: 262144 }))
    expect(q.status).toBe(200)
    expect(V4Reply.parse(q.body)).toBeTruthy()
    expect(q.body).not.toHaveProperty('message')
    expect(q.body.request_status).toEqual({ code: 'REQUEST_QUEUED', message: 'Your request has been queued in the evaluation pipeline' })
    expect(q.body.status_update_url).toBe(`${server.url}${PATH}${q.body.he_id}/`)
    expect(q.body.context).toBe('ctx-1')
    expect(q.body.result).toEqual({ run_status: { status: 'NA' }, compile_status: 'Compiling...' })

    const done = await completed(q.body.he_id)
    expect(V4Reply.parse(done)).toBeTruthy()
    expect(done).not.toHaveProperty('message')
    expect(done.request_status.message).toBe('Your request has been completed successfully')
    expect(done.context).toBe('ctx-1')
    expect(done.result.compile_status).toBe('OK')
    const rs = done.result.run_status
    expect(rs).toMatchObject({ status: 'AC', signal: 'OTHER', exit_code: '0', status_detail: 'NA', stderr: '', request_NOT_OK_reason: '', request_OK: 'True' })
    for (const k of ['memory_used', 'status', 'time_used', 'signal', 'exit_code', 'status_detail', 'stderr', 'output', 'request_NOT_OK_reason', 'request_OK'] as const) expect(typeof rs[k]).toBe('string')
    expect(rs.output!.startsWith(`${server.url}/`)).toBe(true)

    // a plain GET, whatever headers it carries
    for (const headers of [{}, { accept: 'application/json' }, { 'client-secret': secret, 'content-type': 'application/json' }] as Record<string, string>[]) {
      const out = await fetch(rs.output!, { headers })
      expect(out.status).toBe(200)
      expect(out.headers.get('content-type')).toBe('text/plain; charset=utf-8')
      expect(await out.text()).toBe('hello\n')
    }
  })

  test('a C job: CODE_COMPILED is observable, then REQUEST_COMPLETED', { timeout: 30_000 }, async () => {
    const q = await submit(JSON.stringify({ lang: 'C', source: '#include <stdio.h>\n#include <unistd.h>\nint main(){usleep(600000);puts("c");}' }))
    const seen = new Set<string>()
    await waitUntil(async () => {
      const r = await poll(q.body.he_id)
      seen.add(r.request_status.code)
      if (r.request_status.code === 'CODE_COMPILED') expect(r.result).toEqual({ run_status: {}, compile_status: 'OK' })
      return r.request_status.code === 'REQUEST_COMPLETED'
    })
    expect(seen.has('CODE_COMPILED')).toBe(true)
  })

  test('polling one he_id 50 times a second is answered normally', { timeout: 30_000 }, async () => {
    const q = await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }))
    const statuses: number[] = []
    const t0 = Date.now()
    for (let i = 0; i < 50; i++) {
      const r = await http.get(`${PATH}${q.body.he_id}/`, { 'client-secret': secret })
      statuses.push(r.status)
      await json(r)
      await new Promise((res) => setTimeout(res, Math.max(0, t0 + (i + 1) * 20 - Date.now())))
    }
    expect(statuses.every((s) => s === 200)).toBe(true)
    expect((await poll(q.body.he_id)).request_status.code).toBe('REQUEST_COMPLETED')
  })
})

describe('callbacks', () => {
  test('JSON at CODE_COMPILED and at REQUEST_COMPLETED, the latter equal to the polled reply', { timeout: 30_000 }, async () => {
    const q = await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print("cb")', context: { order: 12 }, callback: `${receiver.url}/v4/a` }))
    await waitUntil(() => receiver.received.filter((r) => r.path === '/v4/a').length === 2, 15_000, 'two callbacks')
    const got = receiver.received.filter((r) => r.path === '/v4/a')
    expect(got.every((g) => g.headers['content-type'] === 'application/json')).toBe(true)
    const [c1, c2] = got.map((g) => JSON.parse(g.body))
    expect(c1.request_status).toEqual({ code: 'CODE_COMPILED', message: 'Compilation step is over' })
    expect(c1.result).toEqual({ run_status: {}, compile_status: 'OK' })
    expect(c2.request_status.code).toBe('REQUEST_COMPLETED')
    expect(c2.context).toEqual({ order: 12 })
    expect(c2).toEqual(await poll(q.body.he_id))
  })

  test('a compile error: CODE_COMPILED with the compiler text, then REQUEST_COMPLETED with CE', { timeout: 30_000 }, async () => {
    const q = await submit(JSON.stringify({ lang: 'C', source: 'int main(void){ return 0 }', callback: `${receiver.url}/v4/ce` }))
    await waitUntil(() => receiver.received.filter((r) => r.path === '/v4/ce').length === 2, 15_000, 'two callbacks')
    const [c1, c2] = receiver.received.filter((r) => r.path === '/v4/ce').map((g) => JSON.parse(g.body))
    expect(c1.request_status.code).toBe('CODE_COMPILED')
    expect(c1.result.compile_status).toMatch(/error/)
    expect(c2.request_status.code).toBe('REQUEST_COMPLETED')
    expect(c2.result.compile_status).toBe(c1.result.compile_status)
    expect(c2.result.run_status.status).toBe('CE')
    expect((await poll(q.body.he_id)).result.run_status.status).toBe('CE')
  })

  test('a receiver that fails is retried with backoff until it answers', { timeout: 30_000 }, async () => {
    let failures = 0
    receiver.respond = (r) => (r.path === '/v4/flaky' && r.body.includes('REQUEST_COMPLETED') && failures++ < 2 ? 503 : 200)
    await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(1)', callback: `${receiver.url}/v4/flaky` }))
    await waitUntil(() => receiver.received.filter((r) => r.path === '/v4/flaky' && r.body.includes('REQUEST_COMPLETED')).length === 3, 20_000, 'three attempts')
    const attempts = receiver.received.filter((r) => r.path === '/v4/flaky' && r.body.includes('REQUEST_COMPLETED'))
    // the same delivery each time, later each time
    expect(new Set(attempts.map((a) => a.headers['x-arbiter-delivery'])).size).toBe(1)
    expect(attempts[2].at - attempts[1].at).toBeGreaterThan(attempts[1].at - attempts[0].at)
    receiver.respond = () => 200
  })

  test('a receiver that never answers delays neither the job nor its poller', { timeout: 30_000 }, async () => {
    receiver.respond = (r) => (r.path === '/v4/hang' ? 0 : 200)
    const q = await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print("slow cb")', callback: `${receiver.url}/v4/hang` }))
    const done = await completed(q.body.he_id)
    expect(done.result.run_status.status).toBe('AC')
    // CODE_COMPILED and REQUEST_COMPLETED (one row, the first its lead) are written together on one
    // connection, in order, once the job has completed; neither is answered, so the pair waits out its
    // timeout and the destination's backoff while the job and its poller went on
    await waitUntil(() => receiver.received.filter((r) => r.path === '/v4/hang').length >= 2, 5_000, 'the hanging deliveries')
    expect(receiver.received.filter((r) => r.path === '/v4/hang').map((r) => JSON.parse(r.body).request_status.code)).toEqual(['CODE_COMPILED', 'REQUEST_COMPLETED'])
    receiver.respond = () => 200
  })

  test('unreachable and placeholder callback hosts never delay the job', { timeout: 30_000 }, async () => {
    const started = Date.now()
    const ids: string[] = []
    for (const callback of ['127.0.0.1:9', 'http://127.0.0.1:8000/callback', 'client.com']) {
      ids.push((await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(1)', callback }))).body.he_id)
    }
    for (const id of ids) await completed(id)
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe('quota', () => {
  // two CLI starts (createClient, clients list) from the sources: 12-15 s each under other tests' load
  test('v3 and v4 share the quota; QuotaExceededError with quota and current_count once used up', { timeout: 90_000 }, async () => {
    const small = await server.createClient('small', 2)
    const headers = { 'client-secret': small }
    // v3 and v4 submissions count against the same quota
    expect((await http.post('/code/run/', new URLSearchParams({ client_secret: small, lang: 'PYTHON3', source: 'print(1)' }))).status).toBe(200)
    expect((await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }), headers)).status).toBe(200)
    const r = await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }), headers)
    expect(r.status).toBe(403)
    expect(r.body).toMatchObject({ message: 'QuotaExceededError: API usage quota exceeded', errors: { quota: 2, current_count: 2 } })
    const list = (await server.cli(['clients', 'list'])) as { name: string; current_count: number }[]
    expect(list.find((c) => c.name === 'small')!.current_count).toBe(2)
  })
})

describe('tolerance', () => {
  const hello = { lang: 'PYTHON3', source: 'print("t")' }

  test.each<[string, () => { body: NonNullable<RequestInit['body']>; headers: Record<string, string> }]>([
    ['JSON', () => ({ body: JSON.stringify(hello), headers: { 'client-secret': secret, 'content-type': 'application/json' } })],
    ['JSON with charset', () => ({ body: JSON.stringify(hello), headers: { 'client-secret': secret, 'content-type': 'application/json; charset=UTF-8' } })],
    ['JSON with no Content-Type', () => ({ body: new TextEncoder().encode(JSON.stringify(hello)), headers: { 'client-secret': secret } })],
    ['JSON labelled as a form', () => ({ body: JSON.stringify(hello), headers: { 'client-secret': secret, 'content-type': 'application/x-www-form-urlencoded' } })],
    ['form data', () => ({ body: new URLSearchParams(hello), headers: { 'client-secret': secret } })],
    ['header in capitals with spaces', () => ({ body: JSON.stringify(hello), headers: { 'CLIENT-SECRET': `  ${secret}  `, 'content-type': 'application/json' } })],
    ['client_secret in the body', () => ({ body: JSON.stringify({ ...hello, client_secret: secret }), headers: { 'content-type': 'application/json' } })],
    ['numbers as strings, empty strings, unknown fields', () => ({ body: JSON.stringify({ ...hello, time_limit: '2', memory_limit: '', input: '', callback: '', id: null, whatever: [1] }), headers: { 'client-secret': secret } })],
    ['huge limits', () => ({ body: JSON.stringify({ ...hello, time_limit: 99999, memory_limit: 2463232, id: 42 }), headers: { 'client-secret': secret } })],
  ])('%s', { timeout: 30_000 }, async (_n, make) => {
    const { body, headers } = make()
    for (const path of [PATH, PATH.slice(0, -1)]) {
      const r = await http.post(path, body instanceof URLSearchParams ? new URLSearchParams(body) : body, headers)
      expect(r.status).toBe(200)
      const q = await json(r)
      expect(q.request_status.code).toBe('REQUEST_QUEUED')
      const done = await completed(q.he_id)
      expect(done.result.run_status.status).toBe('AC')
    }
  })

  test('context as an object or a string is echoed as sent', async () => {
    const obj = await submit(JSON.stringify({ ...hello, context: { a: [1, { b: null }] } }))
    expect(obj.body.context).toEqual({ a: [1, { b: null }] })
    const str = await submit(JSON.stringify({ ...hello, context: "{'id': 213121}" }))
    expect(str.body.context).toBe("{'id': 213121}")
  })

  test.each<[string, string]>([
    ['CPP', '#include <iostream>\nint main(){std::cout<<"t"<<std::endl;}'],
    ['CPP11', '#include <iostream>\nint main(){auto t="t";std::cout<<t<<std::endl;}'],
    ['C++', '#include <iostream>\nint main(){std::cout<<"t"<<std::endl;}'],
    ['JAVA', 'public class Main{public static void main(String[] a){System.out.println("t");}}'],
    ['JAVASCRIPT', 'console.log("t")'],
    ['C#', 'class P{static void Main(){System.Console.WriteLine("t");}}'],
    ['PYTHON', 'print "t"'],
    ['c', '#include <stdio.h>\nint main(){puts("t");}'],
  ])('legacy code %s runs', { timeout: 60_000 }, async (lang, source) => {
    const q = await submit(JSON.stringify({ lang, source }))
    expect(q.status).toBe(200)
    const done = await completed(q.body.he_id)
    expect(done.result.run_status.status).toBe('AC')
    expect(await (await fetch(done.result.run_status.output!)).text()).toBe('t\n')
  })

  test('multipart form data, a file part counting as its text', { timeout: 30_000 }, async () => {
    const fd = new FormData()
    fd.append('lang', 'PYTHON3')
    fd.append('source', new Blob(['print("multi")']), 'main.py')
    fd.append('context', 'm')
    const q = await submit(fd, { 'client-secret': secret })
    expect(q.body).toMatchObject({ request_status: { code: 'REQUEST_QUEUED' }, context: 'm' })
    expect(await (await fetch((await completed(q.body.he_id)).result.run_status.output!)).text()).toBe('multi\n')
  })

  test('huge limits are clamped, empty strings and zero mean the default', async () => {
    const stored = async (body: Record<string, unknown>) => {
      const q = await submit(JSON.stringify({ ...hello, ...body }))
      expect(q.status).toBe(200)
      return server.query('select time_limit_sec t, memory_limit_kb m, callback_url cb from submissions where he_id = ?', q.body.he_id)[0]
    }
    expect(await stored({ time_limit: 99999, memory_limit: 2463232 })).toEqual({ t: 5, m: 262144, cb: null })
    expect(await stored({ time_limit: '', memory_limit: '', callback: '' })).toEqual({ t: 5, m: 262144, cb: null })
    expect(await stored({ time_limit: '2', memory_limit: '65536', callback: 'client.com/cb' })).toEqual({ t: 2, m: 65536, cb: 'http://client.com/cb' })
    expect(await stored({ time_limit: 0, memory_limit: -1 })).toEqual({ t: 5, m: 262144, cb: null })
  })

  test('id as a string, a number or null is accepted', async () => {
    for (const id of ['abc', 12, null]) expect((await submit(JSON.stringify({ ...hello, id }))).status).toBe(200)
  })

  test('the status URL answers with and without the trailing slash, the secret in any case', async () => {
    const q = await submit(JSON.stringify(hello))
    for (const [path, headers] of [
      [`${PATH}${q.body.he_id}/`, { 'client-secret': secret }],
      [`${PATH}${q.body.he_id}`, { 'Client-Secret': ` ${secret} ` }],
    ] as [string, Record<string, string>][]) {
      const r = await http.get(path, headers)
      expect(r.status).toBe(200)
      expect((await json(r)).he_id).toBe(q.body.he_id)
    }
  })
})

const failed = (message: string, errors: Record<string, unknown>) => ({ message, errors, request_status: { code: 'REQUEST_FAILED', message } })

describe('the spec error table (v4)', () => {
  test('source missing → 400 ArgumentMissingError, errors {}', async () => {
    const r = await submit(JSON.stringify({ lang: 'C' }))
    expect([r.status, r.body]).toEqual([400, failed('ArgumentMissingError: source is needed!', {})])
  })

  test('quota used up → 403 QuotaExceededError with integer quota and current_count', async () => {
    const one = await server.createClient('v4-quota-1', 1)
    expect((await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }), { 'client-secret': one })).status).toBe(200)
    const r = await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }), { 'client-secret': one })
    expect([r.status, r.body]).toEqual([403, failed('QuotaExceededError: API usage quota exceeded', { quota: 1, current_count: 1 })])
  })

  test('client unknown → 401 UnregisteredClientError, errors {}', async () => {
    const r = await submit(JSON.stringify({ lang: 'C', source: 'x' }), { 'client-secret': '0'.repeat(40) })
    expect([r.status, r.body]).toEqual([401, failed('UnregisteredClientError: Client does not exist', {})])
  })
})

describe('the other errors (the error table of docs/api/hackerearth.md, v4)', () => {
  const submissions = () => server.query<{ n: number }>('select count(*) n from submissions')[0].n
  const used = (name: string) => server.query<{ used: number }>('select used from clients where name = ?', name)[0].used

  test('client secret absent → 401 UnregisteredClientError; on polling too', async () => {
    const r = await submit(JSON.stringify({ lang: 'C', source: 'x' }), { 'content-type': 'application/json' })
    expect([r.status, r.body]).toEqual([401, failed('UnregisteredClientError: Client does not exist', {})])
    const p = await http.get(`${PATH}00000000-0000-4000-8000-000000000000/`)
    expect([p.status, await json(p)]).toEqual([401, failed('UnregisteredClientError: Client does not exist', {})])
  })

  test('a revoked client → 401 at once', async () => {
    const gone = await server.createClient('v4-revoked')
    await server.cli(['clients', 'revoke', 'v4-revoked'])
    const r = await submit(JSON.stringify({ lang: 'C', source: 'x' }), { 'client-secret': gone })
    expect([r.status, r.body]).toEqual([401, failed('UnregisteredClientError: Client does not exist', {})])
  })

  test.each([
    ['lang missing', { source: 'x' }, 'ArgumentMissingError: lang is needed!', {}],
    ['source ""', { source: '', lang: 'C' }, 'ArgumentMissingError: source is needed!', {}],
    ['unknown code', { lang: 'KLINGON', source: 'x' }, "LanguageNotSupportedError: lang 'KLINGON' is not supported", { lang: 'KLINGON' }],
    ['a field of the wrong shape', { lang: 'C', source: 'x', memory_limit: 'lots' }, 'InvalidArgumentError: memory_limit is not valid (Invalid input: expected number, received string)', { memory_limit: 'lots' }],
  ])('%s → 400', async (_n, body, message, errors) => {
    const r = await submit(JSON.stringify(body))
    expect([r.status, r.body]).toEqual([400, failed(message, errors)])
  })

  test.each([
    ['body', { source: 'x', input: 'y'.repeat(2_100_000) }, 'PayloadTooLargeError: request body is larger than 2097152 bytes', { limit: 2097152 }],
    ['source', { source: 'x'.repeat(262_145) }, 'PayloadTooLargeError: source is larger than 262144 bytes', { source_max_bytes: 262144 }],
    ['input', { source: 'x', input: 'y'.repeat(1_048_577) }, 'PayloadTooLargeError: input is larger than 1048576 bytes', { input_max_bytes: 1048576 }],
  ])('%s over its cap → 413 naming the limit, nothing stored or counted', async (_n, fields, message, errors) => {
    const before = { n: submissions(), used: used('v4-e2e') }
    const r = await submit(JSON.stringify({ lang: 'C', ...fields }))
    expect([r.status, r.body]).toEqual([413, failed(message, errors)])
    expect({ n: submissions(), used: used('v4-e2e') }).toEqual(before)
  })

  test("unknown he_id, or another client's → 404 JSON", async () => {
    const nf = await http.get(`${PATH}00000000-0000-4000-8000-000000000000/`, { 'client-secret': secret })
    expect([nf.status, await json(nf)]).toEqual([404, failed('NotFoundError: no submission with he_id 00000000-0000-4000-8000-000000000000', { he_id: '00000000-0000-4000-8000-000000000000' })])
    const mine = await submit(JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }))
    const other = await server.createClient('v4-other')
    const r = await http.get(`${PATH}${mine.body.he_id}/`, { 'client-secret': other })
    expect(r.status).toBe(404)
  })

  test('wrong method → 405 JSON with Allow', async () => {
    const na = await http.get(PATH, { 'client-secret': secret })
    expect([na.status, na.headers.get('allow'), await json(na)]).toEqual([405, 'POST', failed('MethodNotAllowedError: GET is not allowed here; use POST', {})])
    const del = await fetch(`${server.url}${PATH}00000000-0000-4000-8000-000000000000/`, { method: 'DELETE', headers: { 'client-secret': secret } })
    expect([del.status, del.headers.get('allow'), await json(del)]).toEqual([405, 'GET', failed('MethodNotAllowedError: DELETE is not allowed here; use GET', {})])
  })

  test('unknown API path → 404 JSON, with request_status under /v4/ (a typo of the path included)', async () => {
    for (const path of ['/v4/partner/nothing/', '/v4/partner/code-evaluation/submission/', `${PATH}00000000-0000-4000-8000-000000000000/extra/`]) {
      const r = await http.get(path, { 'client-secret': secret })
      expect(r.status).toBe(404)
      expect(r.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await json(r)).toEqual(failed('NotFoundError: no such endpoint', {}))
    }
    const v3 = await http.get('/code/nothing/')
    expect([v3.status, await json(v3)]).toEqual([404, { message: 'NotFoundError: no such endpoint', errors: {} }])
  })

  test('a body that starts like JSON but does not parse → 400 JSON', async () => {
    const r = await submit('{"lang": "C", ')
    expect([r.status, r.body]).toEqual([400, failed('InvalidArgumentError: the body looks like JSON but does not parse', {})])
  })
})

describe('CORS', () => {
  test('preflight for client-secret, content-type from an allowed origin only', async () => {
    const pre = (origin: string) =>
      fetch(`${server.url}${PATH}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'client-secret, content-type' } })
    const ok = await pre('https://app.example')
    expect(ok.status).toBe(204)
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(ok.headers.get('access-control-allow-headers')!.split(',').map((s) => s.trim())).toEqual(expect.arrayContaining(['client-secret', 'content-type']))
    expect((await pre('https://other.example')).headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('languages.enabled (a server offering C only)', () => {
  let narrow: RunningServer
  let narrowSecret: string
  beforeAll(async () => {
    narrow = await startServer({ configToml: '[languages]\nenabled = ["C"]' })
    narrowSecret = await narrow.createClient('v4-narrow')
  }, 60_000)
  afterAll(async () => {
    await narrow?.stop()
    narrow?.cleanup()
  })

  test('a provisioned code that is not enabled → 400 LanguageNotSupportedError, nothing stored or counted; C runs', { timeout: 30_000 }, async () => {
    const post = async (lang: string) => {
      const r = await api(narrow.url).post(PATH, JSON.stringify({ lang, source: 'print(1)' }), { 'client-secret': narrowSecret, 'content-type': 'application/json' })
      return { status: r.status, body: await json(r) }
    }
    const refused = await post('PYTHON3')
    expect([refused.status, refused.body]).toEqual([400, failed("LanguageNotSupportedError: lang 'PYTHON3' is not enabled on this server", { lang: 'PYTHON3' })])
    expect(narrow.query('select count(*) n from submissions')).toEqual([{ n: 0 }])
    expect(narrow.query('select used from clients')).toEqual([{ used: 0 }])
    const c = await post('C')
    expect([c.status, c.body.request_status.code]).toEqual([200, 'REQUEST_QUEUED'])
  })
})
