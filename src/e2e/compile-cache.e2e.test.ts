// The compile cache end to end: a resubmission of the same source skips the compile and
// says so; another source, a compile error or a cache too small for the program does not; the least
// recently used programs are evicted. Real server, real jail, a cache folder of its own.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { V4Reply } from '../hackerearth/schemas.ts'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'
const cacheDir = mkdtempSync(join(tmpdir(), 'arbiter-cache-e2e-'))
let server: RunningServer
let secret: string
let http: ReturnType<typeof api>

// each program carries 64 KiB of data, so it takes 17 to 25 pages in the cache with its source: room for two, not three
const MAX = 2 * 25 * 4096
beforeAll(async () => {
  server = await startServer({ configToml: `[paths]\ncompile_cache = "${cacheDir}"\n[compile_cache]\nmax_bytes = ${MAX}` })
  http = api(server.url)
  secret = await server.createClient('cache-e2e')
}, 60_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
  rmSync(cacheDir, { recursive: true, force: true })
})

const run = async (body: Record<string, unknown>) => {
  const q = (await json(await http.post(PATH, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' }))) as V4Reply
  let done: V4Reply | undefined
  await waitUntil(async () => (done = (await json(await http.get(`${PATH}${q.he_id}/`, { 'client-secret': secret }))) as V4Reply).request_status.code === 'REQUEST_COMPLETED', 30_000, 'completion')
  return done!
}
const hello = (word: string) => ({ lang: 'C', source: `#include <stdio.h>\nstatic const char pad[65536] = {1};\nint main(int argc, char **argv){ (void)argv; puts(pad[argc - 1] ? "${word}" : "no"); return 0; }\n` })
const entries = () => readdirSync(cacheDir).filter((n) => /^[0-9a-f]{64}$/.test(n)).length

describe('compile cache', { timeout: 120_000 }, () => {
  test('a resubmission of the same source is not compiled again, and says so; its verdict and output are the same', async () => {
    const first = await run(hello('alpha'))
    expect(first.result).not.toHaveProperty('compile_cached')
    expect(first.result.run_status.status).toBe('AC')
    const again = await run(hello('alpha'))
    expect(again.result.compile_cached).toBe(true)
    expect(again.result.run_status.status).toBe('AC')
    expect(await (await fetch(again.result.run_status.output!)).text()).toBe('alpha\n')
    // graded submissions use it too
    const graded = await run({ ...hello('alpha'), test_cases: [{ input: '', expected_output: 'alpha' }] })
    expect(graded.result.compile_cached).toBe(true)
    expect(graded.result.score).toEqual({ passed: 1, total: 1, points: 1, max_points: 1 })
  })

  test('another source is a miss; a compile error is never kept', async () => {
    expect((await run(hello('beta'))).result).not.toHaveProperty('compile_cached')
    const bad = { lang: 'C', source: 'int main(void){ return 0 }' }
    for (let i = 0; i < 2; i++) {
      const r = await run(bad)
      expect(r.result.run_status.status).toBe('CE')
      expect(r.result.compile_status).toMatch(/expected/)
      expect(r.result).not.toHaveProperty('compile_cached')
    }
  })

  test('beyond max_bytes the least recently used program is evicted', async () => {
    // alpha and beta are kept; using alpha makes beta the least recently used
    expect((await run(hello('alpha'))).result.compile_cached).toBe(true)
    await run(hello('gamma')) // a third program: beta goes
    expect(entries()).toBe(2)
    expect((await run(hello('alpha'))).result.compile_cached).toBe(true)
    expect((await run(hello('gamma'))).result.compile_cached).toBe(true)
    expect((await run(hello('beta'))).result, 'beta was evicted: compiled again').not.toHaveProperty('compile_cached')
  })
})
