// The web_link page in a real headless Chromium (Debian's chromium, driven by playwright-core): the stored
// source, language, status and output are readable, and hostile text stays text.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, startServer, type RunningServer, json } from '../testing/harness.ts'

let server: RunningServer
let browser: BrowserContext
let profile: string

beforeAll(async () => {
  server = await startServer()
  profile = mkdtempSync(join(tmpdir(), 'arbiter-chromium-'))
  // a fresh --user-data-dir: playwright takes it as the persistent context's directory
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  server?.cleanup()
  if (profile) rmSync(profile, { recursive: true, force: true })
})

test('web_link shows source, language, status and output; hostile text is not run', { timeout: 60_000 }, async () => {
  const secret = await server.createClient('web')
  const hostile = `<script>document.title='pwned'</script><img src=x onerror="alert(1)">`
  const source = `# ${hostile}\nprint(input())\nprint("a < b & c")`
  const r = await api(server.url).post('/code/run/', new URLSearchParams({ client_secret: secret, lang: 'PYTHON3', source, input: hostile }))
  const reply = await json(r)
  expect(reply.run_status.status).toBe('AC')
  expect(reply.web_link).toBe(`${server.url}/view/${reply.code_id}`)

  const page = await browser.newPage()
  const dialogs: string[] = []
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.dismiss()
  })
  const res = await page.goto(reply.web_link)
  expect(res?.status()).toBe(200)
  expect(await page.title()).not.toBe('pwned')
  expect(await page.locator('#language').innerText()).toMatch(/Python 3/)
  expect(await page.locator('#status').innerText()).toBe('AC')
  expect(await page.locator('#source').textContent()).toBe(source)
  expect(await page.locator('#output').textContent()).toBe(`${hostile}\na < b & c\n`)
  // the hostile markup is text, not elements
  expect(await page.locator('img').count()).toBe(0)
  expect(await page.locator('body script').count()).toBe(0)
  await page.waitForTimeout(200)
  expect(dialogs).toEqual([])

  // an unknown code is a plain 404 page
  const missing = await page.goto(`${server.url}/view/${'0'.repeat(32)}`)
  expect(missing?.status()).toBe(404)
  await page.close()
})
