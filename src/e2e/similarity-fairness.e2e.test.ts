// Similarity reports are fair to every client, through the real server: clients take turns, one
// client's waiting reports are capped, a report costs quota, a `sleep` kept in the pool does not hold a
// report, and a submission the parser cannot take is left out with its reason (API and page) while the
// report completes for the others.
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const SUBMISSIONS = '/v4/partner/code-evaluation/submissions/'
const SIMILARITY = '/v4/partner/code-evaluation/similarity/'

let server: RunningServer
let http: ReturnType<typeof api>

beforeAll(async () => {
  // one slot, so that a sleeper holds the pool; a parse budget of 1 s for the hostile file
  server = await startServer({ configToml: '[pool]\nsize = 1\n[similarity]\nfile_parse_sec = 1\n' })
  http = api(server.url)
}, 120_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

const post = async (path: string, secret: string, body: unknown) => {
  const r = await http.post(path, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' })
  return { status: r.status, body: await json(r), retryAfter: r.headers.get('retry-after') }
}
/** Stored (async: answered at once, run later) v4 submissions. */
const submit = async (secret: string, lang: string, source: string) => {
  const r = await post(SUBMISSIONS, secret, { lang, source, input: '' })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body.he_id as string
}
const ask = (secret: string, heIds: string[]) => post(SIMILARITY, secret, { he_ids: heIds, min_similarity: 0 })
const report = async (secret: string, id: string) => json(await http.get(`${SIMILARITY}${id}/`, { 'client-secret': secret }))
const idle = () => waitUntil(() => server.query("select 1 from submissions where state <> 'completed'").length === 0, 120_000, 'the pool to drain')
const reportsIdle = () => waitUntil(() => server.query("select 1 from similarity_reports where state in ('queued', 'running')").length === 0, 180_000, 'the reports to finish')

const PY = (i: number) => `def f${i}(a):\n    total = 0\n    for x in a:\n        if x % ${i + 2} == 0:\n            total += x * ${i}\n    return total\n\nprint(f${i}([1, 2, 3, 4, 5]))\n`

test('clients take turns: another client\'s one report runs right after the running one, not after the first client\'s queue', { timeout: 240_000 }, async () => {
  const a = await server.createClient('turn-a')
  const b = await server.createClient('turn-b')
  const aIds = [await submit(a, 'PYTHON3', PY(1)), await submit(a, 'PYTHON3', PY(2)), await submit(a, 'PYTHON3', PY(3))]
  const bIds = [await submit(b, 'PYTHON3', PY(4)), await submit(b, 'PYTHON3', PY(5))]
  await idle()
  const aReports: string[] = []
  for (let i = 0; i < 4; i++) {
    const r = await ask(a, aIds)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    aReports.push(r.body.report_id)
  }
  const bReport = (await ask(b, bIds)).body.report_id as string
  await reportsIdle()
  const started = new Map(server.query<{ public_id: string; started_at: number }>('select public_id, started_at from similarity_reports').map((r) => [r.public_id, r.started_at]))
  const order = [...aReports, bReport].sort((x, y) => started.get(x)! - started.get(y)!)
  // a's first had started (or was claimed) before b asked; b's goes next, before a's second
  expect(order.indexOf(bReport)).toBeLessThanOrEqual(1)
  for (const id of [...aReports, bReport]) expect((await report(id === bReport ? b : a, id)).status).toBe('completed')
})

test('a client may have at most similarity.max_queued_per_client (5) reports waiting: one more is 429 with Retry-After, and not counted', { timeout: 240_000 }, async () => {
  const c = await server.createClient('cap-c', 100)
  const ids = [await submit(c, 'PYTHON3', PY(6)), await submit(c, 'PYTHON3', PY(7))]
  await idle()
  const answers: Awaited<ReturnType<typeof ask>>[] = []
  for (let i = 0; i < 8; i++) answers.push(await ask(c, ids))
  const refused = answers.filter((r) => r.status === 429)
  expect(refused.length).toBeGreaterThanOrEqual(1)
  expect(refused[0]!.retryAfter).toBe('30')
  expect(refused[0]!.body.message).toMatch(/QueueFullError: 5 similarity reports of this client are already waiting/)
  // stored: at most the cap waiting plus the one running; counted: the two submissions and the stored reports
  const stored = answers.filter((r) => r.status === 200).length
  expect(stored).toBeLessThanOrEqual(6)
  expect(server.query<{ used: number }>("select used from clients where name = 'cap-c'")[0]!.used).toBe(2 + stored)
  await reportsIdle()
})

test("a report costs quota: one per 100 submissions compared; past the quota it is refused (403) and nothing is stored", async () => {
  const d = await server.createClient('quota-d', 3)
  const ids = [await submit(d, 'PYTHON3', PY(8)), await submit(d, 'PYTHON3', PY(9))]
  await idle()
  expect((await ask(d, ids)).status).toBe(200)
  expect(server.query<{ used: number }>("select used from clients where name = 'quota-d'")[0]!.used).toBe(3)
  const over = await ask(d, ids)
  expect(over.status).toBe(403)
  expect(over.body.message).toMatch(/QuotaExceededError/)
  expect(server.query("select 1 from similarity_reports where client_id = (select id from clients where name = 'quota-d')")).toHaveLength(1)
  await reportsIdle()
})

test("a client keeping a sleeping program in the pool does not hold another client's report", { timeout: 240_000 }, async () => {
  const sleeper = await server.createClient('sleeper', 0)
  const e = await server.createClient('report-e')
  const ids = [await submit(e, 'PYTHON3', PY(10)), await submit(e, 'PYTHON3', PY(11)), await submit(e, 'PYTHON3', PY(12))]
  await idle()
  // two sleepers queued at a time: the next starts as one ends, so the pool is never idle
  let keep = true
  const SLEEP = 'import time\ntime.sleep(4)\n'
  const holder = (async () => {
    await submit(sleeper, 'PYTHON3', SLEEP)
    await submit(sleeper, 'PYTHON3', SLEEP)
    while (keep) {
      if (server.query("select 1 from submissions where state = 'queued' and client_id = (select id from clients where name = 'sleeper')").length < 1) await submit(sleeper, 'PYTHON3', SLEEP)
      await new Promise((r) => setTimeout(r, 200))
    }
  })()
  try {
    // 'compiled' too: a Python run is checked (compiled) first and runs in that state
    await waitUntil(() => server.query("select 1 from submissions where state in ('running', 'compiled') and source like '%time.sleep(4)%'").length > 0, 30_000, 'a sleeper to run')
    const id = (await ask(e, ids)).body.report_id as string
    let last: { status: string; stage: string | null } = { status: '', stage: null }
    // before: "waiting for the sandbox" for as long as the sleepers came (for ever)
    await waitUntil(async () => (last = await report(e, id)).status === 'completed', 120_000, `the report beside the sleepers (last: ${JSON.stringify(last)})`)
    // the pool was busy all along
    expect(server.query("select 1 from submissions where state in ('running', 'queued') and source like '%time.sleep(4)%'").length).toBeGreaterThan(0)
  } finally {
    keep = false
    await holder
  }
  await idle()
})

test('a submission the parser cannot take is left out with its reason, in the reply and on the page; deep nesting is compared; the report completes', { timeout: 240_000 }, async () => {
  const f = await server.createClient('hostile-f')
  const js = 'function f(a) { return a.filter((x) => x > 1).map((x) => x * 2) }\nconsole.log(f([1, 2, 3]))\n'
  const quotes = await submit(f, 'JAVASCRIPT_NODE', '"'.repeat(140 * 1024))
  const deep = await submit(f, 'JAVASCRIPT_NODE', `let x = ${'('.repeat(10_000)}1${')'.repeat(10_000)}\nconsole.log(x)\n`)
  const terms = await submit(f, 'JAVASCRIPT_NODE', `let y = ${Array(10_000).fill('1').join('+')}\nconsole.log(y)\n`)
  const one = await submit(f, 'JAVASCRIPT_NODE', js)
  const two = await submit(f, 'JAVASCRIPT_NODE', js)
  await idle()
  const asked = await ask(f, [quotes, deep, terms, one, two])
  expect(asked.status, JSON.stringify(asked.body)).toBe(200)
  let r: any
  await waitUntil(async () => ['completed', 'failed'].includes((r = await report(f, asked.body.report_id)).status), 180_000, 'the report')
  expect(r.status, JSON.stringify(r.error)).toBe('completed')
  const excluded = Object.fromEntries(r.submissions.map((s: { he_id: string; excluded: string | null }) => [s.he_id, s.excluded]))
  expect(excluded[quotes]).toMatch(/the parser took more than 1 s of CPU/)
  for (const id of [deep, terms, one, two]) expect(excluded[id]).toBeNull()
  expect(r.pairs.find((p: { left: string; right: string }) => [p.left, p.right].sort().join() === [one, two].sort().join()).similarity).toBe(1)
  // the page says it too
  const page = await (await fetch(r.web_link)).text()
  expect(page).toContain('Left out')
  expect(page).toContain(quotes)
  expect(page).toMatch(/the parser took more than 1 s of CPU/)
})
