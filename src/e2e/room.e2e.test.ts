// The interview room in a real headless Chromium (Debian's chromium, driven by playwright-core) against the
// real server on loopback: the candidate and an interviewer open their links at once, share the editor,
// run code in the real sandbox, the interviewer leaves feedback and ends the interview, lands on
// feedback_redirect_url; then B4 shows the feedback and a loopback receiver got the signed report.
import { createHmac } from 'node:crypto'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { editorText, launchBrowser } from '../testing/browser.ts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startReceiver, waitUntil, type Receiver } from '../testing/harness.ts'
import { startServer, type Server } from '../testing/interview-harness.ts'

// what page.evaluate() callbacks use, in the browser (the project's tsconfig has no DOM library)
declare const document: unknown

const P = '/partner/service/interviews'

let s: Server
let browser: Browser
let receiver: Receiver
let thanks: HttpServer
let thanksUrl: string

beforeAll(async () => {
  s = await startServer({ outbox: { backoff_ms: 100, backoff_max_ms: 500 } })
  receiver = await startReceiver()
  // where the interviewer lands after ending the interview
  thanks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Thanks</title><h1>Feedback received</h1>'))
  await new Promise<void>((r) => thanks.listen(0, '127.0.0.1', r))
  thanksUrl = `http://127.0.0.1:${(thanks.address() as AddressInfo).port}/after-interview`
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await receiver?.close()
  await new Promise((r) => thanks?.close(r))
  await s?.stop()
})

/** Opens a link in its own browser context (its own cookie jar), failing the test on page errors. */
async function open(link: string): Promise<Page> {
  const context = await browser.newContext()
  const page = await context.newPage()
  page.on('pageerror', (e) => {
    throw e
  })
  page.on('dialog', (d) => void d.accept())
  await page.goto(link)
  await page.locator('#conn', { hasText: 'live' }).waitFor()
  return page
}

const valueOf = (page: Page, selector: string) => page.locator(selector).inputValue()
const codeOf = editorText
/** Replaces the editor's whole text, as a user selecting all and pasting would. */
async function setCode(page: Page, text: string) {
  await page.locator('#code .cm-content[contenteditable=true]').click()
  await page.keyboard.press('Control+A')
  await page.keyboard.insertText(text)
}

test('two participants share the editor, run code, feedback, end → redirect, B4 and the signed callback', { timeout: 180_000 }, async () => {
  const company = await s.cli('companies', 'create', '--name', 'Acme', '--credits', '5', '--json')
  const admin = await s.cli('users', 'create', '--company', String(company.id), '--email', 'boss@acme.test', '--super-admin', '--json')
  const { webhook_secret: secret } = await s.cli('companies', 'secret', '--company', String(company.id), '--json')
  expect(secret).toMatch(/^[0-9a-f]{64}$/)

  const created = await s.call('POST', `${P}/`, {
    ...admin,
    title: 'Backend <b>interview</b>',
    start_datetime: new Date(Date.now() - 60_000).toISOString(),
    candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com' },
    interviewers: [
      { full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test', feedback_redirect_url: thanksUrl },
      { full_name: 'Olga Other', email_id: 'olga@acme.test' },
    ],
    eval_params: ['Problem solving'],
    callback_url: `${receiver.url}/report`,
  })
  expect(created.status).toBe(201)
  const id: string = created.json.interview_id

  const [cand, ivan] = await Promise.all([open(created.json.candidate_interview_link), open(created.json.interviewer_interview_links['ivan@acme.test'])])
  // the token swapped for a cookie: the address bar holds the clean room URL
  expect(new URL(cand.url()).pathname).toBe(`/interviews/room/${id}`)
  expect(await cand.locator('#title').innerText()).toBe('Backend <b>interview</b>')
  expect(await cand.locator('#status').innerText()).toBe('ongoing')
  expect(await cand.locator('#people').innerText()).toMatch(/Cara Candidate[\s\S]*Ivan Interviewer[\s\S]*Olga Other/)
  // only interviewers see the criteria, the feedback form and the End button
  expect(await cand.locator('#feedback').count()).toBe(0)
  expect(await cand.locator('#end').count()).toBe(0)
  expect(await ivan.locator('#eval-params').innerText()).toBe('Problem solving')

  // the candidate types; the interviewer sees it
  const code = 'n = int(input())\nprint("hello", n * 2)\n'
  await setCode(cand, code)
  await waitUntil(async () => (await codeOf(ivan)) === code, 20_000, 'the code to reach the interviewer')
  // the interviewer types the input and runs it; both see the output of the real sandbox
  await ivan.locator('#stdin').fill('21')
  await waitUntil(async () => (await valueOf(cand, '#stdin')) === '21', 20_000, 'the input to reach the candidate')
  expect(await valueOf(ivan, '#lang')).toBe('PYTHON3')
  await ivan.locator('#run').click()
  for (const page of [ivan, cand]) {
    await page.locator('#stdout', { hasText: 'hello 42' }).waitFor()
    expect(await page.locator('#run-status').innerText()).toMatch(/^AC .* run by Ivan Interviewer/)
    // the run time in hundredths, not six decimals
    expect(await page.locator('#run-status').innerText()).toMatch(/ · \d+\.\d{2} s · /)
  }

  // the candidate edits and runs at once (before the edit's own save): the label does not stay "editing…"
  await cand.locator('#lang').selectOption('C')
  await setCode(cand, 'int main( {')
  await cand.locator('#run').click()
  for (const page of [cand, ivan]) await page.locator('#run-status', { hasText: /^CE/ }).waitFor()
  expect(await cand.locator('#sync').innerText()).toBe('saved')
  // a compile error shows the compiler's text, and no empty output box under it
  expect(await cand.locator('#compile').innerText()).toMatch(/error/)
  expect(await cand.locator('#stdout').isVisible()).toBe(false)
  // back to the working program for the rest
  await cand.locator('#lang').selectOption('PYTHON3')
  await setCode(cand, code)
  await waitUntil(async () => (await codeOf(ivan)) === code && (await valueOf(ivan, '#lang')) === 'PYTHON3', 20_000, 'the code back at the interviewer')

  // feedback: the overall result, two rating keys and the eval_param
  await ivan.locator('input[name=result][value=YES]').check()
  await ivan.locator('select[name="r:k:CODE_QUALITY"]').selectOption('4')
  await ivan.locator('textarea[name="c:k:CODE_QUALITY"]').fill('Readable')
  await ivan.locator('select[name="r:k:SOLUTION_EXECUTION"]').selectOption('5')
  await ivan.locator('select[name="r:p:0"]').selectOption('3')
  await ivan.locator('#feedback button[type=submit]').click()
  await ivan.locator('#fb-state', { hasText: 'Feedback saved' }).waitFor()

  // End interview (the confirm dialog is accepted) → feedback_redirect_url
  await Promise.all([ivan.waitForURL(thanksUrl), ivan.locator('#end').click()])
  expect(await ivan.locator('h1').innerText()).toBe('Feedback received')
  // the candidate's room turns read-only
  await cand.locator('#status', { hasText: 'completed' }).waitFor()
  expect(await cand.locator('#code .cm-content').getAttribute('contenteditable')).toBe('false')
  expect(await cand.locator('#run').isDisabled()).toBe(true)
  expect(await cand.locator('#sync').innerText()).toBe('read-only')
  // and the server takes no more edits of the document
  const afterEnd = await cand.evaluate(async () => {
    const boot = JSON.parse((document as unknown as { getElementById(id: string): { textContent: string } }).getElementById('boot').textContent)
    return (await fetch(boot.base + '/doc', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': boot.csrf }, body: '{"update":"AAA="}' })).status
  })
  expect(afterEnd).toBe(409)

  // B4: completed, Ivan's feedback on the 1–5 scale with its labels, Olga's all null
  const report = await s.call('POST', `${P}/report/`, { ...admin, interview_id: id })
  expect(report.status).toBe(200)
  expect(report.json.status).toBe('completed')
  const fb = report.json.interviewer_feedbacks
  expect(fb['olga@acme.test']).toEqual({ result: null, ratings: null, eval_params_ratings: null })
  expect(fb['ivan@acme.test'].result).toBe('YES')
  expect(fb['ivan@acme.test'].ratings.CODE_QUALITY).toEqual({ rating: '4', comment: 'Readable', verbose_name: 'Code quality', rating_message: 'Reusable and readable' })
  expect(fb['ivan@acme.test'].ratings.SOLUTION_EXECUTION).toEqual({
    rating: '5',
    comment: '',
    verbose_name: 'Solution execution',
    rating_message: 'Complete and efficient solution',
  })
  expect(fb['ivan@acme.test'].ratings.DEBUGGABILITY).toEqual({ rating: null, comment: null, verbose_name: 'Debuggability', rating_message: null })
  expect(fb['ivan@acme.test'].eval_params_ratings).toEqual({
    'Problem solving': { rating: '3', comment: '', verbose_name: 'Problem solving', rating_message: 'Average' },
  })

  // the receiver got the report once, signed with the company's secret
  await waitUntil(() => receiver.received.length >= 1, 30_000, 'the report callback')
  const [got] = receiver.received
  expect(got.path).toBe('/report')
  expect(got.headers['content-type']).toBe('application/json')
  const header = String(got.headers['he-signature'])
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)
  expect(m, header).not.toBeNull()
  expect(Math.abs(Number(m![1]) - Date.now() / 1000)).toBeLessThan(300)
  expect(m![2]).toBe(createHmac('sha256', secret).update(`${m![1]}.${got.body}`).digest('hex'))
  // the payload is the B4 body (with every interviewer's feedback) plus interview_id
  expect(JSON.parse(got.body)).toEqual({ ...report.json, interview_id: id })
  // the receiver logs a request before the server has read its answer: wait for the outbox to record it
  await waitUntil(() => s.sql<{ state: string }>(`select state from outbox where kind = 'interview_report'`)[0]?.state === 'delivered', 10_000, 'the delivery recorded')
  const deliveries = s.sql(`select id, state, attempts from outbox where kind = 'interview_report'`)
  expect(deliveries).toEqual([{ id: expect.any(Number), state: 'delivered', attempts: 1 }])
  expect(s.sql('select attempt, error from outbox_attempts where outbox_id = ?', deliveries[0].id)).toEqual([{ attempt: 1, error: null }])
  expect(receiver.received).toHaveLength(1)

  // after the end, the room refuses changes, even with a valid session and CSRF token
  const { csrf } = JSON.parse((await cand.locator('#boot').textContent())!) as { csrf: string }
  const late = await cand.context().request.post(`${s.base}/interviews/room/${id}/code`, {
    headers: { 'x-csrf-token': csrf },
    data: { code: 'x', language: 'PYTHON3', input: '' },
  })
  expect(late.status()).toBe(409)
  expect(await late.json()).toEqual({ error: 'RoomEnded', message: 'the interview has ended' })
})
