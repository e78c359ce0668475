// A package's verify through the v4 API on an in-memory database with a fake pool: each run is a
// queued submission of the client's, progress grows one run at a time, the table is the one verifyPackage
// gives with the same runs (the CLI's), a language not offered is listed as such, another client sees
// nothing, a client's second verify waits behind its first (a sixth is refused), and a verify the server
// stopped in resumes without running again what had run.
import { eq } from 'drizzle-orm'
import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.ts'
import type { Job, JobResult, TestOutcome } from '../jobs/types.ts'
import { importPackage } from '../packages/import.ts'
import { readPackageZip } from '../packages/package-files.ts'
import { packageRunOptions, submissionFiles } from '../packages/package-runs.ts'
import { verifyPackage } from '../packages/verify.ts'
import { VerifyReply } from '../hackerearth-v4/verify-replies.ts'
import { createFakePool } from '../testing/fake-pool.ts'
import { addClient, createTestDeps, json, testConfig, until, type TestDeps } from '../testing/evaluation.ts'
import { makeZip } from '../testing/zips.ts'
import { packageVerifies, problems, submissions } from '../storage/schema.ts'
import { MAX_WAITING_VERIFIES, resumeVerifies, submissionOf, VERIFY_API } from './package-verifies.ts'
import { BUILD_ARGV, RUN_ARGV } from '../grading/build-run.ts'

const PROBLEMS = '/v4/partner/code-evaluation/problems'
const outcome = (status: TestOutcome['status'], timeUsedSec = 0.1): TestOutcome => ({ status, statusDetail: 'NA', timeUsedSec, memoryUsedKb: 1, exitCode: 0, signal: 'OTHER', checkerMessage: status === 'WA' ? 'wrong line 1' : '', earned: status === 'AC' ? 1 : 0, stdout: '' })

/** Each source's last line says what its run gives: "AC 0.3" (every test's status, CPU seconds), or "CE". */
function behave(job: Job): JobResult {
  const [status, time, score] = job.source.trim().split('\n').at(-1)!.split(' ')
  if (status === 'CE') return { compile: { ok: false, message: 'e.c:1: error: expected declaration\nmore' } }
  // "AC 0.1 7": each test's validator wrote 7 to score.txt
  return { compile: { ok: true, message: '' }, tests: (job.tests ?? []).map(() => ({ ...outcome(status as TestOutcome['status'], Number(time ?? 0.1)), ...(score && { score: Number(score) }) })) }
}

const PACKAGE: [string, string][] = [
  ['problem.yaml', 'name: Echo\n'],
  ['data/sample/1.in', '1\n'],
  ['data/sample/1.ans', '1\n'],
  ['data/secret/2.in', '2\n'],
  ['data/secret/2.ans', '2\n'],
  ['submissions/accepted/a.py', 'AC 0.3'],
  ['submissions/accepted/b.c', 'AC 0.5'],
  ['submissions/wrong_answer/w.py', 'WA'],
  ['submissions/time_limit_exceeded/t.py', 'TLE 9'],
  ['submissions/compiler_error/e.c', 'CE'],
  ['submissions/accepted/r.rs', 'AC'],
]

let deps: TestDeps
afterEach(() => deps?.stop())

function setup(config = testConfig()) {
  deps = createTestDeps({ config, pool: createFakePool({ behave }) })
  const app = createApp(deps)
  const secret = addClient(deps, { name: 'one' })
  const other = addClient(deps, { name: 'two' })
  return { app, secret, other }
}

async function importZip(app: ReturnType<typeof createApp>, secret: string, zip: Buffer) {
  const form = new FormData()
  form.set('package', new Blob([zip]), 'echo.zip')
  const r = await app.request(`${PROBLEMS}/`, { method: 'POST', headers: { 'client-secret': secret }, body: form })
  expect(r.status).toBe(200)
  return json(r)
}

const verifyOf = async (app: ReturnType<typeof createApp>, secret: string, problemId: string) => app.request(`${PROBLEMS}/${problemId}/verify/`, { method: 'POST', headers: { 'client-secret': secret } })
const statusOf = async (app: ReturnType<typeof createApp>, secret: string, url: string) => app.request(new URL(url).pathname, { headers: { 'client-secret': secret } })

// roomy: this 2-core machine runs other tests beside these
describe('POST …/problems/<id>/verify', { timeout: 120_000 }, () => {
  test("every submission runs as the client's queued submission, done grows run by run, and the table is verifyPackage's (the CLI's)", async () => {
    const { app, secret } = setup()
    const zip = makeZip(PACKAGE)
    const imported = await importZip(app, secret, zip)
    expect(imported.package.kept).toBe(true)
    const before = deps.pool.jobs.length
    deps.pool.hold()
    const r = await verifyOf(app, secret, imported.problem_id)
    expect(r.status).toBe(202)
    const accepted = VerifyReply.parse(await json(r))
    expect(accepted).toMatchObject({ problem_id: imported.problem_id, done: 0, passed: null })
    expect(accepted.status_url).toBe(`https://judge.example.com${PROBLEMS}/${imported.problem_id}/verify/${accepted.verify_id}/`)
    // five runs in offered languages (the Rust one is not offered here): one at a time, the progress after each
    const seen: number[] = []
    for (let i = 1; i <= 5; i++) {
      await until(() => deps.pool.jobs.length === before + i, 30_000)
      const s = VerifyReply.parse(await json(await statusOf(app, secret, accepted.status_url)))
      expect(s.state).toBe('running')
      expect(s.total).toBe(5)
      seen.push(s.done)
      deps.pool.release()
      deps.pool.hold()
    }
    deps.pool.release()
    expect(seen).toEqual([0, 1, 2, 3, 4])
    // no time limit given: the accepted ones first, for it, at limits.max_time_sec
    expect(deps.pool.jobs.slice(before, before + 2).map((j) => j.timeLimitSec)).toEqual([5, 5])
    let done: VerifyReply | undefined
    for (let i = 0; i < 1500 && done?.state !== 'done'; i++) {
      done = VerifyReply.parse(await json(await statusOf(app, secret, accepted.status_url)))
      if (done.state !== 'done') await new Promise((r) => setTimeout(r, 20))
    }
    expect(done).toMatchObject({ state: 'done', stage: 'done', done: 5, total: 5, passed: true, failure: null })
    expect(done!.time_limit).toMatchObject({ seconds: 3 })
    // each run was one of the client's submissions, of the verify's own protocol, with the package's grading
    const runs = deps.db.select().from(submissions).where(eq(submissions.api, VERIFY_API)).all()
    expect(runs.length).toBe(5)
    expect(runs.every((s) => s.gradingJson && s.state === 'completed')).toBe(true)
    // the same package verified as `problems verify` does, with the same runs, gives the same table
    const pkg = await readPackageZip(zip, { maxFiles: 1000, fileBytes: 1 << 20, totalBytes: 1 << 24 })
    const cliImport = importPackage(pkg, { fallbackName: 'echo', maxTests: 100, verifyOnly: true })
    const direct: Job[] = []
    const cli = await verifyPackage(cliImport, submissionFiles(pkg.files), packageRunOptions(deps.config, deps.languages, cliImport, false, async (job) => (direct.push(job), behave(job))))
    // and the worker got, through the queue, the very jobs verify asks for (only the compile cache's scope added)
    const withoutScope = ({ cacheScope: _scope, ...job }: Job) => job
    expect(deps.pool.jobs.slice(before).map(withoutScope)).toEqual(direct)
    expect(done!.rows.map((r) => [r.file, r.expected, r.got, r.time, r.result, r.note])).toEqual(cli.rows.map((r) => [r.file, r.expected, r.got ?? null, r.time ?? null, r.outcome, r.note ?? null]))
    expect(done!.time_limit!.seconds).toBe(cli.timeLimitSec)
    const byFile = Object.fromEntries(done!.rows.map((r) => [r.file, [r.got, r.result]]))
    expect(byFile).toEqual({
      'accepted/a.py': ['AC', 'pass'],
      'accepted/b.c': ['AC', 'pass'],
      'accepted/r.rs': [null, 'not offered'],
      'compiler_error/e.c': ['CE', 'pass'],
      'time_limit_exceeded/t.py': ['TLE', 'pass'],
      'wrong_answer/w.py': ['WA', 'pass'],
    })
    expect(done!.rows.find((r) => r.file === 'compiler_error/e.c')!.note).toBe('e.c:1: error: expected declaration')
  })

  test("another client's problem and verify are unknown (404); a problem with no kept package is refused (400)", async () => {
    const { app, secret, other } = setup()
    const imported = await importZip(app, secret, makeZip(PACKAGE))
    const r = await verifyOf(app, secret, imported.problem_id)
    const { status_url } = await json(r)
    expect((await statusOf(app, other, status_url)).status).toBe(404)
    expect((await verifyOf(app, other, imported.problem_id)).status).toBe(404)
    // the other client's own problem with this verify id is not it either
    const theirs = await importZip(app, other, makeZip(PACKAGE))
    expect((await statusOf(app, other, status_url.replace(imported.problem_id, theirs.problem_id))).status).toBe(404)
    const plain = await json(await app.request(`${PROBLEMS}/`, { method: 'POST', headers: { 'client-secret': secret, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'p', test_cases: [{ input: '1', expected_output: '1' }] }) }))
    const refused = await verifyOf(app, secret, plain.problem_id)
    expect(refused.status).toBe(400)
    expect((await json(refused)).message).toMatch(/keeps no package/)
    await until(() => deps.db.select().from(packageVerifies).all().every((v) => v.state === 'done'), 30_000)
  })

  test("a client's second verify waits behind its first and runs after it; more than the waiting cap are refused (429)", async () => {
    const { app, secret } = setup()
    const imported = await importZip(app, secret, makeZip(PACKAGE))
    deps.pool.hold()
    const first = await json(await verifyOf(app, secret, imported.problem_id))
    const second = await verifyOf(app, secret, imported.problem_id)
    expect(second.status).toBe(202)
    const queued = await json(second)
    expect(queued).toMatchObject({ state: 'queued', stage: 'waiting to start', done: 0 })
    for (let i = 1; i < MAX_WAITING_VERIFIES; i++) expect((await verifyOf(app, secret, imported.problem_id)).status).toBe(202)
    const refused = await verifyOf(app, secret, imported.problem_id)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBeTruthy()
    // one verify's run at a time: the second has not started while the first runs
    expect((await json(await statusOf(app, secret, queued.status_url))).state).toBe('queued')
    expect((await json(await statusOf(app, secret, first.status_url))).state).toBe('running')
    deps.pool.release()
    await until(() => deps.db.select().from(packageVerifies).all().every((v) => v.state === 'done'), 30_000)
    const a = await json(await statusOf(app, secret, first.status_url))
    const b = await json(await statusOf(app, secret, queued.status_url))
    expect(new Date(b.started_at).getTime()).toBeGreaterThanOrEqual(new Date(a.completed_at).getTime())
    expect(b.rows).toEqual(a.rows)
  })

  test('a verify the server stopped in resumes at start: the runs it had made are read back, not run again', async () => {
    const { app, secret } = setup()
    const imported = await importZip(app, secret, makeZip(PACKAGE))
    const { status_url } = await json(await verifyOf(app, secret, imported.problem_id))
    await until(() => deps.db.select().from(packageVerifies).get()?.state === 'done', 30_000)
    const finished = await json(await statusOf(app, secret, status_url))
    // as a stop left it: running, its runs recorded (the first four completed, the last still queued)
    const row = deps.db.select().from(packageVerifies).get()!
    const runs = JSON.parse(row.runsJson) as number[]
    expect(runs.length).toBe(5)
    deps.db.update(submissions).set({ state: 'queued' }).where(eq(submissions.id, runs[4])).run()
    deps.db.update(packageVerifies).set({ state: 'running', stage: 'submissions', done: 4, reportJson: null, completedAt: null }).run()
    const jobs = deps.pool.jobs.length
    expect(resumeVerifies(deps)).toBe(1)
    deps.dispatcher.wake()
    await until(() => deps.db.select().from(packageVerifies).get()?.state === 'done', 30_000)
    // only the one left queued ran again
    expect(deps.pool.jobs.length).toBe(jobs + 1)
    const resumed = await json(await statusOf(app, secret, status_url))
    expect(resumed.rows.map((r: { file: string; got: string }) => [r.file, r.got])).toEqual(finished.rows.map((r: { file: string; got: string }) => [r.file, r.got]))
    expect(resumed.passed).toBe(true)
  })

  test("a scoring package's score.txt scores come back through the queue: each row's score is verifyPackage's", async () => {
    const { app, secret } = setup()
    const zip = makeZip([
      ['problem.yaml', 'name: Scored\ntype: scoring\nvalidation: custom score\n'],
      ['output_validators/v/v.py', 'import sys\n'],
      ['data/secret/1.in', '1\n'],
      ['data/secret/1.ans', '1\n'],
      ['data/secret/2.in', '2\n'],
      ['data/secret/2.ans', '2\n'],
      ['submissions/accepted/full.py', 'AC 0.1 50'],
      ['submissions/partially_accepted/half.py', 'AC 0.1 20'],
    ])
    const imported = await importZip(app, secret, zip)
    const { status_url } = await json(await verifyOf(app, secret, imported.problem_id))
    await until(() => deps.db.select().from(packageVerifies).get()?.state === 'done', 30_000)
    const done = VerifyReply.parse(await json(await statusOf(app, secret, status_url)))
    const pkg = await readPackageZip(zip, { maxFiles: 1000, fileBytes: 1 << 20, totalBytes: 1 << 24 })
    const cliImport = importPackage(pkg, { fallbackName: 'scored', maxTests: 100, verifyOnly: true })
    const cli = await verifyPackage(cliImport, submissionFiles(pkg.files), packageRunOptions(deps.config, deps.languages, cliImport, false, async (job) => behave(job)))
    expect(done.rows.map((r) => [r.file, r.got, r.score, r.result, r.note])).toEqual(cli.rows.map((r) => [r.file, r.got ?? null, r.score ?? null, r.outcome, r.note ?? null]))
    // the root's sum of its cases' scores
    expect(done.rows.map((r) => r.score)).toEqual([100, 40])
    // legacy's default range is unbounded: no best score (null, as a v4 reply's score.package.max_score)
    expect(cli.maxScore).toBe(Infinity)
    expect(done.max_score).toBeNull()
  })

  test("past grading.package_store_max_bytes a package is imported but its zip not kept, and the reply says why; deleting a problem frees its share", async () => {
    const zip = makeZip(PACKAGE)
    const { app, secret } = setup(testConfig({ grading: { package_store_max_bytes: zip.length + 10 } }))
    const first = await importZip(app, secret, zip)
    expect(first.package.kept).toBe(true)
    const second = await importZip(app, secret, makeZip([...PACKAGE, ['submissions/accepted/c.py', 'AC 0.1']]))
    expect(second.package).toMatchObject({ kept: false, kept_note: expect.stringMatching(/grading\.package_store_max_bytes/) })
    expect(deps.db.select().from(problems).where(eq(problems.publicId, second.problem_id)).get()!.packageHash).toBeNull()
    expect((await verifyOf(app, secret, second.problem_id)).status).toBe(400)
    expect((await app.request(`${PROBLEMS}/${first.problem_id}/`, { method: 'DELETE', headers: { 'client-secret': secret } })).status).toBe(200)
    expect((await importZip(app, secret, zip)).package.kept).toBe(true)
  })
})

describe("verify's job as a submission", () => {
  test('a build/run submission keeps its build script\'s name, its build and run steps and its files', () => {
    const job: Job = { language: 'MULTIFILE', source: 'cc -o run a.c\n', input: '', timeLimitSec: 1, memoryLimitKb: 65536, sourceFileName: 'build', compileArgv: BUILD_ARGV, runArgv: RUN_ARGV, files: [{ name: 'a.c', contentBase64: '' }] }
    expect(submissionOf(job, { root: { path: '', items: [] } } as never)).toMatchObject({ lang: 'MULTIFILE', source: 'cc -o run a.c\n', sourceFileName: 'build', compileArgv: BUILD_ARGV, runArgv: RUN_ARGV, files: [{ name: 'a.c' }] })
  })
})
