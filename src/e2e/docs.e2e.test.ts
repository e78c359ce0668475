// GET /docs in a real headless Chromium: Swagger UI, served by this server alone, renders the OpenAPI
// document within the page's Content-Security-Policy (a CSP violation or a request to another origin fails),
// and its links open the API pages of docs/, served by this server too.
import type { Browser } from 'playwright-core'
import { launchBrowser } from '../testing/browser.ts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startServer, type RunningServer } from '../testing/harness.ts'

let server: RunningServer
let browser: Browser

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  server?.cleanup()
})

test('the docs page renders every documented path, from this origin only, with no CSP violation', async () => {
  const page = await browser.newPage()
  const foreign: string[] = []
  const problems: string[] = []
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) foreign.push(r.url())
  })
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text())
  })
  page.on('pageerror', (e) => problems.push(String(e)))
  const r = await page.goto(`${server.url}/docs`)
  expect(r?.headers()['content-security-policy']).toMatch(/script-src 'self'/)
  await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 })
  const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')))
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> }
  expect(new Set(paths)).toEqual(new Set(Object.keys(doc.paths)))
  expect(await page.textContent('.title')).toContain('Arbiter')
  // an operation opens and shows its schema
  await page.click('.opblock-summary-path[data-path="/code/run/"]')
  await page.waitForSelector('.opblock-body', { timeout: 10_000 })
  await page.screenshot({ path: `${process.env.ARBITER_SCREENSHOTS ?? server.dataDir}/docs.png` })
  expect(foreign).toEqual([])
  expect(problems).toEqual([])
  await page.close()
}, 120_000)

test('only the viewer\'s own files are served', async () => {
  for (const f of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) expect((await fetch(`${server.url}/docs/assets/${f}`)).status).toBe(200)
  for (const f of ['package.json', '..%2Fpackage.json', 'index.html', 'absolute-path.js']) expect((await fetch(`${server.url}/docs/assets/${f}`)).status).toBe(404)
})

test("the overview's link to an API page opens that page of docs/, served here; its links to other pages work", async () => {
  const page = await browser.newPage()
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text())
  })
  page.on('pageerror', (e) => problems.push(String(e)))
  await page.goto(`${server.url}/docs`)
  await page.waitForSelector('.info a[href="/docs/pages/api/jobe.md"]', { timeout: 30_000 })
  // Swagger UI opens the overview's links in a new tab
  const [jobe] = await Promise.all([page.context().waitForEvent('page'), page.click('.info a[href="/docs/pages/api/jobe.md"]')])
  jobe.on('pageerror', (e) => problems.push(String(e)))
  await jobe.waitForLoadState()
  expect(jobe.url()).toBe(`${server.url}/docs/pages/api/jobe.md`)
  expect(await jobe.textContent('h1')).toMatch(/Jobe/)
  // a relative link of the page (to the scheduling page of the admins' docs) leads to that page
  await Promise.all([jobe.waitForURL(/\/docs\/pages\/admin\/scheduling\.md$/), jobe.click('a[href="../admin/scheduling.md"]')])
  expect(await jobe.textContent('h1')).toMatch(/Scheduling/)
  expect(problems).toEqual([])
  await page.close()
  await jobe.close()
}, 120_000)
