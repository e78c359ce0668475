// Benchmark of grading: what a teacher's grader saves by sending one graded submission
// (compile once, each test in a fresh jail, judged by the server) instead of one plain v4 submission
// per test (a compile and a jail each) and comparing the outputs itself. The real server (real pool and
// jail) driven over loopback, completions taken from the REQUEST_COMPLETED callbacks.
//   (a) graded: N distinct sources × one submission against a stored problem of T tests (problem_id),
//       all submitted at once;
//   (b) plain:  N distinct sources × T plain submissions each (input = the test's input), all at once,
//       each output fetched from its URL and compared (significant lines) by this script, on a server
//       with the compile cache off: a grader's way without graded submissions, a compile and a jail per test;
//   (b') the same on the server of (a), compile cache on: the plain path as it is now (the cache gives it
//       compile-once too, for the second to tenth submission of a source).
// Every source carries this run's nonce, so no run finds another's programs in the compile cache.
// Then the per-test cost of a graded run: (time of a graded submission with 1+K tests − with 1 test) / K,
// sequentially, against the same binary run in the jail directly (bench-sandbox's way: openSandbox).
// Usage: npx tsx scripts/bench-grading.ts [--c 40] [--java 10] [--tests 10] [--reps 5] [--json]
import { execFileSync } from 'node:child_process'
import { chownSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { startReceiver, startServer } from '../src/testing/harness.ts'
import { lines } from '../src/grading/checkers.ts'
import { rootImagePath } from '../src/sandbox/root-image.ts'
import { openSandbox } from '../src/sandbox/run.ts'

const { values } = parseArgs({
  options: {
    c: { type: 'string', default: '40' },
    java: { type: 'string', default: '10' },
    tests: { type: 'string', default: '10' },
    reps: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
})
const TESTS = Number(values.tests)
const REPS = Number(values.reps)
const ROUNDS = Number(values.rounds)
const PATH = '/v4/partner/code-evaluation/submissions/'

// distinct sources (a comment and a constant differ), the same task: print the sum of the input's numbers
const NONCE = `${Date.now()}-${process.pid}`
const cSource = (i: number) => `/* submission ${i} of run ${NONCE} */
#include <stdio.h>
int main(void){ long long s = ${i} - ${i}, x; while (scanf("%lld", &x) == 1) s += x; printf("%lld\\n", s); return 0; }
`
const javaSource = (i: number) => `// submission ${i} of run ${NONCE}
import java.io.*; import java.util.*;
class Main { public static void main(String[] a) throws IOException {
  BufferedReader r = new BufferedReader(new InputStreamReader(System.in)); long s = ${i} - ${i}; String l;
  while ((l = r.readLine()) != null) for (String t : l.trim().split("\\\\s+")) if (!t.isEmpty()) s += Long.parseLong(t);
  System.out.println(s); } }
`
/** T tests of ~200 numbers each, with their sums. */
const tests = Array.from({ length: TESTS }, (_, t) => {
  const nums = Array.from({ length: 200 }, (_, k) => ((t + 1) * 7919 * (k + 3)) % 100003)
  return { input: nums.join(' ') + '\n', expected_output: `${nums.reduce((a, b) => a + b, 0)}\n` }
})

const server = await startServer({ configToml: '[limits]\nmax_time_sec = 10' })
// (b): the same server without the compile cache
const uncached = await startServer({ configToml: '[limits]\nmax_time_sec = 10\n[compile_cache]\nmax_bytes = 0' })
const receiver = await startReceiver()
const secret = await server.createClient('bench-grading')
const uncachedSecret = await uncached.createClient('bench-grading')
const done = new Map<string, { at: number; body: { result: { run_status: { status: string; output?: string }; score?: { passed: number } } } }>()
type Done = typeof done extends Map<string, infer D> ? D : never
/** Who waits for which he_id's completion (woken by the callback: polling would take CPU from the server). */
const waiting = new Map<string, (d: Done) => void>()
receiver.respond = (r) => {
  const body = JSON.parse(r.body)
  if (body.request_status?.code === 'REQUEST_COMPLETED') {
    done.set(body.he_id, { at: r.at, body })
    waiting.get(body.he_id)?.(done.get(body.he_id)!)
  }
  return 200
}

async function submit(body: Record<string, unknown>, to: { url: string; secret: string } = { url: server.url, secret }): Promise<string> {
  const r = await fetch(`${to.url}${PATH}`, {
    method: 'POST',
    headers: { 'client-secret': to.secret, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, callback: `${receiver.url}/done`, time_limit: 5 }),
  })
  const j = (await r.json()) as { he_id?: string; message?: string }
  if (!j.he_id) throw new Error(`submit: ${r.status} ${j.message}`)
  return j.he_id
}

function completion(publicId: string, timeoutMs = 1_800_000): Promise<Done> {
  const d = done.get(publicId)
  if (d) return Promise.resolve(d)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${publicId} never completed`)), timeoutMs)
    waiting.set(publicId, (d) => {
      clearTimeout(timer)
      waiting.delete(publicId)
      resolve(d)
    })
  })
}

/** The tests as a stored problem of this server (a grader uploads them once). */
async function createProblem(): Promise<string> {
  const r = await fetch(`${server.url}/v4/partner/code-evaluation/problems/`, {
    method: 'POST',
    headers: { 'client-secret': secret, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench ${NONCE}`, test_cases: tests }),
  })
  const j = (await r.json()) as { problem_id?: string; message?: string }
  if (!j.problem_id) throw new Error(`problem: ${r.status} ${j.message}`)
  return j.problem_id
}

/** (a) one graded submission per source; ms from the first submit to the last completion. */
async function graded(lang: string, sources: string[]) {
  const problem_id = await createProblem()
  const t0 = Date.now()
  const ids = await Promise.all(sources.map((source) => submit({ lang, source, problem_id })))
  const results = await Promise.all(ids.map((id) => completion(id)))
  const ms = Math.max(...results.map((r) => r.at)) - t0
  const passed = results.filter((r) => r.body.result.score?.passed === TESTS).length
  return { ms, passed }
}

/** (b) one plain submission per source and test; the grader fetches and compares each output. */
async function plain(lang: string, sources: string[], to?: { url: string; secret: string }) {
  const t0 = Date.now()
  const ids = await Promise.all(sources.flatMap((source) => tests.map((t) => submit({ lang, source, input: t.input }, to))))
  let passed = 0
  await Promise.all(
    ids.map(async (id, k) => {
      const r = await completion(id)
      if (r.body.result.run_status.status !== 'AC') return
      const out = await (await fetch(r.body.result.run_status.output!)).text()
      if (lines(tests[k % TESTS].expected_output, out).ok) passed++
    })
  )
  return { ms: Date.now() - t0, passed: passed / TESTS }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * Alone (sequentially): the marginal cost t of one more test in a graded submission, and the time of a
 * graded submission with one test (≈ the compile c + t + the API's own cost). The speed-up of (a) over
 * (b) is about T(c + t)/(c + T·t): what compiling once saves is the compile's share.
 */
async function perTest(lang: string, source: (i: number) => string, k: number) {
  let seq = 2000
  const once = async (n: number) => {
    const t0 = Date.now()
    const id = await submit({ lang, source: source(seq++), test_cases: Array.from({ length: n }, (_, i) => tests[i % TESTS]) })
    return (await completion(id)).at - t0
  }
  const one: number[] = []
  const many: number[] = []
  for (let i = 0; i < REPS; i++) {
    one.push(await once(1))
    many.push(await once(1 + k))
  }
  const t = (median(many) - median(one)) / k
  const oneTest = median(one)
  const compile = oneTest - t
  return { t, oneTest, ceiling: (TESTS * (compile + t)) / (compile + TESTS * t) }
}

/** The same program (compiled on the host) run in the jail directly, as bench-sandbox runs it. */
async function jailedRun(runs = 200) {
  const config = loadConfig()
  const scratch = join(config.paths.runs, `bench-grading-${process.pid}`)
  mkdirSync(scratch, { recursive: true })
  writeFileSync(join(scratch, 'sum.c'), cSource(0))
  execFileSync('gcc', ['-O2', '-o', join(scratch, 'sum'), join(scratch, 'sum.c')])
  const sb = openSandbox({ nsjail: config.paths.nsjail, supervisor: config.paths.supervisor, jailInit: config.paths.jail_init, runs: config.paths.runs }, `bench-grading-${process.pid}`)
  const root = await sb.root('trixie', rootImagePath(config.paths.toolchains, 'trixie'))
  const box = join(sb.slotDir, 'box')
  rmSync(box, { recursive: true, force: true })
  mkdirSync(box, { mode: 0o755 })
  copyFileSync(join(scratch, 'sum'), join(box, 'sum'))
  // the slot's own host uid: the jail's user owns its work directory
  const uid = await sb.jailUid()
  chownSync(box, uid, uid)
  const limits = { cpuTimeSec: 5, wallTimeSec: 12, memoryKb: 262144, processes: 64, openFiles: 64, fileSizeBytes: 1 << 20 }
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    const r = await sb.runStep({ root, argv: ['/work/sum'], env: { PATH: '/usr/bin:/bin' }, workDir: box, stdin: tests[i % TESTS].input, limits })
    times.push(performance.now() - t0)
    if (r.status !== 'ok' || r.stdout !== tests[i % TESTS].expected_output) throw new Error(`jailed run: ${r.status} ${r.stdout}`)
  }
  await sb.close()
  rmSync(scratch, { recursive: true, force: true })
  return median(times)
}

const rows = []
for (const [lang, n, source] of [['C', Number(values.c), cSource], ['JAVA', Number(values.java), javaSource]] as const) {
  if (!n) continue
  const sources = (from: number) => Array.from({ length: n }, (_, i) => source(from + i))
  // (a), (b) and (b') in turn, ROUNDS times, each with sources of its own: one pass of each was at the
  // mercy of this shared machine's moments (the same code measured 4.1x and 4.5x); medians of each
  const a = [], b = [], bc = []
  for (let round = 0; round < ROUNDS; round++) {
    const base = 10_000 * (round + 1)
    a.push(await graded(lang, sources(base)))
    b.push(await plain(lang, sources(base + 1000), { url: uncached.url, secret: uncachedSecret }))
    bc.push(await plain(lang, sources(base + 3000)))
  }
  const mid = (xs: { ms: number; passed: number }[]) => ({ ms: median(xs.map((x) => x.ms)), passed: Math.min(...xs.map((x) => x.passed)) })
  const [ma, mb, mbc] = [mid(a), mid(b), mid(bc)]
  rows.push({ lang, submissions: n, tests: TESTS, rounds: ROUNDS, gradedMs: ma.ms, gradedPassed: ma.passed, plainMs: mb.ms, plainPassed: mb.passed, speedup: mb.ms / ma.ms, cachedPlainMs: mbc.ms, cachedPlainPassed: mbc.passed, cachedSpeedup: mbc.ms / ma.ms, each: { graded: a.map((x) => x.ms), plain: b.map((x) => x.ms), cachedPlain: bc.map((x) => x.ms) } })
}
const costs = { C: await perTest('C', cSource, 20), JAVA: Number(values.java) ? await perTest('JAVA', javaSource, 10) : undefined }
const perTestMs = costs.C.t
const jailedMs = await jailedRun()
await receiver.close()
for (const s of [server, uncached]) {
  await s.stop()
  s.cleanup()
}

// graded against plain: C at least 5x (with prepared jails); Java's 6x cannot be met on this hardware (javac and a
// JVM start bound it to 5.6x even with no jail: docs/api/grading.md), so its row reports MISSED
const targets: Record<string, number> = { C: 5, JAVA: 6 }
if (values.json) {
  console.log(JSON.stringify({ rows, costs, perTestMs, jailedMs, ratio: perTestMs / jailedMs }, null, 2))
} else {
  console.log(`bench-grading: ${TESTS} tests per source, pool of the server's default size, all submitted at once; medians of ${ROUNDS} rounds of (a), (b), (b') in turn`)
  console.log("(b): plain, compile cache off (a compile and a jail per test); (b'): plain, compile cache on")
  console.log("lang  | sources | (a) graded (problem_id) | (b) plain + grader   | (b)/(a) | target        | (b') plain, cached   | (b')/(a)")
  console.log('------|---------|-------------------------|----------------------|---------|---------------|----------------------|---------')
  for (const r of rows) {
    const cell = (ms: number, passed: number) => `${ms} ms, ${passed}/${r.submissions}`.padEnd(20)
    console.log(
      `${r.lang.padEnd(5)} | ${String(r.submissions).padEnd(7)} | ${cell(r.gradedMs, r.gradedPassed).padEnd(23)} | ${cell(r.plainMs, r.plainPassed)} | ${`${r.speedup.toFixed(1)}x`.padEnd(7)} | ${`≥ ${targets[r.lang]}x ${r.speedup >= targets[r.lang] ? 'met' : 'MISSED'}`.padEnd(13)} | ${cell(r.cachedPlainMs, r.cachedPlainPassed)} | ${r.cachedSpeedup.toFixed(1)}x`
    )
  }
  for (const r of rows) console.log(`${r.lang}: each round, (a) ${r.each.graded.join(' / ')} ms, (b) ${r.each.plain.join(' / ')} ms, (b') ${r.each.cachedPlain.join(' / ')} ms`)
  for (const [lang, c] of Object.entries(costs)) {
    if (c) console.log(`${lang}: alone, a graded submission with 1 test ${c.oneTest.toFixed(0)} ms, each more test ${c.t.toFixed(1)} ms: compile ≈ ${(c.oneTest - c.t).toFixed(0)} ms, so (b)/(a) ≈ ${c.ceiling.toFixed(1)}x by T(c + t)/(c + T·t)`)
  }
  console.log(`per-test cost of a graded C run: ${perTestMs.toFixed(1)} ms (median of ${REPS}, marginal over 20 tests); the same binary jailed directly: ${jailedMs.toFixed(1)} ms; ratio ${(perTestMs / jailedMs).toFixed(2)}x (target ≤ 1.3x: ${perTestMs / jailedMs <= 1.3 ? 'met' : 'MISSED'})`)
}
