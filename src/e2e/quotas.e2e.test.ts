// Quotas count what ran, through the real server: a Judge0 batch that crosses the quota returns a token
// for every item it stored and counted (the rest refused one by one), and a run the server withdrew
// unrun (Jobe's outcome 21, Piston's 503) gives its count back.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

let server: RunningServer

beforeAll(async () => {
  // one slot: a sleeping run holds it, so the next run cannot start within the faces' short waits
  server = await startServer({ configToml: '[pool]\nsize = 1\n[jobe]\nwait_timeout_sec = 1\n[piston]\nwait_sec = 1\n' })
}, 120_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

const used = (name: string) => server.query<{ used: number }>('select used from clients where name = ?', name)[0]!.used

const judge0 = async (secret: string, method: string, path: string, body?: unknown) => {
  const r = await fetch(`${server.url}/judge0${path}`, { method, headers: { 'content-type': 'application/json', 'X-Auth-Token': secret }, ...(body !== undefined && { body: JSON.stringify(body) }) })
  return { status: r.status, body: (await r.json()) as any }
}

const JOBE = '/jobe/index.php/restapi/runs'
const jobe = (key: string, source: string) =>
  fetch(`${server.url}${JOBE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-API-KEY': key },
    body: JSON.stringify({ run_spec: { language_id: 'python3', sourcecode: source, parameters: { cputime: 5 } } }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))

const piston = (key: string, source: string) =>
  fetch(`${server.url}/piston/api/v2/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: key },
    body: JSON.stringify({ language: 'python', version: '*', files: [{ content: source }] }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))

/** Holds the one slot with a run that sleeps (another client's), until its promise settles. */
async function holdTheSlot(key: string): Promise<{ held: Promise<unknown> }> {
  const held = jobe(key, 'import time\ntime.sleep(4)\nprint("slept")\n')
  await waitUntil(() => server.query("select 1 from submissions where started_at is not null and completed_at is null and source like '%time.sleep(4)%'").length > 0, 30_000, 'the sleeper to start')
  // wrapped: an async function returning the promise itself would wait for it
  return { held }
}

describe('quotas count what ran', () => {
  test('a Judge0 batch of 6 with a quota of 3: three tokens (stored, counted, run) and three refusals, none stored; then a 429 with the per-item body', async () => {
    const secret = await server.createClient('batch', 3)
    const items = [0, 1, 2, 3, 4, 5].map((i) => ({ language_id: 71, source_code: `print(${i})` }))
    const r = await judge0(secret, 'POST', '/submissions/batch', { submissions: items })
    expect(r.status).toBe(201)
    expect(r.body).toHaveLength(6)
    const tokens = r.body.slice(0, 3).map((x: { token: string }) => x.token)
    for (const t of tokens) expect(t).toMatch(/^[0-9a-f-]{36}$/)
    expect(r.body.slice(3)).toEqual([0, 1, 2].map(() => ({ error: 'API usage quota exceeded' })))
    // what was counted is exactly what was stored, and every stored one is the client's by a returned token
    expect(used('batch')).toBe(3)
    const rows = server.query<{ he_id: string }>("select he_id from submissions where client_id = (select id from clients where name = 'batch') order by id")
    expect(rows.map((x) => x.he_id)).toEqual(tokens)
    // and they run
    await waitUntil(async () => (await judge0(secret, 'GET', `/submissions/batch?tokens=${tokens.join(',')}&fields=status_id,stdout`)).body.submissions.every((s: { status_id: number }) => s.status_id === 3), 60_000, 'the batch to finish')
    const done = await judge0(secret, 'GET', `/submissions/batch?tokens=${tokens.join(',')}&fields=stdout`)
    expect(done.body.submissions.map((s: { stdout: string }) => s.stdout)).toEqual(['0\n', '1\n', '2\n'])
    // a batch past the quota: nothing stored, each item says why, 429 as a single submission gets
    const again = await judge0(secret, 'POST', '/submissions/batch', { submissions: items.slice(0, 2) })
    expect(again).toEqual({ status: 429, body: [{ error: 'API usage quota exceeded' }, { error: 'API usage quota exceeded' }] })
    expect(used('batch')).toBe(3)
  }, 120_000)

  test("a Jobe run withdrawn unrun (outcome 21) gives its count back: a client with a quota of 1 still runs once", async () => {
    const holder = await server.createClient('jobe-holder')
    const key = await server.createClient('jobe-quota', 1)
    const { held } = await holdTheSlot(holder)
    expect(await jobe(key, 'print("never")')).toEqual({ status: 200, body: { run_id: null, outcome: 21, cmpinfo: '', stdout: '', stderr: '' } })
    expect(used('jobe-quota')).toBe(0)
    await held
    // CodeRunner retries the overload: that retry is the one counted
    expect(await jobe(key, 'print("ran")')).toEqual({ status: 200, body: expect.objectContaining({ outcome: 15, stdout: 'ran\n' }) })
    expect(used('jobe-quota')).toBe(1)
    expect(await jobe(key, 'print("over")')).toEqual({ status: 401, body: 'API usage quota exceeded' })
  }, 120_000)

  test('a Piston execute withdrawn unrun (503) gives its count back: a client with a quota of 1 still runs once', async () => {
    const holder = await server.createClient('piston-holder')
    const key = await server.createClient('piston-quota', 1)
    const { held } = await holdTheSlot(holder)
    const busy = await piston(key, 'print("never")')
    expect(busy.status).toBe(503)
    expect(busy.body.message).toMatch(/not run/)
    expect(used('piston-quota')).toBe(0)
    await held
    const ran = await piston(key, 'print("ran")')
    expect(ran.status).toBe(200)
    expect(ran.body.run).toMatchObject({ stdout: 'ran\n', code: 0 })
    expect(used('piston-quota')).toBe(1)
    expect((await piston(key, 'print("over")')).status).toBe(429)
  }, 120_000)
})
