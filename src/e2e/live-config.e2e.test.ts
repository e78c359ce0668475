// Live config through a real server process: SIGHUP re-reads config.toml; CORS, languages.enabled and
// limits change at once, a key that needs a restart is reported, and a bad file keeps what runs.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'
let server: RunningServer
let secret: string

beforeAll(async () => {
  server = await startServer({ configToml: 'cors_origins = ["https://a.example"]\n' })
  secret = await server.createClient('live')
}, 60_000)

afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

const writeConfig = (text: string) => writeFileSync(join(server.dataDir, 'config.toml'), text)
/** Sends SIGHUP and returns the log lines the reload wrote. */
async function reload(): Promise<Record<string, unknown>[]> {
  const before = server.output().length
  process.kill(server.pid, 'SIGHUP')
  await waitUntil(() => /config reload/.test(server.output().slice(before)), 10_000, 'the reload to be logged')
  await new Promise((r) => setTimeout(r, 50)) // the warning follows the info line
  return server
    .output()
    .slice(before)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}
const allowedOrigin = async (origin: string) =>
  (await fetch(`${server.url}${PATH}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } })).headers.get('access-control-allow-origin')
const submit = async (body: object) => {
  const r = await api(server.url).post(PATH, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' })
  return { status: r.status, body: await json(r) }
}
const storedLimit = (publicId: string) => server.query<{ t: number }>('select time_limit_sec t from submissions where he_id = ?', publicId)[0].t

test('SIGHUP applies live keys at once and reports the others', { timeout: 60_000 }, async () => {
  expect(await allowedOrigin('https://a.example')).toBe('https://a.example')
  expect(await allowedOrigin('https://b.example')).toBeNull()
  const before = await submit({ lang: 'PYTHON3', source: 'print(1)', time_limit: 5 })
  expect(storedLimit(before.body.he_id)).toBe(5)

  writeConfig(
    [
      '[server]',
      'host = "127.0.0.1"',
      'cors_origins = ["https://b.example"]',
      'body_limit_bytes = 1000000', // not live
      '[limits]',
      'max_time_sec = 2',
      '[languages]',
      'enabled = ["C"]',
      '[interviews]',
      'rate_per_minute = 7',
      '[retention]',
      'outputs_days = 3',
      '',
    ].join('\n')
  )
  const lines = await reload()
  const done = lines.find((l) => l.msg === 'config reloaded')!
  expect(done.applied).toEqual(expect.arrayContaining(['server.cors_origins', 'limits.max_time_sec', 'languages.enabled', 'interviews.rate_per_minute', 'retention.outputs_days']))
  expect(done.needs_restart).toEqual(['server.body_limit_bytes'])
  expect(lines.some((l) => l.level === 'warn' && JSON.stringify(l.keys) === '["server.body_limit_bytes"]')).toBe(true)

  expect(await allowedOrigin('https://b.example')).toBe('https://b.example')
  expect(await allowedOrigin('https://a.example')).toBeNull()
  const clamped = await submit({ lang: 'C', source: 'int main(){return 0;}', time_limit: 5 })
  expect(storedLimit(clamped.body.he_id)).toBe(2)
  const off = await submit({ lang: 'PYTHON3', source: 'print(1)' })
  expect(off.body.request_status.message).toMatch(/not enabled/)
})

test('a bad file keeps the running config and says why', { timeout: 60_000 }, async () => {
  writeConfig('[limits\nmax_time_sec = 1\n')
  let lines = await reload()
  expect(lines.find((l) => l.msg === 'config reload failed; keeping the running config')?.err).toMatch(/not valid TOML/)

  writeConfig('[server]\nhost = "127.0.0.1"\n[limits]\nmax_time_sec = -1\n')
  lines = await reload()
  expect(lines.find((l) => l.level === 'error')?.err).toMatch(/limits\.max_time_sec/)

  // still what the last good file said
  expect(await allowedOrigin('https://b.example')).toBe('https://b.example')
  const r = await submit({ lang: 'C', source: 'int main(){return 0;}', time_limit: 5 })
  expect(storedLimit(r.body.he_id)).toBe(2)
  expect((await fetch(`${server.url}/health`)).ok).toBe(true)
})

test('/health shows the disk use of the data directory', async () => {
  const h = await json(await fetch(`${server.url}/health`))
  expect(h.disk.data_bytes).toBeGreaterThan(0) // config.toml and the database at least
  expect(h.disk.data_files).toBeGreaterThanOrEqual(2)
  expect(h.disk.free_bytes).toBeGreaterThan(0)
})
