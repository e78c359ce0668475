// v3 end to end: the real server, real jail, real toolchains; request shapes as real clients send them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { V3Reply } from '../evaluation/schemas.ts'
import { api, startReceiver, startServer, waitUntil, type Receiver, type RunningServer, json } from './harness.ts'

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
    ['client_secret unknown', { client_secret: 'f'.repeat(40) }, 'UnregisteredClientError: Client does not exist', { client_secret: 'f'.repeat(40) }],
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

  test('unknown lang: 400 with a JSON message', async () => {
    const r = await run({ source: 'x', lang: 'COBOL' })
    expect(r.status).toBe(400)
    expect(r.body.message).toBe("LanguageNotSupportedError: lang 'COBOL' is not supported")
  })

  test('404, 405 and a broken body are JSON too', async () => {
    const nf = await http.get('/code/nothing/')
    expect(nf.status).toBe(404)
    expect((await json(nf)).message).toMatch(/^NotFoundError/)
    const na = await http.get('/code/run/')
    expect(na.status).toBe(405)
    expect(na.headers.get('content-type')).toMatch(/application\/json/)
    const bad = await http.post('/code/run/', '{"client_secret": ', { 'content-type': 'application/json' })
    expect(bad.status).toBe(400)
    expect((await json(bad)).message).toMatch(/^InvalidArgumentError/)
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

  test('an unreachable callback host does not delay or fail the job', { timeout: 30_000 }, async () => {
    const started = Date.now()
    const r = await run({ source: 'print(1)', lang: 'PYTHON3', async: '1', callback: '127.0.0.1:9' })
    expect(Date.now() - started).toBeLessThan(3000)
    const sync = await run({ source: 'print(2)', lang: 'PYTHON3' })
    expect(sync.body.run_status.output).toBe('2\n')
    expect(r.body.compile_status).toBe('Compiling...')
  })
})
