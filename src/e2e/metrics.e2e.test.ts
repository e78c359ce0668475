// /metrics through the real server: closed from the first start, opened by the token the CLI shows.
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startServer, type RunningServer } from '../testing/harness.ts'

let server: RunningServer

beforeAll(async () => {
  server = await startServer()
}, 120_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

test('a fresh server answers /metrics 401 to whoever reaches the port; the token `cli metrics token` shows opens it', async () => {
  const anonymous = await fetch(`${server.url}/metrics`)
  expect(anonymous.status).toBe(401)
  expect(await anonymous.text()).not.toMatch(/arbiter_/)
  const { token, open } = (await server.cli(['metrics', 'token'])) as { token: string; open: boolean }
  expect(open).toBe(false)
  expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer not-it' } })).status).toBe(401)
  const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
  expect(scraped.status).toBe(200)
  expect(await scraped.text()).toMatch(/^arbiter_queue_depth \d+$/m)
})
