// Similarity reports end to end: real programs submitted to a problem through v4, a report asked for
// over the API and computed by the server's queue (Dolos in its child process): a disguised copy
// (identifiers renamed, functions reordered, comments changed) scores high, independent solutions low,
// a template is subtracted; every refusal in the v4 error shape; another client's ids 404; the callback;
// a report interrupted by a crash is run again; the page in Chromium; the CLI.
import { execa } from 'execa'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { launchBrowser } from '../testing/browser.ts'
import { api, json, startReceiver, startServer, waitUntil, type Receiver, type RunningServer } from '../testing/harness.ts'

const PROBLEMS = '/v4/partner/code-evaluation/problems/'
const SUBMISSIONS = '/v4/partner/code-evaluation/submissions/'
const SIMILARITY = '/v4/partner/code-evaluation/similarity/'
const ROOT = join(import.meta.dirname, '..', '..')

// ── the programs: sum of the primes below n ────────────────────────────────────────────────────────

const ORIGINAL = `# Sum of all primes below n.
def is_prime(n):
    """Trial division up to the square root."""
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


def primes_below(limit):
    result = []
    for k in range(limit):
        if is_prime(k):
            result.append(k)
    return result


def main():
    n = int(input())
    total = 0
    for p in primes_below(n):
        total += p
    print(total)  # <b>the answer</b>


main()
`

// the same program disguised: every name changed, functions in another order, comments rewritten
const DISGUISED = `def main():
    # read the bound
    bound = int(input())
    acc = 0
    for q in collect(bound):
        acc += q
    print(acc)


def collect(upper):
    # gather every prime number
    found = []
    for value in range(upper):
        if check(value):
            found.append(value)
    return found


def check(x):
    """Is x prime? Divide by everything small."""
    if x < 2:
        return False
    d = 2
    while d * d <= x:
        if x % d == 0:
            return False
        d += 1
    return True


main()
`

// the original with its comments reworded and a blank line dropped: a near-identical copy
const RETOUCHED = ORIGINAL.replace('# Sum of all primes below n.\n', '# adds up the primes under n\n')
  .replace('"""Trial division up to the square root."""', '"""Checks divisors up to sqrt(n)."""')
  .replace('\n\n\ndef main', '\n\ndef main')

const SIEVE = `import sys

n = int(sys.stdin.readline())
if n < 3:
    print(0)
else:
    sieve = bytearray([1]) * n
    sieve[0] = sieve[1] = 0
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = bytearray(len(range(p * p, n, p)))
    print(sum(i for i, flag in enumerate(sieve) if flag))
`

const FUNCTIONAL = `from itertools import count, takewhile
from functools import reduce


class Primes:
    def __init__(self):
        self.known = []

    def __iter__(self):
        for c in count(2):
            if all(c % k for k in takewhile(lambda k: k * k <= c, self.known)):
                self.known.append(c)
                yield c


limit = int(input().strip())
print(reduce(lambda a, b: a + b, takewhile(lambda p: p < limit, Primes()), 0))
`

const RECURSIVE = `import math
memo = {}

def smallest_factor(v, f=2):
    if f > math.isqrt(v):
        return v
    return f if v % f == 0 else smallest_factor(v, f + 1)

n = int(input())
s = 0
x = 2
while x < n:
    s = s + (x if smallest_factor(x) == x else 0)
    x = x + 1
print(s)
`

const JAVA = `import java.util.Scanner;
public class Main {
  public static void main(String[] a) {
    int n = new Scanner(System.in).nextInt();
    long s = 0;
    for (int i = 2; i < n; i++) { boolean p = true; for (int d = 2; d * d <= i; d++) if (i % d == 0) { p = false; break; } if (p) s += i; }
    System.out.println(s);
  }
}
`

// starter code every student got; two solutions that share only it
const TEMPLATE = `import sys


def read_grid():
    rows, cols = map(int, sys.stdin.readline().split())
    grid = []
    for _ in range(rows):
        line = sys.stdin.readline().split()
        grid.append([int(v) for v in line])
    return rows, cols, grid


def show(value):
    sys.stdout.write(str(value) + "\\n")
    sys.stdout.flush()


def solve(rows, cols, grid):
    # TODO: your code here
    return 0


if __name__ == "__main__":
    r, c, g = read_grid()
    show(solve(r, c, g))
`
const withSolution = (body: string) => TEMPLATE.replace('    # TODO: your code here\n    return 0\n', body)
const TEMPLATE_A = withSolution(`    best = None
    for i in range(rows):
        s = sum(grid[i])
        if best is None or s > best:
            best = s
    return best
`)
const TEMPLATE_B = withSolution(`    columns = [[grid[i][j] for i in range(rows)] for j in range(cols)]
    return max(map(min, columns)) if columns else -1
`)

// ── set-up ─────────────────────────────────────────────────────────────────────────────────────────

let server: RunningServer
let http: ReturnType<typeof api>
let alice: string
let bob: string
let problemId: string
let bobProblem: string
let receiver: Receiver
const he: Record<string, string> = {}
const tmp = mkdtempSync(join(tmpdir(), 'arbiter-similarity-e2e-'))

const post = async (path: string, secret: string, body: unknown) => {
  const r = await http.post(path, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' })
  return { status: r.status, body: await json(r) }
}
const submit = async (secret: string, lang: string, source: string, extra: Record<string, unknown> = {}) => {
  const r = await post(SUBMISSIONS, secret, { lang, source, input: '10', ...extra })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body.he_id as string
}
const report = async (secret: string, id: string) => json(await http.get(`${SIMILARITY}${id}/`, { 'client-secret': secret }))
const finished = async (secret: string, id: string) => {
  let r: { status: string } = { status: '' }
  await waitUntil(async () => ['completed', 'failed'].includes((r = await report(secret, id)).status), 120_000, `report ${id}`)
  return r as Awaited<ReturnType<typeof report>>
}
const key = (a: string, b: string) => [a, b].sort().join('|')
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const pairOf = (r: { pairs: { left: string; right: string }[] }, a: string, b: string): any => r.pairs.find((p) => key(p.left, p.right) === key(a, b))

beforeAll(async () => {
  receiver = await startReceiver()
  server = await startServer({ configToml: '[similarity]\nmax_submissions = 8\n[outbox]\nbackoff_ms = 100' })
  http = api(server.url)
  alice = await server.createClient('alice')
  bob = await server.createClient('bob')
  const tests = [{ input: '10', expected_output: '17' }]
  problemId = (await post(PROBLEMS, alice, { name: 'primes', test_cases: tests })).body.problem_id
  bobProblem = (await post(PROBLEMS, bob, { name: 'bob primes', test_cases: tests })).body.problem_id
  for (const [name, source] of Object.entries({ ORIGINAL, DISGUISED, SIEVE, FUNCTIONAL, RECURSIVE })) he[name] = await submit(alice, 'PYTHON3', source, { problem_id: problemId })
  he.JAVA = await submit(alice, 'JAVA', JAVA, { problem_id: problemId })
  he.RETOUCHED = await submit(alice, 'PYTHON3', RETOUCHED)
  he.TEMPLATE_A = await submit(alice, 'PYTHON3', TEMPLATE_A)
  he.TEMPLATE_B = await submit(alice, 'PYTHON3', TEMPLATE_B)
  he.BOB = await submit(bob, 'PYTHON3', ORIGINAL, { problem_id: bobProblem })
  he.BOB2 = await submit(bob, 'PYTHON3', SIEVE, { problem_id: bobProblem })
}, 120_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
  await receiver?.close()
  rmSync(tmp, { recursive: true, force: true })
})

describe('similarity reports', () => {
  let reportId: string
  let webLink: string

  test('a problem\'s python submissions: the disguised copy scores high, independent solutions low; the callback', { timeout: 150_000 }, async () => {
    const r = await post(SIMILARITY, alice, { problem_id: problemId, language: 'python', callback: `${receiver.url}/similarity` })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toMatchObject({ status: 'queued', submissions: 5, language: 'python' })
    reportId = r.body.report_id
    webLink = r.body.web_link
    expect(webLink).toMatch(new RegExp(`^${server.url}/similarity/[0-9a-f]{32}$`))
    const done = await finished(alice, reportId)
    expect(done.status, JSON.stringify(done)).toBe('completed')
    expect(done.progress).toBe(1)
    expect(done.submissions.map((s: { he_id: string }) => s.he_id).sort()).toEqual([he.ORIGINAL, he.DISGUISED, he.SIEVE, he.FUNCTIONAL, he.RECURSIVE].sort())
    // the histogram counts every pair: 5 submissions → 10
    expect(done.histogram.reduce((a: number, b: number) => a + b, 0)).toBe(10)
    const copy = pairOf(done, he.ORIGINAL!, he.DISGUISED!)
    expect(copy, JSON.stringify(done.pairs)).toBeDefined()
    expect(copy.similarity).toBeGreaterThanOrEqual(0.6)
    expect(done.pairs[0]).toEqual(copy)
    // the matching fragments cover the reordered functions: is_prime (lines 2–11) ↔ check (lines 20–29)
    expect(copy.fragments.length).toBeGreaterThanOrEqual(2)
    const isOriginalLeft = copy.left === he.ORIGINAL
    const origSide = copy.fragments.map((f: { left_lines: number[]; right_lines: number[] }) => (isOriginalLeft ? f.left_lines : f.right_lines))
    expect(origSide.some(([a, b]: number[]) => a! <= 5 && b! >= 9)).toBe(true)
    // independent solutions are below the default threshold (0.5), so not listed
    for (const [a, b] of [['ORIGINAL', 'SIEVE'], ['ORIGINAL', 'FUNCTIONAL'], ['SIEVE', 'RECURSIVE'], ['FUNCTIONAL', 'RECURSIVE'], ['DISGUISED', 'SIEVE']] as const)
      expect(pairOf(done, he[a]!, he[b]!), `${a}/${b}`).toBeUndefined()
    expect(done.pair_count).toBe(1)
    // the callback carries the finished report
    await waitUntil(() => receiver.received.some((x) => x.path === '/similarity'), 30_000, 'the callback')
    const cb = receiver.received.find((x) => x.path === '/similarity')!
    expect(cb.headers['x-arbiter-event']).toBe('similarity.completed')
    expect(JSON.parse(cb.body)).toMatchObject({ report_id: reportId, status: 'completed', pairs: [{ similarity: copy.similarity }] })
  })

  test('min_similarity 0 lists every pair, the independent ones low', { timeout: 150_000 }, async () => {
    const r = await post(SIMILARITY, alice, { problem_id: problemId, language: 'PYTHON3', min_similarity: 0 })
    const done = await finished(alice, r.body.report_id)
    const copy = pairOf(done, he.ORIGINAL!, he.DISGUISED!).similarity
    const others = done.pairs.filter((p: { left: string; right: string }) => key(p.left, p.right) !== key(he.ORIGINAL!, he.DISGUISED!))
    for (const p of others) expect(p.similarity, JSON.stringify(p)).toBeLessThan(0.35)
    expect(copy).toBeGreaterThan(0.6)
    // sorted, most similar first
    const sims = done.pairs.map((p: { similarity: number }) => p.similarity)
    expect(sims).toEqual([...sims].sort((a: number, b: number) => b - a))
  })

  test('the template is subtracted: two solutions sharing only the starter code', { timeout: 150_000 }, async () => {
    const without = await finished(alice, (await post(SIMILARITY, alice, { he_ids: [he.TEMPLATE_A, he.TEMPLATE_B], min_similarity: 0 })).body.report_id)
    const withT = await finished(alice, (await post(SIMILARITY, alice, { he_ids: `${he.TEMPLATE_A},${he.TEMPLATE_B}`, min_similarity: 0, template: TEMPLATE })).body.report_id)
    expect(without.pairs[0].similarity).toBeGreaterThan(0.5)
    expect(withT.pairs.length ? withT.pairs[0].similarity : 0).toBeLessThan(0.2)
  })

  test('refusals are clear 4xx in the v4 error shape', async () => {
    const refused = async (secret: string, body: unknown, status: number, code: string, words: RegExp) => {
      const r = await post(SIMILARITY, secret, body)
      expect(r.status, JSON.stringify(r.body)).toBe(status)
      expect(r.body.request_status).toMatchObject({ code: 'REQUEST_FAILED' })
      expect(r.body.message).toMatch(new RegExp(`^${code}: `))
      expect(r.body.message).toMatch(words)
      return r.body
    }
    // another client's problem and another client's submissions are unknown
    await refused(alice, { problem_id: bobProblem }, 404, 'NotFoundError', /no problem/)
    await refused(alice, { he_ids: [he.ORIGINAL, he.BOB] }, 404, 'NotFoundError', new RegExp(he.BOB!))
    await refused(alice, { he_ids: [he.ORIGINAL, 'no-such-id'] }, 404, 'NotFoundError', /no-such-id/)
    // mixed languages: the problem has python and java submissions
    const mixed = await refused(alice, { problem_id: problemId }, 400, 'InvalidArgumentError', /mixed languages: python \(5\), java \(1\)/)
    expect(mixed.errors).toMatchObject({ languages: 'python (5), java (1)' })
    await refused(alice, { he_ids: [he.ORIGINAL, he.JAVA] }, 400, 'InvalidArgumentError', /mixed languages/)
    // too many (max_submissions = 8 on this server), too few, both, neither, a language Dolos cannot parse
    const ids = [he.ORIGINAL, he.DISGUISED, he.SIEVE, he.FUNCTIONAL, he.RECURSIVE, he.TEMPLATE_A, he.TEMPLATE_B, he.JAVA, 'x']
    await refused(alice, { he_ids: ids }, 400, 'InvalidArgumentError', /too many submissions: 9, at most 8/)
    await refused(alice, { he_ids: [he.ORIGINAL] }, 400, 'InvalidArgumentError', /at least two/)
    await refused(alice, { problem_id: problemId, language: 'java' }, 400, 'InvalidArgumentError', /at least two java submissions; found 1/)
    await refused(alice, { problem_id: problemId, he_ids: [he.ORIGINAL] }, 400, 'InvalidArgumentError', /either problem_id or he_ids/)
    await refused(alice, {}, 400, 'ArgumentMissingError', /problem_id or he_ids is needed/)
    await refused(alice, { problem_id: problemId, language: 'haskell' }, 400, 'LanguageNotSupportedError', /python/)
    await refused(alice, { problem_id: problemId, min_similarity: 2 }, 400, 'InvalidArgumentError', /min_similarity/)
    // without credentials, and another client's report
    expect((await http.post(SIMILARITY, JSON.stringify({ problem_id: problemId }), { 'content-type': 'application/json' })).status).toBe(401)
    const other = await http.get(`${SIMILARITY}${reportId}/`, { 'client-secret': bob })
    expect(other.status).toBe(404)
    expect((await json(other)).message).toMatch(/^NotFoundError: /)
    expect((await http.get(`${SIMILARITY}${reportId}/`, { 'client-secret': alice })).status).toBe(200)
  })

  test('the page in Chromium: pairs ranked, histogram, the pair side by side with highlighted fragments, source escaped, no outside requests', { timeout: 120_000 }, async () => {
    const res = await fetch(webLink)
    expect(res.status).toBe(200)
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toMatch(/default-src 'none'/)
    expect(csp).not.toMatch(/unsafe-inline/)
    expect((await fetch(`${server.url}/similarity/${'0'.repeat(32)}`)).status).toBe(404)
    let browser: Browser | undefined
    try {
      browser = await launchBrowser()
      const page = await browser.newPage()
      const requests: string[] = []
      const violations: string[] = []
      page.on('request', (r) => requests.push(r.url()))
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
      })
      await page.goto(webLink)
      await expect.poll(() => page.locator('#pairs tr').count()).toBe(2) // header + the one pair
      expect(await page.locator('#histogram rect').count()).toBe(20)
      expect(await page.locator('#histogram rect.hot').count()).toBe(1)
      await page.locator('#pairs a', { hasText: 'side by side' }).first().click()
      await page.waitForSelector('#fragments li')
      expect(await page.locator('#left tr.f0').count()).toBeGreaterThan(3)
      expect(await page.locator('#right tr.f0').count()).toBeGreaterThan(3)
      // the highlight is visible: a fragment's lines have a background colour
      const bg = await page.locator('#left tr.f0').first().evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor)
      expect(bg).not.toBe('rgba(0, 0, 0, 0)')
      // the source is shown as text: "<b>" is characters on the page, not an element
      const original = (await page.locator('#left h2').textContent()) === he.ORIGINAL ? '#left' : '#right'
      expect(await page.locator(`${original} .src`).textContent()).toContain('# <b>the answer</b>')
      expect(await page.locator(`${original} .src b`).count()).toBe(0)
      // a report listing several pairs (three copies of one program, two solutions sharing the
      // template): in rank order, most similar first, the retouched copy on top; the histogram counts
      // every pair (6 submissions → 15), its bars' titles say how many
      const many = await post(SIMILARITY, alice, { he_ids: [he.ORIGINAL, he.DISGUISED, he.RETOUCHED, he.TEMPLATE_A, he.TEMPLATE_B, he.SIEVE], min_similarity: 0 })
      const all = await finished(alice, many.body.report_id)
      expect(all.pairs.length, JSON.stringify(all.pairs)).toBeGreaterThanOrEqual(4)
      const listed = all.pairs.map((p: { left: string; right: string }) => key(p.left, p.right))
      for (const [a, b] of [['ORIGINAL', 'RETOUCHED'], ['ORIGINAL', 'DISGUISED'], ['DISGUISED', 'RETOUCHED'], ['TEMPLATE_A', 'TEMPLATE_B']] as const) expect(listed).toContain(key(he[a]!, he[b]!))
      await page.goto(many.body.web_link)
      await expect.poll(() => page.locator('#pairs tr').count()).toBe(all.pairs.length + 1)
      expect(await page.locator('#pairs tr td:first-child').allTextContents()).toEqual(all.pairs.map((_: unknown, i: number) => String(i + 1)))
      const shown = (await page.locator('#pairs td.sim').allTextContents()).map((t) => Number.parseFloat(t))
      expect(shown).toEqual(all.pairs.map((p: { similarity: number }) => Number((p.similarity * 100).toFixed(1))))
      expect(shown).toEqual([...shown].sort((a, b) => b - a))
      expect(shown[0]).toBeGreaterThan(shown.at(-1)!)
      const first = await page.locator('#pairs tr:nth-child(2) td').allTextContents()
      expect(key(first[1]!, first[2]!)).toBe(key(he.ORIGINAL!, he.RETOUCHED!))
      const counts = (await page.locator('#histogram rect title').allTextContents()).map((t) => Number(/: (\d+) pairs$/.exec(t)![1]))
      expect(counts).toEqual(all.histogram)
      expect(counts.reduce((a, b) => a + b, 0)).toBe(15)
      expect(requests.every((u) => u.startsWith(server.url))).toBe(true)
      expect(violations).toEqual([])
    } finally {
      await browser?.close()
    }
  })

  test('a report interrupted by a crash is run again after the restart, never stuck running', { timeout: 180_000 }, async () => {
    const r = await post(SIMILARITY, alice, { problem_id: problemId, language: 'python', min_similarity: 0 })
    const id = r.body.report_id
    await waitUntil(() => server.query<{ state: string }>('select state from similarity_reports where public_id = ?', id)[0]?.state === 'running', 30_000, 'running')
    await server.kill()
    expect(server.query<{ state: string }>('select state from similarity_reports where public_id = ?', id)[0]?.state).toBe('running')
    await server.restart()
    const done = await finished(alice, id)
    expect(done.status).toBe('completed')
    expect(server.query<{ attempt: number }>('select attempt from similarity_reports where public_id = ?', id)[0]?.attempt).toBe(2)
    expect(pairOf(done, he.ORIGINAL!, he.DISGUISED!).similarity).toBeGreaterThan(0.6)
  })

  test('cli similarity: top pairs on stdout, --json the full report, refusals on stderr', { timeout: 150_000 }, async () => {
    const env = { ...process.env, ARBITER_DATA: server.dataDir }
    const cli = (args: string[]) => execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'similarity', ...args], { cwd: ROOT, env, reject: false })
    const text = await cli(['--client', 'alice', '--problem', problemId, '--language', 'python'])
    expect(text.exitCode, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^completed · python · 5 submissions · 1 pairs at or above 50 %/)
    expect(text.stdout).toContain(he.ORIGINAL)
    expect(text.stdout).toContain(he.DISGUISED)
    expect(text.stdout).toMatch(/\/similarity\/[0-9a-f]{32}$/)
    // no terminal: no progress lines mixed into stderr
    expect(text.stderr).toBe('')
    // on a terminal (a pseudo-terminal from util-linux script): the progress, each line overwriting the
    // last, then cleared before the table
    const tty = await execa('script', ['-qec', `${process.execPath} --import tsx src/cli.ts similarity --client alice --problem ${problemId} --language python`, '/dev/null'], {
      cwd: ROOT,
      env,
      stdin: 'ignore',
      reject: false,
    })
    expect(tty.exitCode, tty.stdout).toBe(0)
    const progress = [...tty.stdout.matchAll(/\r\x1b\[K(\w+) (\d+) %/g)].map((m) => `${m[1]} ${m[2]} %`)
    expect(progress, JSON.stringify(tty.stdout)).toEqual(expect.arrayContaining(['fingerprinting 60 %', 'comparing 70 %', 'fragments 85 %']))
    expect(tty.stdout).toMatch(/\r\x1b\[Kcompleted · python · 5 submissions · 1 pairs at or above 50 %/)
    const js = await cli(['--client', 'alice', '--he-ids', `${he.ORIGINAL},${he.DISGUISED},${he.SIEVE}`, '--min', '0', '--json'])
    expect(js.exitCode, js.stderr).toBe(0)
    const out = JSON.parse(js.stdout)
    expect(out).toMatchObject({ status: 'completed', language: 'python', min_similarity: 0 })
    // pairs that share nothing at all are never listed, whatever the threshold
    expect(out.pairs.length).toBeGreaterThanOrEqual(1)
    expect(out.histogram.reduce((a: number, b: number) => a + b, 0)).toBe(3)
    expect(key(out.pairs[0].left, out.pairs[0].right)).toBe(key(he.ORIGINAL!, he.DISGUISED!))
    // the report is stored: the API shows it to its client
    expect((await report(alice, out.report_id)).status).toBe('completed')
    writeFileSync(join(tmp, 'template.py'), TEMPLATE)
    const templated = await cli(['--client', 'alice', '--he-ids', `${he.TEMPLATE_A},${he.TEMPLATE_B}`, '--min', '0', '--template', join(tmp, 'template.py'), '--json'])
    expect(JSON.parse(templated.stdout).pairs[0]?.similarity ?? 0).toBeLessThan(0.2)
    const refused = await cli(['--client', 'alice', '--problem', problemId])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toMatch(/mixed languages/)
    expect((await cli(['--client', 'nobody', '--problem', problemId])).stderr).toMatch(/no client nobody/)
  })
})
