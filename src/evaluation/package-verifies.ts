// Verifying a stored package through the API (POST …/problems/<id>/verify): the package's kept zip is
// read again and verified as `problems verify` verifies it (packages/verify.ts, the same options), but
// each run is one of the client's asynchronous submissions in the queue, claimed by its fair-share
// rules like any other, so a verify holds one place in the queue at a time and never a second judging
// path. A client's verifies run one at a time, in order; the others wait (at most MAX_WAITING_VERIFIES).
// The submission of each run is recorded as it is made: a verify the server stopped in (a restart, a
// crash) resumes at start, its finished runs read back and its unfinished ones waited for, not run again.
import { randomBytes } from 'node:crypto'
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Client } from '../clients/clients.ts'
import type { Job, JobResult, TestOutcome } from '../jobs/types.ts'
import { importPackage } from '../packages/import.ts'
import { PackageRefused, readPackageZip } from '../packages/package-files.ts'
import { packageRunOptions, submissionFiles } from '../packages/package-runs.ts'
import { packageGrading, type PackageGrading } from '../packages/stored-grading.ts'
import { verifyPackage, type SubmissionRow, type VerifyReport } from '../packages/verify.ts'
import { getProblem } from '../problems/problems.ts'
import { readBlobBytes } from '../problems/blobs.ts'
import { clients, packageVerifies, problems, submissions } from '../storage/schema.ts'
import { testsOf } from './graded.ts'
import type { Protocol } from './protocols.ts'
import { QUEUE_FULL_RETRY_AFTER_SEC } from './fair-share.ts'
import { acceptSubmission, type SubmissionInput } from './submissions.ts'
import type { Submission } from './model.ts'

export type PackageVerify = typeof packageVerifies.$inferSelect
export type VerifyState = 'queued' | 'running' | 'done' | 'failed'

/** The submissions a verify makes are this protocol's: asynchronous, no stages shown, no callbacks. */
export const VERIFY_API = 'package-verify'
export const packageVerifyProtocol: Protocol = { name: VERIFY_API, stagesShown: false, asynchronous: true }

/** A client's verifies waiting behind its running one; one more is refused (QueueFull, 429). */
export const MAX_WAITING_VERIFIES = 4

export type VerifyDeps = Pick<Deps, 'config' | 'db' | 'log' | 'languages' | 'now' | 'dispatcher' | 'outbox' | 'protocols'>

/** Clients whose verify loop runs in this process (per database: tests run several servers' cores in one). */
const active = new WeakMap<object, Set<number>>()
const activeOf = (db: Deps['db']) => {
  let set = active.get(db)
  if (!set) active.set(db, (set = new Set()))
  return set
}

/** Queues a verify of the client's own problem (another client's is answered as unknown) and starts it when none of the client's runs. */
export function requestVerify(deps: VerifyDeps, client: Client, problemPublicId: string): PackageVerify {
  const { problem } = getProblem(deps, client, problemPublicId)
  if (!problem.packageHash)
    throw new AppError('InvalidArgument', `problem ${problemPublicId} keeps no package to verify: only a package imported through the API is kept (and only within grading.package_store_max_bytes: its import's package.kept says)`, { problem_id: problemPublicId })
  const { db } = deps
  const row = db.transaction(() => {
    const waiting = db.select({ n: sql<number>`count(*)` }).from(packageVerifies).where(and(eq(packageVerifies.clientId, client.id), eq(packageVerifies.state, 'queued'))).get()!.n
    if (waiting >= MAX_WAITING_VERIFIES)
      throw new AppError('QueueFull', `${waiting} verifies of this client already wait behind its running one; try again when one has ended`, { queued: waiting, max_queued: MAX_WAITING_VERIFIES, retry_after: QUEUE_FULL_RETRY_AFTER_SEC })
    return db
      .insert(packageVerifies)
      .values({ publicId: `v_${randomBytes(12).toString('hex')}`, clientId: client.id, problemId: problem.id, state: 'queued', stage: 'waiting to start', createdAt: deps.now() })
      .returning()
      .get()
  })
  pump(deps, client.id)
  return row
}

/** A client's verify of its problem (404 for another client's, or of another problem). */
export function getVerify(deps: Pick<Deps, 'db'>, client: Client, problemPublicId: string, verifyPublicId: string): PackageVerify {
  const { problem } = getProblem(deps, client, problemPublicId)
  const row = deps.db
    .select()
    .from(packageVerifies)
    .where(and(eq(packageVerifies.publicId, verifyPublicId), eq(packageVerifies.clientId, client.id), eq(packageVerifies.problemId, problem.id)))
    .get()
  if (!row) throw new AppError('NotFound', `no verify ${verifyPublicId} of problem ${problemPublicId}`, { verify_id: verifyPublicId })
  return row
}

/** The report so far (rows filled in as runs end), or the whole one once done. */
export const reportOf = (row: Pick<PackageVerify, 'reportJson'>): Partial<VerifyReport> & { rows: SubmissionRow[] } =>
  row.reportJson ? (JSON.parse(row.reportJson) as VerifyReport) : { rows: [] }

/** At start: the verifies a stop left running resume, and those waiting start, each client's in turn. */
export function resumeVerifies(deps: VerifyDeps): number {
  const waiting = deps.db.selectDistinct({ clientId: packageVerifies.clientId }).from(packageVerifies).where(inArray(packageVerifies.state, ['queued', 'running'])).all()
  for (const { clientId } of waiting) pump(deps, clientId)
  return waiting.length
}

/** Starts the client's next verify (one left running first, then the oldest waiting) unless one of its runs here. */
function pump(deps: VerifyDeps, clientId: number): void {
  const running = activeOf(deps.db)
  if (running.has(clientId)) return
  const next = deps.db
    .select()
    .from(packageVerifies)
    .where(and(eq(packageVerifies.clientId, clientId), inArray(packageVerifies.state, ['queued', 'running'])))
    .orderBy(sql`${packageVerifies.state} = 'running' desc`, asc(packageVerifies.id))
    .limit(1)
    .get()
  if (!next) return
  running.add(clientId)
  void runVerify(deps, next).finally(() => {
    running.delete(clientId)
    try {
      pump(deps, clientId)
    } catch (err) {
      // the database closed under a stop: what waits starts at the next start
      deps.log.warn('verify queue not continued', { client: clientId, reason: (err as Error).message })
    }
  })
}

/** Why a verify cannot go on (its problem deleted while it ran): not a fault, it just ends. */
class VerifyGone extends Error {}

async function runVerify(deps: VerifyDeps, verify: PackageVerify): Promise<void> {
  const { db, config } = deps
  const update = (values: Partial<PackageVerify>) => {
    const changed = db.update(packageVerifies).set(values).where(eq(packageVerifies.id, verify.id)).run().changes
    if (!changed) throw new VerifyGone()
  }
  try {
    const problem = db.select().from(problems).where(eq(problems.id, verify.problemId)).get()
    const client = db.select().from(clients).where(eq(clients.id, verify.clientId)).get()
    if (!problem?.packageHash || !client) throw new VerifyGone()
    update({ state: 'running', stage: 'reading the package', ...(!verify.startedAt && { startedAt: deps.now() }) })
    const g = config.grading
    const pkg = await readPackageZip(readBlobBytes(config.dataDir, problem.packageHash), { maxFiles: 4 * g.max_tests + 4096, fileBytes: g.test_max_bytes, totalBytes: g.total_max_bytes })
    // read as `problems verify` reads it: its own time limit, or one computed from its accepted submissions
    const imported = importPackage(pkg, { fallbackName: problem.name, maxTests: g.max_tests, verifyOnly: true })
    const grading = packageGrading(imported.spec, imported.data)
    const runs: number[] = JSON.parse(verify.runsJson) as number[]
    let next = 0
    let rows: SubmissionRow[] = []
    const progress = (values: Partial<PackageVerify>) => update({ ...values, reportJson: JSON.stringify({ rows }) })
    const run = async (job: Job): Promise<JobResult> => {
      const seq = next++
      // a run made before a stop is waited for (or read back), never made twice
      let id = runs[seq]
      if (id === undefined || !db.select({ id: submissions.id }).from(submissions).where(eq(submissions.id, id)).get()) {
        // the submission and its place in runs in one transaction: a kill between them cannot leave a run unrecorded
        id = await acceptRun(() =>
          db.transaction(() => {
            const made = acceptSubmission(deps, client, submissionOf(job, grading)).id
            const recorded = [...runs]
            recorded[seq] = made
            update({ runsJson: JSON.stringify(recorded) })
            return made
          })
        )
        runs[seq] = id
      }
      return resultOf(deps, await deps.dispatcher.waitFor(id))
    }
    const report = await verifyPackage(imported, submissionFiles(pkg.files), {
      ...packageRunOptions(config, deps.languages, imported, pkg.files.has('domjudge-problem.ini'), run),
      // one run in the queue at a time: a verify takes one turn per round, as one client's submission would
      parallel: 1,
      onStage: (stage, all, total) => {
        rows = all
        progress({ stage, total })
      },
      onRow: (_row, done) => progress({ done }),
    })
    update({ state: 'done', stage: 'done', done: report.rows.filter((r) => r.got !== undefined).length, total: report.rows.filter((r) => r.got !== undefined).length, reportJson: JSON.stringify(report), completedAt: deps.now() })
  } catch (err) {
    if (err instanceof VerifyGone) return
    const reason = err instanceof PackageRefused ? `the package: ${err.message}` : err instanceof AppError ? `${err.code}: ${err.detail}` : `internal error: ${(err as Error).message}`
    if (!(err instanceof AppError || err instanceof PackageRefused)) deps.log.error('verify failed', { verify_id: verify.publicId, reason })
    try {
      db.update(packageVerifies).set({ state: 'failed', stage: 'failed', failure: reason, completedAt: deps.now() }).where(eq(packageVerifies.id, verify.id)).run()
    } catch (again) {
      // the database closed under a stop: the verify stays running and resumes at the next start
      deps.log.warn('verify not marked failed', { verify_id: verify.publicId, reason: (again as Error).message })
    }
  }
}

/** Accepts one run as the client's submission; while the client's queued submissions are at their cap, it waits its turn. */
async function acceptRun(accept: () => number): Promise<number> {
  for (;;) {
    try {
      return accept()
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'QueueFull')) throw err
      await new Promise((r) => setTimeout(r, QUEUE_FULL_RETRY_AFTER_SEC * 1000))
    }
  }
}

/** Verify's job as a graded submission of the core: the package's grading brings each test's validator flags and score.txt's rule (dispatcher.ts jobOf). */
export function submissionOf(job: Job, grading: PackageGrading): SubmissionInput {
  return {
    api: VERIFY_API,
    lang: job.language,
    source: job.source,
    input: '',
    timeLimit: job.timeLimitSec,
    memoryLimit: job.memoryLimitKb,
    tests: (job.tests ?? []).map((t) => ({ input: t.input, expected_output: t.expectedOutput })),
    ...(job.checker && { checker: job.checker }),
    grading,
    ...(job.cpuExtraSec && { cpuExtraSec: job.cpuExtraSec }),
    ...(job.compileArgv && { compileArgv: job.compileArgv }),
    ...(job.runArgv && { runArgv: job.runArgv }),
    ...(job.files && { files: job.files }),
    // a build/run submission's build script keeps its name
    ...(job.sourceFileName && { sourceFileName: job.sourceFileName }),
  }
}

/** A completed submission as the job's result verify grades: its compile, each test's outcome (not run: SKIPPED); our own failure is the judge's error on its first test. */
export function resultOf(deps: Pick<Deps, 'db'>, row: Submission): JobResult {
  const outcome = (o: Partial<TestOutcome> & Pick<TestOutcome, 'status'>): TestOutcome => ({ statusDetail: 'NA', timeUsedSec: 0, memoryUsedKb: 0, exitCode: null, signal: 'OTHER', checkerMessage: '', earned: 0, stdout: '', ...o })
  if (row.failure) return { compile: { ok: true, message: '' }, tests: [outcome({ status: 'IE', checkerMessage: row.failure })] }
  if (row.compileStatus !== 'OK') return { compile: { ok: false, message: row.compileStatus ?? 'Compilation failed' } }
  return {
    compile: { ok: true, message: '' },
    tests: testsOf(deps.db, row.id).map((t) =>
      outcome({
        status: (t.status ?? 'SKIPPED') as TestOutcome['status'],
        statusDetail: t.statusDetail ?? 'NA',
        timeUsedSec: t.timeUsedSec ?? 0,
        memoryUsedKb: t.memoryUsedKb ?? 0,
        exitCode: t.exitCode,
        signal: t.signal ?? 'OTHER',
        checkerMessage: t.checkerMessage ?? '',
        earned: t.status === 'AC' ? 1 : 0,
        ...(t.score !== null && { score: t.score }),
      })
    ),
  }
}
