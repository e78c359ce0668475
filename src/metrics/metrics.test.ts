import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.ts'
import { addClient, createTestDeps, json, testConfig, until, type TestDeps } from '../testing/evaluation.ts'
import { createFakePool, okRun } from '../testing/fake-pool.ts'
import { outbox } from '../storage/schema.ts'
import { createMetrics } from './metrics.ts'
import { metricsToken, storedMetricsToken } from './token.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

const V4 = '/v4/partner/code-evaluation/submissions/'
/** The value of one series in the text format, or undefined. */
const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

/** A scrape with the token made for this installation (closed by default). */
const scrape = (app: ReturnType<typeof createApp>) => app.request('/metrics', { headers: { authorization: `Bearer ${metricsToken(deps.config, deps.db, deps.now())}` } })

describe('GET /metrics', () => {
  test('submissions by state, verdict and language; queue depth and age; pool; HTTP requests by route pattern', async () => {
    deps = createTestDeps()
    const app = createApp(deps)
    const secret = addClient(deps)
    deps.pool.hold()
    const submit = (lang: string) =>
      app.request(V4, { method: 'POST', headers: { 'content-type': 'application/json', 'client-secret': secret }, body: JSON.stringify({ lang, source: 'x' }) })
    const first = await json(await submit('PYTHON3'))
    await submit('C')
    await submit('C')
    await until(() => deps.pool.jobs.length === 2)
    await app.request(`${V4}${first.he_id}/`, { headers: { 'client-secret': secret } })
    let text = await (await scrape(app)).text()
    expect(value(text, 'arbiter_queue_depth')).toBe(1)
    expect(value(text, 'arbiter_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(0)
    expect(value(text, 'arbiter_pool_busy_slots')).toBe(2)
    expect(value(text, 'arbiter_pool_slots')).toBe(2)
    expect(value(text, 'arbiter_http_requests_total{method="POST",route="/v4/partner/code-evaluation/submissions",status="200"}')).toBe(3)
    // the he_id is never a label: the route pattern is
    expect(text).toContain('route="/v4/partner/code-evaluation/submissions/:heId",status="200"')
    expect(text).not.toContain(first.he_id)
    deps.pool.release()
    await until(() => deps.pool.busy === 0)
    text = await (await scrape(app)).text()
    expect(value(text, 'arbiter_submissions{state="completed",verdict="AC",language="C"}')).toBe(2)
    expect(value(text, 'arbiter_submissions{state="completed",verdict="AC",language="PYTHON3"}')).toBe(1)
    expect(value(text, 'arbiter_queue_depth')).toBe(0)
    expect(value(text, 'arbiter_queue_oldest_age_seconds')).toBe(0)
    // where the time went: each phase counted once per submission (sums since start, this process's)
    for (const phase of ['accept', 'queued', 'claim', 'pool', 'store']) {
      expect(value(text, `arbiter_core_phase_total{phase="${phase}"}`)).toBeGreaterThanOrEqual(3)
      expect(value(text, `arbiter_core_phase_seconds_total{phase="${phase}"}`)).toBeGreaterThanOrEqual(0)
    }
    expect(value(text, 'arbiter_http_request_seconds_total{route="/v4/partner/code-evaluation/submissions"}')).toBeGreaterThan(0)
    // an unknown path counts once, under one label
    await app.request('/no/such/path/123')
    text = await (await scrape(app)).text()
    expect(value(text, 'arbiter_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1)
  })

  test('outbox backlog and failed deliveries by kind; interviews by status', async () => {
    deps = createTestDeps({ start: false })
    const app = createApp(deps)
    const now = deps.now()
    const row = { target: 'http://x', body: '', contentType: 'text/plain', nextAt: now, createdAt: now }
    deps.db.insert(outbox).values([{ ...row, kind: 'callback' }, { ...row, kind: 'callback' }, { ...row, kind: 'callback', state: 'failed' }, { ...row, kind: 'email' }]).run()
    const text = await (await scrape(app)).text()
    expect(value(text, 'arbiter_outbox_deliveries{kind="callback",state="pending"}')).toBe(2)
    expect(value(text, 'arbiter_outbox_deliveries{kind="callback",state="failed"}')).toBe(1)
    expect(value(text, 'arbiter_outbox_deliveries{kind="email",state="pending"}')).toBe(1)
    for (const status of ['upcoming', 'ongoing', 'completed']) expect(value(text, `arbiter_interviews{status="${status}"}`)).toBe(0)
  })

  test('compile and run durations: a histogram per step and language, from the instrumented pool', async () => {
    const run = okRun({ wallSec: 0.2 })
    const pool = createFakePool({ behave: () => ({ compile: { ok: true, message: '', step: okRun({ wallSec: 1.5 }) }, run }) })
    deps = createTestDeps({ pool })
    const metrics = createMetrics({ ...deps, pool })
    const timed = metrics.instrument(pool)
    await timed.run({ language: 'C', source: '', input: '', timeLimitSec: 1, memoryLimitKb: 65536 })
    const text = await metrics.registry.metrics()
    expect(value(text, 'arbiter_step_duration_seconds_count{step="compile",language="C"}')).toBe(1)
    expect(value(text, 'arbiter_step_duration_seconds_sum{step="compile",language="C"}')).toBe(1.5)
    expect(value(text, 'arbiter_step_duration_seconds_bucket{le="0.25",step="run",language="C"}')).toBe(1)
    expect(value(text, 'arbiter_step_duration_seconds_bucket{le="0.1",step="run",language="C"}')).toBe(0)
    expect(timed.size).toBe(pool.size)
  })

  test('a compile from the compile cache is no compile step; a repeated run (number_of_runs) is one run step per run', async () => {
    const figures = [0.1, 0.2, 0.3].map((wallSec) => ({ cpuSec: wallSec, wallSec, memoryKb: 1000 }))
    const pool = createFakePool({
      behave: () => ({ compile: { ok: true, message: '', cached: true, step: okRun({ wallSec: 0 }) }, run: okRun({ wallSec: 0.3 }), repeats: figures }),
    })
    deps = createTestDeps({ pool })
    const metrics = createMetrics({ ...deps, pool })
    await metrics.instrument(pool).run({ language: 'C', source: '', input: '', timeLimitSec: 1, memoryLimitKb: 65536, repeat: 3 })
    const text = await metrics.registry.metrics()
    expect(value(text, 'arbiter_step_duration_seconds_count{step="compile",language="C"}') ?? 0).toBe(0)
    expect(value(text, 'arbiter_step_duration_seconds_count{step="run",language="C"}')).toBe(3)
    expect(value(text, 'arbiter_step_duration_seconds_sum{step="run",language="C"}')).toBeCloseTo(0.6)
  })

  test('closed by default: 401 without the token made for this installation, 200 with it; metrics.open opens it', async () => {
    deps = createTestDeps()
    const app = createApp(deps)
    const r = await app.request('/metrics')
    expect(r.status).toBe(401)
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="metrics"')
    expect(await r.text()).not.toContain('arbiter_')
    expect((await app.request('/metrics', { headers: { authorization: 'Bearer ' } })).status).toBe(401)
    const token = storedMetricsToken(deps.db, deps.now())
    expect(token).toMatch(/^[\w-]{32}$/)
    // made once: the same token every time
    expect(storedMetricsToken(deps.db, deps.now())).toBe(token)
    expect((await app.request('/metrics', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
    await deps.stop()
    deps = createTestDeps({ config: testConfig({ metrics: { open: true } }) })
    expect((await createApp(deps).request('/metrics')).status).toBe(200)
  })

  test('off by config: 404; with a token: 401 without it, 200 with it', async () => {
    deps = createTestDeps({ config: testConfig({ metrics: { enabled: false } }) })
    expect((await createApp(deps).request('/metrics')).status).toBe(404)
    await deps.stop()
    deps = createTestDeps({ config: testConfig({ metrics: { token: 's3cret-token' } }) })
    const app = createApp(deps)
    expect((await app.request('/metrics')).status).toBe(401)
    expect((await app.request('/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401)
    const ok = await app.request('/metrics', { headers: { authorization: 'Bearer s3cret-token' } })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(await ok.text()).toContain('# TYPE arbiter_submissions gauge')
  })
})
