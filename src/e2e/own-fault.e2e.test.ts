// Our own fault, end to end: a server whose jail cannot start (nsjail path missing). Every reply is still
// JSON with no stack trace: v3 answers 500 with the whole v3 body, v4 completes with request_OK "False" and
// the reason, so no client waits forever; an unexpected fault on an API path is a JSON 500 as well.
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'

let server: RunningServer
let secret: string
let http: ReturnType<typeof api>

beforeAll(async () => {
  server = await startServer({ configToml: '[paths]\nnsjail = "/nonexistent/nsjail"\n[evaluation]\njob_max_attempts = 2' })
  http = api(server.url)
  secret = await server.createClient('fault')
}, 60_000)

afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

const noStack = (text: string) => expect(text).not.toMatch(/\.ts:\d+|\bat \S+ \(|node:internal/)

test('v3 synchronous: HTTP 500, JSON, the v3 body with InternalServerError and request_OK "False"', { timeout: 60_000 }, async () => {
  const r = await http.post('/code/run/', new URLSearchParams({ client_secret: secret, lang: 'PYTHON3', source: 'print(1)', id: 'f1' }))
  expect(r.status).toBe(500)
  expect(r.headers.get('content-type')).toMatch(/^application\/json/)
  const text = await r.text()
  noStack(text)
  const body = JSON.parse(text)
  expect(body.message).toMatch(/^InternalServerError: /)
  expect(body).toMatchObject({ errors: {}, id: 'f1', run_status: { request_OK: 'False' } })
})

test('v4: REQUEST_COMPLETED with request_OK "False" and the reason; every reply JSON', { timeout: 60_000 }, async () => {
  const q = await http.post(PATH, JSON.stringify({ lang: 'PYTHON3', source: 'print(1)' }), { 'client-secret': secret })
  expect(q.status).toBe(200)
  const publicId = (await json(q)).he_id
  let last: { request_status: { code: string }; result: { run_status: Record<string, string> } } | undefined
  await waitUntil(async () => (last = await json(await http.get(`${PATH}${publicId}/`, { 'client-secret': secret }))).request_status.code === 'REQUEST_COMPLETED', 30_000, 'completion')
  expect(last!.result.run_status.request_OK).toBe('False')
  expect(last!.result.run_status.request_NOT_OK_reason).toMatch(/^internal error: /)
  noStack(JSON.stringify(last))
})
