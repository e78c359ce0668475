// v3 end to end: the real server, real jail, real toolchains; request shapes as real clients send them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { V3Reply } from '../hackerearth/schemas.ts'
import { api, startReceiver, startServer, waitUntil, type Receiver, type RunningServer, json } from '../testing/harness.ts'

let server: RunningServer
let receiver: Receiver
let secret: string
let http: ReturnType<typeof api>

beforeAll(async () => {
  server = await startServer()
  http = api(server.url)
  receiver = await startReceiver()
  secret = await server.createClient('v3-e2e')
}, 60_000)

afterAll(async () => {
  await receiver?.close()
  await server?.stop()
  server?.cleanup()
})

const form = (fields: Record<string, string>) => new URLSearchParams(fields)
const run = async (fields: Record<string, string>, path = '/code/run/') => {
  const r = await http.post(path, form({ client_secret: secret, ...fields }))
  return { status: r.status, type: r.headers.get('content-type'), body: await json(r) }
}

describe('the spec error table (v3)', () => {
  test.each([
    ['client_secret missing', {}, 'ArgumentMissingError: client_secret is needed!', {}],
    ['client_secret unknown', { client_secret: 'f'.repeat(40) }, 'UnregisteredClientError: Client does not exist', { client_secret: 'ffff…' }],
    ['source missing', { client_secret: '$', lang: 'PYTHON' }, 'ArgumentMissingError: source is needed!', {}],
    ['lang missing', { client_secret: '$', source: 'print 1' }, 'ArgumentMissingError: lang is needed!', {}],
  ])('%s: 400 with message and errors', async (_n, fields, message, errors) => {
    const body = form(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v === '$' ? secret : v])))
    for (const path of ['/code/run/', '/code/compile/', '/v3/code/run/', '/v3/code/compile/']) {
      const r = await http.post(path, body)
      expect(r.status).toBe(400)
      expect(await json(r)).toEqual({ message, errors })
    }
  })
})

describe('the other errors (the error table of docs/api/hackerearth.md, v3)', () => {
  const submissions = () => server.query<{ n: number }>('select count(*) n from submissions')[0].n
  const used = (name: string) => server.query<{ used: number }>('select used from clients where name = ?', name)[0].used

  test('unknown lang: 400 with a JSON message naming it', async () => {
    const r = await run({ source: 'x', lang: 'INTERCAL' })
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ message: "LanguageNotSupportedError: lang 'INTERCAL' is not supported", errors: { lang: 'INTERCAL' } })
  })

  test('a field of the wrong shape: 400 InvalidArgumentError naming it', async () => {
    const r = await run({ source: 'x', lang: 'C', time_limit: 'soon' })
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ message: 'InvalidArgumentError: time_limit is not valid (Invalid input: expected number, received string)', errors: { time_limit: 'soon' } })
  })

  test('quota used up: 400 QuotaExceededError with integer quota and current_count', { timeout: 30_000 }, async () => {
    const small = await server.createClient('v3-small', 1)
    const first = await http.post('/code/run/', form({ client_secret: small, source: 'print(1)', lang: 'PYTHON3' }))
    expect(first.status).toBe(200)
    const r = await http.post('/code/run/', form({ client_secret: small, source: 'print(1)', lang: 'PYTHON3' }))
    expect(r.status).toBe(400)
    expect(await json(r)).toEqual({ message: 'QuotaExceededError: API usage quota exceeded', errors: { quota: 1, current_count: 1 } })
  })

  test('a revoked client is unknown at once', async () => {
    const gone = await server.createClient('v3-revoked')
    await server.cli(['clients', 'revoke', 'v3-revoked'])
    const r = await http.post('/code/run/', form({ client_secret: gone, source: 'x', lang: 'C' }))
    expect(r.status).toBe(400)
    const body = await json(r)
    // the revoked secret is named, masked: it never travels back whole
    expect(body).toEqual({ message: 'UnregisteredClientError: Client does not exist', errors: { client_secret: `${gone.slice(0, 4)}…` } })
    expect(JSON.stringify(body)).not.toContain(gone)
  })

  test.each([
    ['body', { source: 'x', input: 'y'.repeat(2_100_000) }, 'PayloadTooLargeError: request body is larger than 2097152 bytes', { limit: 2097152 }],
    ['source', { source: 'x'.repeat(262_145) }, 'PayloadTooLargeError: source is larger than 262144 bytes', { source_max_bytes: 262144 }],
    ['input', { source: 'x', input: 'y'.repeat(1_048_577) }, 'PayloadTooLargeError: input is larger than 1048576 bytes', { input_max_bytes: 1048576 }],
  ])('%s over its cap: 413 naming the limit, nothing stored or counted', async (_n, fields, message, errors) => {
    const before = { n: submissions(), used: used('v3-e2e') }
    const r = await run({ lang: 'C', ...fields })
    expect(r.status).toBe(413)
    expect(r.body).toEqual({ message, errors })
    expect({ n: submissions(), used: used('v3-e2e') }).toEqual(before)
  })

  test('unknown path: JSON 404', async () => {
    const r = await http.get('/code/nothing/')
    expect(r.status).toBe(404)
    expect(r.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await json(r)).toEqual({ message: 'NotFoundError: no such endpoint', errors: {} })
  })

  test('wrong method: JSON 405 with Allow, on every v3 path', async () => {
    for (const path of ['/code/run/', '/code/run', '/v3/code/run/', '/code/compile/', '/v3/code/compile']) {
      const r = await http.get(path)
      expect(r.status).toBe(405)
      expect(r.headers.get('allow')).toBe('POST')
      expect(await json(r)).toEqual({ message: 'MethodNotAllowedError: GET is not allowed here; use POST', errors: {} })
    }
  })

  test('a body that starts like JSON but does not parse: 400 JSON', async () => {
    const bad = await http.post('/code/run/', '{"client_secret": ', { 'content-type': 'application/json' })
    expect(bad.status).toBe(400)
    expect(await json(bad)).toEqual({ message: 'InvalidArgumentError: the body looks like JSON but does not parse', errors: {} })
  })
})

describe('synchronous run', () => {
  test('PYTHON3 hello on every path spelling; never a redirect', { timeout: 30_000 }, async () => {
    for (const path of ['/code/run/', '/code/run', '/v3/code/run/', '/v3/code/run']) {
      const r = await run({ source: 'print(input())', lang: 'PYTHON3', input: 'hello', async: '0', id: 'x1' }, path)
      expect(r.status).toBe(200)
      expect(V3Reply.parse(r.body)).toBeTruthy()
      expect(r.body).toMatchObject({ message: 'OK', errors: {}, id: 'x1', compile_status: 'OK', async: 0 })
      expect(r.body.run_status).toMatchObject({ status: 'AC', output: 'hello\n', status_detail: 'N/A', exit_code: '0', request_OK: 'True', time_limit: 5, memory_limit: 262144, async: 0 })
      expect(r.body.run_status.time_used).toMatch(/^\d+\.\d+$/)
      expect(r.body.run_status.memory_used).toMatch(/^\d+$/)
    }
  })

  test('C compile + run, JSON body, limits clamped, id as a number', { timeout: 30_000 }, async () => {
    const r = await http.post(
      '/code/run/',
      JSON.stringify({ client_secret: secret, lang: 'C', source: '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}', input: '2 40', time_limit: 99999, memory_limit: 2463232, id: 7 }),
      { 'content-type': 'application/json; charset=utf-8' }
    )
    const body = await json(r)
    expect(body).toMatchObject({ message: 'OK', id: 7, compile_status: 'OK', run_status: { status: 'AC', output: '42\n', time_limit: 5, memory_limit: 262144 } })
  })

  test('compile endpoint: compiles only', { timeout: 30_000 }, async () => {
    const r = await run({ source: 'int main(void){return 0;}', lang: 'C' }, '/code/compile/')
    expect(r.body).toMatchObject({ message: 'OK', compile_status: 'OK' })
    expect(r.body).not.toHaveProperty('run_status')
  })

  test('compile error: the compiler text in compile_status, run_status CE', { timeout: 30_000 }, async () => {
    const r = await run({ source: 'int main(void){ return 0 }', lang: 'C' })
    expect(r.body.compile_status).toMatch(/error/)
    expect(r.body.compile_status).not.toBe('OK')
    expect(r.body.run_status.status).toBe('CE')
  })

  test('runtime error and time limit', { timeout: 30_000 }, async () => {
    const re = await run({ source: 'import sys\nsys.exit(3)', lang: 'PYTHON3' })
    expect(re.body.run_status).toMatchObject({ status: 'RE', status_detail: 'NZEC', exit_code: '3' })
    const tle = await run({ source: 'while True: pass', lang: 'PYTHON3', time_limit: '1' })
    expect(tle.body.run_status).toMatchObject({ status: 'TLE', time_limit: 1 })
  })

  test('v4 codes sent to v3 are run as the documented language', { timeout: 30_000 }, async () => {
    const r = await run({ source: 'console.log("js")', lang: 'JAVASCRIPT_NODE' })
    expect(r.body.run_status).toMatchObject({ status: 'AC', output: 'js\n' })
  })
})

describe('tolerance (v3)', () => {
  test('the compile endpoint on every path spelling', { timeout: 30_000 }, async () => {
    for (const path of ['/code/compile/', '/code/compile', '/v3/code/compile/', '/v3/code/compile']) {
      const r = await run({ source: 'int main(void){return 0;}', lang: 'C' }, path)
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ message: 'OK', errors: {}, compile_status: 'OK' })
    }
    const ce = await run({ source: 'int main(void){ return 0 }', lang: 'C' }, '/code/compile/')
    expect(ce.body.compile_status).toMatch(/error/)
  })

  test('multipart form data, a file part counting as its text', { timeout: 30_000 }, async () => {
    const fd = new FormData()
    fd.append('client_secret', secret)
    fd.append('lang', 'PYTHON3')
    fd.append('source', new Blob(['print("multi")']), 'main.py')
    const r = await http.post('/code/run/', fd)
    expect((await json(r)).run_status).toMatchObject({ status: 'AC', output: 'multi\n' })
  })

  test('empty strings mean the default; unknown fields are ignored; the secret may come in the header', { timeout: 30_000 }, async () => {
    const r = await http.post('/code/run/', form({ lang: 'PYTHON3', source: 'print(2)', input: '', time_limit: '', memory_limit: '', async: '', id: '', callback: '', foo: 'bar' }), { 'client-secret': secret })
    const body = await json(r)
    expect(r.status).toBe(200)
    expect(body).toMatchObject({ message: 'OK', id: body.code_id, async: 0, run_status: { status: 'AC', output: '2\n', time_limit: 5, memory_limit: 262144, async: 0 } })
  })

  test('id null in JSON is answered with code_id; a string id stays a string', { timeout: 30_000 }, async () => {
    const post = (id: unknown) => http.post('/code/run/', JSON.stringify({ client_secret: secret, lang: 'PYTHON3', source: 'print(3)', id }))
    const n = await json(await post(null))
    expect(n.id).toBe(n.code_id)
    const s = await json(await post('0042'))
    expect(s.id).toBe('0042')
  })

  test('the wire types: figures strings, limits and async integers', { timeout: 30_000 }, async () => {
    const r = await run({ source: 'print(4)', lang: 'PYTHON3', time_limit: '2.5', memory_limit: '65536' })
    const rs = r.body.run_status
    for (const k of ['time_used', 'memory_used', 'exit_code', 'request_OK', 'output', 'output_html', 'signal', 'status_detail']) expect(typeof rs[k]).toBe('string')
    expect(rs).toMatchObject({ time_limit: 3, memory_limit: 65536, async: 0 })
    for (const k of ['time_limit', 'memory_limit', 'async']) expect(Number.isInteger(rs[k])).toBe(true)
  })

  test('legacy v3 codes run (CPP, JAVA, CSHARP)', { timeout: 60_000 }, async () => {
    const programs: [string, string][] = [
      ['CPP', '#include <iostream>\nint main(){std::cout<<"t"<<std::endl;}'],
      ['JAVA', 'public class Main{public static void main(String[] a){System.out.println("t");}}'],
      ['CSHARP', 'class P{static void Main(){System.Console.WriteLine("t");}}'],
    ]
    for (const [lang, source] of programs) {
      const r = await run({ source, lang })
      expect({ lang, ...r.body.run_status }).toMatchObject({ lang, status: 'AC', output: 't\n' })
    }
  })

  test('lang=C++ written into a form body without encoding runs as C++, not as C', { timeout: 30_000 }, async () => {
    const source = encodeURIComponent('#include <iostream>\nint main(){std::cout<<"t"<<std::endl;}')
    const r = await http.post('/code/run/', `client_secret=${secret}&lang=C++&source=${source}`, { 'content-type': 'application/x-www-form-urlencoded' })
    expect(r.status).toBe(200)
    expect((await json(r)).run_status).toMatchObject({ status: 'AC', output: 't\n' })
  })
})

describe('asynchronous run', () => {
  test('answers at once, then POSTs the form field payload to the callback', { timeout: 30_000 }, async () => {
    const started = Date.now()
    const r = await run({ source: 'print("later")', lang: 'PYTHON3', async: '1', id: 'cb-1', callback: `${receiver.url}/v3` })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ message: 'OK', id: 'cb-1', compile_status: 'Compiling...', run_status: { status: 'NA', async: 1, time_limit: 5, memory_limit: 262144 } })
    expect(Object.keys(r.body.run_status).sort()).toEqual(['async', 'memory_limit', 'status', 'time_limit'])
    await waitUntil(() => receiver.received.some((x) => x.path === '/v3'), 15_000, 'the v3 callback')
    const got = receiver.received.find((x) => x.path === '/v3')!
    expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded')
    const payload = JSON.parse(new URLSearchParams(got.body).get('payload')!)
    expect(V3Reply.parse(payload)).toBeTruthy()
    expect(payload).toMatchObject({ id: 'cb-1', code_id: r.body.code_id, message: 'OK', compile_status: 'OK', run_status: { status: 'AC', output: 'later\n', async: 1 } })
    expect(got.at - started).toBeLessThan(10_000)
  })

  test('async=1 with callback "" answers at once and sends nothing', { timeout: 30_000 }, async () => {
    const r = await run({ source: 'print(5)', lang: 'PYTHON3', async: '1', callback: '' })
    expect(r.body).toMatchObject({ compile_status: 'Compiling...', run_status: { status: 'NA', async: 1 } })
    await waitUntil(() => server.query("select state from submissions where code_id = ?", r.body.code_id)[0].state === 'completed', 15_000, 'completion')
    expect(server.query('select callback_url from submissions where code_id = ?', r.body.code_id)).toEqual([{ callback_url: null }])
    expect(server.query("select count(*) n from outbox where group_key = (select 'submission:' || id from submissions where code_id = ?)", r.body.code_id)).toEqual([{ n: 0 }])
  })

  test('an unreachable callback host does not delay or fail the job', { timeout: 30_000 }, async () => {
    const started = Date.now()
    const r = await run({ source: 'print(1)', lang: 'PYTHON3', async: '1', callback: '127.0.0.1:9' })
    expect(Date.now() - started).toBeLessThan(3000)
    const sync = await run({ source: 'print(2)', lang: 'PYTHON3' })
    expect(sync.body.run_status.output).toBe('2\n')
    expect(r.body.compile_status).toBe('Compiling...')
    // the asynchronous job itself completes, AC, whatever becomes of its callback
    await waitUntil(() => server.query('select state from submissions where code_id = ?', r.body.code_id)[0].state === 'completed', 15_000, 'completion')
    expect(server.query('select verdict, stdout from submissions where code_id = ?', r.body.code_id)).toEqual([{ verdict: 'AC', stdout: '1\n' }])
  })
})
