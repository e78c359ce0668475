// The admin's dashboard in a real headless Chromium: sign-in with a token from `cli admin create`, every
// panel with real data (a jailed submission, a doctor self-test, a client, a failed callback, an
// interview), creating and revoking a client, retrying a failed delivery; CSRF and revocation hold.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser } from '../testing/browser.ts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startServer, type Server } from '../testing/interview-harness.ts'

let s: Server
let browser: Browser

beforeAll(async () => {
  // one attempt per callback, so a refused one is "failed" at once
  s = await startServer({ outbox: { max_attempts: 1 } })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

const text = async (page: Page, sel: string) => (await page.textContent(sel)) ?? ''

test('sign in, see every panel, create and revoke a client, retry a failed delivery', { timeout: 240_000 }, async () => {
  const { token } = await s.cli('admin', 'create', '--name', 'ada')
  expect(token).toMatch(/^adm_/)
  // data for each panel
  const { client_secret: secret } = await s.cli('clients', 'create', '--name', 'grader-1', '--quota', '100')
  const run = await s.call('POST', '/code/run/', `client_secret=${secret}&lang=PYTHON3&source=print(6*7)`, { 'content-type': 'application/x-www-form-urlencoded' })
  expect(run.json.run_status.status).toBe('AC')
  const v4 = await s.call('POST', '/v4/partner/code-evaluation/submissions/', { lang: 'PYTHON3', source: 'print(1)', callback: 'http://127.0.0.1:9/refused' }, { 'client-secret': secret })
  expect(v4.status).toBe(200)
  await s.cli('doctor', '--lang', 'PYTHON3')
  const company = await s.cli('companies', 'create', '--name', 'Acme', '--credits', '5', '--json')
  const user = await s.cli('users', 'create', '--company', String(company.id), '--email', 'boss@acme.test', '--super-admin', '--json')
  const interview = await s.call('POST', '/partner/service/interviews/', {
    ...user,
    title: 'Backend <b>screen</b>',
    start_datetime: new Date(Date.now() + 3600_000).toISOString(),
    candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com' },
    interviewers: [{ full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test' }],
    eval_params: ['Problem solving'],
  })
  expect(interview.status).toBe(201)
  for (let i = 0; i < 200 && !s.sql(`select 1 from outbox where kind = 'callback' and state = 'failed'`).length; i++) await new Promise((r) => setTimeout(r, 100))
  expect(s.sql(`select 1 from outbox where kind = 'callback' and state = 'failed'`).length).toBeGreaterThan(0)

  const ctx = await browser.newContext()
  const page = await ctx.newPage()
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(String(e)))
  // script errors and CSP violations (the refused sign-in's 401 and the favicon's 404 are expected)
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()))

  // sign-in: a wrong token is refused, the right one opens the dashboard
  await page.goto(`${s.base}/admin`)
  await page.fill('#token', 'adm_wrong')
  await page.click('#sign-in')
  expect(await text(page, '#error')).toContain('Unknown or revoked')
  await page.fill('#token', token)
  await page.click('#sign-in')
  await page.waitForSelector('#live')

  // queue and pool, live: the numbers come from /admin/live every 2 s
  expect(await text(page, '#live-size')).toBe('2')
  const live = await page.waitForResponse((r) => r.url().endsWith('/admin/live'), { timeout: 10_000 })
  expect(live.status()).toBe(200)
  // recent submissions, linked to their web_link pages
  const link = page.locator('#recent a').first()
  expect(await link.getAttribute('href')).toMatch(/\/view\/[0-9a-f]+$/)
  expect(await text(page, '#recent')).toContain('AC')
  // languages with versions and the last self-test
  const python = page.locator('#languages tr', { hasText: 'PYTHON3' }).first()
  expect(await python.textContent()).toMatch(/3\.\d+.*passed/)
  // clients with quota use
  expect(await page.locator('#clients tr', { hasText: 'grader-1' }).textContent()).toContain('2 / 100')
  // upcoming interviews, escaped
  expect(await text(page, '#interviews')).toContain('Backend <b>screen</b>')
  expect(await text(page, '#interviews')).toContain('upcoming')

  // create a client: its secret shown once, on the page (never in a URL)
  await page.fill('#client-name', 'grader-2')
  await page.fill('#client-quota', '5')
  await page.click('#new-client button')
  const flash = await text(page, '#flash')
  const created = /client_secret \(shown only now\): ([0-9a-f]{40})/.exec(flash)?.[1]
  expect(created).toBeTruthy()
  expect(page.url()).not.toContain(created!)
  const ok = await s.call('POST', '/code/compile/', `client_secret=${created}&lang=PYTHON3&source=print(1)`, { 'content-type': 'application/x-www-form-urlencoded' })
  expect(ok.status).toBe(200)
  // revoke it: the secret stops working
  await page.locator('#clients tr', { hasText: 'grader-2' }).locator('button.revoke').click()
  expect(await text(page, '#flash')).toContain('grader-2 revoked')
  const gone = await s.call('POST', '/code/compile/', `client_secret=${created}&lang=PYTHON3&source=print(1)`, { 'content-type': 'application/x-www-form-urlencoded' })
  expect(gone.json.message).toContain('UnregisteredClientError')

  // retry a failed delivery
  const row = page.locator('#outbox tr', { hasText: '127.0.0.1:9' }).first()
  const failedId = Number(await row.locator('td').first().textContent())
  expect(s.sql<{ state: string }>('select state from outbox where id = ?', failedId)[0].state).toBe('failed')
  await row.locator('button.retry').click()
  expect(await text(page, '#flash')).toContain(`#${failedId}`)
  const attempts = () => s.sql<{ n: number }>('select count(*) n from outbox_attempts where outbox_id = ?', failedId)[0].n
  for (let i = 0; i < 100 && attempts() < 2; i++) await new Promise((r) => setTimeout(r, 100))
  expect(attempts()).toBeGreaterThanOrEqual(2)
  await page.screenshot({ path: `${process.env.ARBITER_SCREENSHOTS ?? s.dataDir}/admin.png`, fullPage: true })
  expect(problems).toEqual([])

  // a form without the session's CSRF token is refused, even with the cookie
  const forged = await page.evaluate(async () => (await fetch('/admin/clients', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=evil&csrf=nope' })).status)
  expect(forged).toBe(403)
  expect(s.sql(`select 1 from clients where name = 'evil'`)).toEqual([])

  // a revoked admin is signed out at once
  await s.cli('admin', 'revoke', 'ada')
  await page.goto(`${s.base}/admin`)
  expect(await page.locator('#token').count()).toBe(1)
  await ctx.close()
})

test('a cross-site page cannot sign the admin out: its auto-submitted form to /admin/logout leaves the session and its cookie', { timeout: 120_000 }, async () => {
  const { token } = await s.cli('admin', 'create', '--name', 'bea')
  // another site (localhost is not the same site as 127.0.0.1) with a form posting to the sign-out
  const evil = createServer((_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><form id="f" method="post" action="${s.base}/admin/logout"><input name="x" value="1"></form><script>document.getElementById('f').submit()</script>`)
  )
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r))
  const evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`
  const ctx = await browser.newContext()
  try {
    const page = await ctx.newPage()
    await page.goto(`${s.base}/admin`)
    await page.fill('#token', token)
    await page.click('#sign-in')
    await page.waitForSelector('#live')
    expect(new URL(s.base).hostname).not.toBe('localhost')
    // the admin visits the other site: its form posts to the sign-out and the browser follows the answer
    await page.goto(evilUrl)
    await page.waitForURL(`${s.base}/admin`, { timeout: 10_000 })
    // the admin comes back: still signed in (the cookie was neither sent cross-site nor deleted)
    await page.goto(`${s.base}/admin`)
    expect(await page.locator('#live').count()).toBe(1)
    expect((await ctx.cookies(`${s.base}/admin`)).map((c) => c.name)).toContain('arbiter_admin')
    // and their own sign-out still works
    await page.click('#sign-out')
    await page.waitForSelector('#token')
    expect((await ctx.cookies(`${s.base}/admin`)).map((c) => c.name)).not.toContain('arbiter_admin')
  } finally {
    await ctx.close()
    evil.closeAllConnections()
    await new Promise((r) => evil.close(r))
  }
})

test('without a session nothing of the dashboard is served', async () => {
  for (const path of ['/admin/live']) expect((await fetch(`${s.base}${path}`)).status).toBe(401)
  const r = await fetch(`${s.base}/admin/clients`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x&csrf=y' })
  expect(r.status).toBe(401)
  const page = await (await fetch(`${s.base}/admin`)).text()
  expect(page).toContain('id="token"')
  expect(page).not.toContain('grader-1')
})
