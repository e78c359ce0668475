// Fair share and back-pressure on the real server with the real jail: one client floods 1,500 submissions
// of a short sleeper in a few seconds; the per-client cap (evaluation.max_queued_per_client, default 500)
// refuses the rest with 429 and Retry-After in each API's shape, and another client's job still runs
// within a bound (first come first served would put it behind all 500).
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'
const SLEEPER = 'import time\ntime.sleep(0.3)\nprint("slept")\n'

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ configToml: '[pool]\nsize = 2\n' })
}, 120_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

const v4 = (secret: string, source = SLEEPER) =>
  api(server.url).post(PATH, JSON.stringify({ lang: 'PYTHON3', source }), { 'client-secret': secret, 'content-type': 'application/json' })

test("a flood from one client is capped at its queued limit and leaves another client's latency within a bound", { timeout: 300_000 }, async () => {
  const flooder = await server.createClient('flooder')
  const other = await server.createClient('other')

  // 1,500 requests, 25 at a time
  const statuses: number[] = []
  const refusals: Response[] = []
  const started = Date.now()
  let next = 0
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      while (next < 1500) {
        next++
        const r = await v4(flooder)
        statuses.push(r.status)
        if (r.status === 429) refusals.push(r)
        else await r.body?.cancel()
      }
    })
  )
  const floodMs = Date.now() - started
  const accepted = statuses.filter((s) => s === 200).length
  const running = () => server.query<{ n: number }>("select count(*) as n from submissions where state != 'queued'")[0]!.n
  // 500 wait; the few that started meanwhile no longer count as waiting
  expect(accepted).toBeGreaterThanOrEqual(500)
  expect(accepted).toBeLessThanOrEqual(500 + running())
  expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([])
  expect(refusals.length).toBe(1500 - accepted)
  const sample = refusals[0]!
  expect(sample.headers.get('retry-after')).toMatch(/^\d+$/)
  expect(await json(sample)).toMatchObject({
    message: expect.stringMatching(/^QueueFullError: /),
    errors: { max_queued: 500 },
    request_status: { code: 'REQUEST_FAILED' },
  })
  await Promise.all(refusals.slice(1).map((r) => r.body?.cancel()))
  // v3 says it in its own shape (a job or two may have started since: each frees one place)
  let v3!: Response
  for (let i = 0; i < 20; i++) {
    v3 = await api(server.url).post('/v3/code/run/', new URLSearchParams({ client_secret: flooder, lang: 'PYTHON3', source: SLEEPER, async: '1' }))
    if (v3.status !== 200) break
    await v3.body?.cancel()
  }
  expect(v3.status).toBe(429)
  expect(v3.headers.get('retry-after')).toMatch(/^\d+$/)
  const v3Body = await json(v3)
  expect(v3Body.message).toMatch(/^QueueFullError: /)
  expect(v3Body).not.toHaveProperty('request_status')

  // the other client's job, submitted behind ~500 of the flooder's: it runs within a few of the flooder's jobs
  const t0 = Date.now()
  const mine = await json(await v4(other))
  let state = ''
  await waitUntil(
    async () => {
      state = (await json(await api(server.url).get(`${PATH}${mine.he_id}/`, { 'client-secret': other }))).request_status.code
      return state === 'REQUEST_COMPLETED'
    },
    60_000,
    "the other client's job"
  )
  const latencyMs = Date.now() - t0
  const flooderDone = server.query<{ n: number }>("select count(*) as n from submissions where state = 'completed'")[0]!.n - 1
  console.log(`flood: ${accepted} accepted, ${1500 - accepted} refused in ${floodMs} ms; other client's latency ${latencyMs} ms with ${flooderDone} of the flooder's done`)
  // first come first served: ~500 × 0.3 s on 2 slots, over 75 s
  expect(latencyMs).toBeLessThan(15_000)
})
