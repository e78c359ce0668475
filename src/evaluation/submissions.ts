// The submission service: accept (language, limits, sizes, quota, one insert), read, and the two
// transitions the dispatcher reports (compiled, completed) — each one transaction that also enqueues
// the callbacks it owes, guarded by the claim token `attempt` so a stale result is ignored.
import { randomBytes, randomUUID } from 'node:crypto'
import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { clampLimit } from '../config.ts'
import { normaliseCallbackUrl } from '../jobs/callback.ts'
import { checkerProgram, checkerSourceBytes, type CheckerSpec } from '../grading/checkers.ts'
import type { CompileOutcome, JobResult, TestOutcome } from '../jobs/types.ts'
import { offeredLanguage } from '../languages.ts'
import { clients, submissions, submissionTests } from '../storage/schema.ts'
import { fairRound, PRIORITY } from './fair-share.ts'
import { loadProblemForGrading } from '../problems/problems.ts'
import { gradedVerdict, recordTest, testPoints, testRows, type TestCaseInput } from './graded.ts'
import type { Client } from '../clients/clients.ts'
import type { JobSpec, RawResult, RawStep, Submission } from './model.ts'
import { normaliseJobSpec, type LinkedFile } from './job-spec.ts'
import { PayloadGone, removePayloads, storePayloads, type PayloadFile } from '../storage/payloads.ts'
import { jobSpecOf, type StoredJobSpec } from './model.ts'
import type { RunResult } from '../sandbox/types.ts'
import { InternalFailure, verdictOf, type Verdict } from '../grading/verdict.ts'
import { inTransaction, preparedPerDb } from '../storage/prepared.ts'
import { gradeOutcomes, packageScore, STATUS_OF_GRADED, stopsOnFirstFailure, type PackageGrading } from '../packages/stored-grading.ts'
import { notePhase } from './phases.ts'

export type { Submission }

type ServiceDeps = Pick<Deps, 'config' | 'db' | 'log' | 'languages' | 'now' | 'dispatcher' | 'outbox' | 'protocols'>

const p = sql.placeholder

/** Columns a completion writes (one prepared UPDATE for the verdict and for our own failure). */
const COMPLETION = ['state', 'compileStatus', 'compileCached', 'verdict', 'statusDetail', 'signal', 'exitCode', 'timeUsedSec', 'memoryUsedKb', 'stdout', 'stderr', 'failure', 'rawResultJson', 'gradedJson', 'completedAt'] as const
type Completion = Pick<Submission, (typeof COMPLETION)[number]>

const INSERTED = ['publicId', 'codeId', 'clientId', 'api', 'compileOnly', 'async', 'priority', 'fairRound', 'language', 'langRequested', 'source', 'input', 'timeLimitSec', 'memoryLimitKb', 'requestIdJson', 'contextJson', 'callbackUrl', 'checkerJson', 'stopOnFirstFailure', 'protocolJson', 'jobSpecJson', 'problemId', 'gradingJson', 'createdAt'] as const

/**
 * The columns that can be large (a source and stdin up to jobe.request_max_bytes, outputs up to
 * jobe.output_max_bytes): a transition's RETURNING leaves them out and the row is completed from what
 * the caller already holds (they never change after the insert, or were just written by the caller),
 * so the main thread reads a submission's bytes once, at the claim, not at every step.
 */
const { source: _s, input: _i, stdout: _o, stderr: _e, rawResultJson: _r, jobSpecJson: _j, ...HEAD } = getTableColumns(submissions)
export const SUBMISSION_HEAD = HEAD
export type SubmissionHead = Omit<Submission, 'source' | 'input' | 'stdout' | 'stderr' | 'rawResultJson' | 'jobSpecJson'>

/** The claimed row is still ours: same claim token, not completed. */
const liveWhere = and(eq(submissions.id, p('id')), eq(submissions.attempt, p('attempt')), inArray(submissions.state, ['running', 'compiled']))

// Prepared once per database: building and preparing drizzle queries per request cost more than the
// queries themselves (measured: ~1 ms of a v3 request), and this is the path every submission takes.
function prepare(db: Deps['db']) {
  // drizzle binds a placeholder in values() and set() through the column's encoder (Date → ms, boolean
  // → 0/1); set()'s types just do not say so, hence the casts
  const placeholders = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, p(k)])) as unknown as Record<K, never>
  return {
    countUnlimited: db.update(clients).set({ used: sql`${clients.used} + 1` }).where(eq(clients.id, p('id'))).returning({ used: clients.used }).prepare(),
    countCapped: db
      .update(clients)
      .set({ used: sql`${clients.used} + 1` })
      .where(and(eq(clients.id, p('id')), sql`${clients.used} < ${p('quota')}`))
      .returning({ used: clients.used })
      .prepare(),
    insert: db.insert(submissions).values(placeholders(INSERTED)).returning(HEAD).prepare(),
    byHeId: db.select().from(submissions).where(and(eq(submissions.publicId, p('publicId')), eq(submissions.clientId, p('clientId')))).prepare(),
    byCodeId: db.select().from(submissions).where(eq(submissions.codeId, p('codeId'))).prepare(),
    compiled: db
      .update(submissions)
      .set({ state: 'compiled', ...placeholders(['compileStatus', 'compiledAt']) })
      .where(and(liveWhere, eq(submissions.state, 'running')))
      .returning(HEAD)
      .prepare(),
    complete: db.update(submissions).set(placeholders(COMPLETION)).where(liveWhere).returning(HEAD).prepare(),
    isLive: db.select({ id: submissions.id }).from(submissions).where(liveWhere).prepare(),
  }
}
const stmts = preparedPerDb(prepare)

export interface SubmissionInput extends JobSpec {
  /** The name of the protocol that accepted it (a registered one: deps.protocols). */
  api: string
  compileOnly?: boolean
  /** Answered before it runs (v3 async=1; a protocol marked asynchronous always is). */
  async?: boolean
  /** The protocol's own admin cap on the CPU time limit (a config key of its own), in place of limits.max_time_sec. */
  maxTimeSec?: number
  /** The protocol's own admin cap on the memory limit (KB), in place of limits.max_memory_kb. */
  maxMemoryKb?: number
  /** The protocol's own admin caps on the source's and the input's sizes, in place of limits.source_max_bytes and limits.input_max_bytes. */
  sourceMaxBytes?: number
  inputMaxBytes?: number
  /** The protocol's own admin cap on outputBytes and outputKeptBytes, in place of limits.output_cap_bytes. */
  outputMaxBytes?: number
  /** Opaque JSON the protocol keeps with the row (read back with model.ts protocolDataOf). */
  protocolData?: unknown
  lang: string
  source: string
  input?: string
  timeLimit?: number
  memoryLimit?: number
  /** Echoed back exactly as sent. */
  id?: unknown
  context?: unknown
  callback?: string
  /** v4 only: a graded submission, with its tests given or from a stored problem. */
  tests?: TestCaseInput[]
  problemId?: string
  checker?: CheckerSpec
  stopOnFirstFailure?: boolean
  /** A package's grading (a stored problem's, or verify's): its groups decide the verdict and score. */
  grading?: PackageGrading
  /** Files the protocol holds on this disk, never changed in place (Jobe's uploads): hard-linked at accept, none of their bytes read. */
  linkedFiles?: LinkedFile[]
}

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8')
/** A character past U+00FF: not one byte, in a string that must hold one byte per character. */
const NOT_A_BYTE = /[^\0-\xff]/

/** Validates (an offered language: languages.ts offeredLanguage) and stores a submission as queued, counting it against the client's quota. */
export function acceptSubmission(deps: ServiceDeps, client: Client, input: SubmissionInput): Submission {
  const t0 = performance.now()
  const row = accept(deps, client, input)
  notePhase('accept', performance.now() - t0)
  return row
}

function accept(deps: ServiceDeps, client: Client, input: SubmissionInput): Submission {
  const { config, db } = deps
  const protocol = deps.protocols.get(input.api)
  if (!protocol) throw new Error(`protocol ${input.api} is not registered`)
  // unknown, not in languages.enabled, or its toolchain not provisioned: refused before anything is stored
  const offer = offeredLanguage(deps.languages, config, input.lang)
  if (!offer.ok) throw new AppError('LanguageNotSupported', offer.detail, { lang: input.lang })
  const language = offer.language
  // Judge0's Executable and multi-file program mean something through Judge0's attributes only
  if (language.judge0Only && !protocol.judge0Forms) throw new AppError('LanguageNotSupported', `lang '${input.lang}' is not supported`, { lang: input.lang })
  if (input.problemId !== undefined) {
    if (input.tests) throw new AppError('InvalidArgument', 'give either problem_id or test_cases, not both', { problem_id: input.problemId })
    // the problem's tests, checker and limits; what the request gives overrides them
    const problem = loadProblemForGrading(deps, client, input.problemId)
    input = {
      ...input,
      tests: problem.tests,
      checker: input.checker ?? problem.checker,
      timeLimit: input.timeLimit ?? problem.timeLimitSec ?? undefined,
      memoryLimit: input.memoryLimit ?? problem.memoryLimitKb ?? undefined,
      grading: problem.grading,
    }
  }
  const limits = config.limits
  // a protocol that hands the core bytes (inputEncoding latin1) has them counted as bytes, one per character
  const latin1 = input.inputEncoding === 'latin1'
  if (latin1 && (NOT_A_BYTE.test(input.source) || NOT_A_BYTE.test(input.input ?? '')))
    throw new AppError('InvalidArgument', 'a source or input given as bytes holds a character that is not one', {})
  const bytes = (s: string) => (latin1 ? s.length : utf8Bytes(s))
  // a program sent as it runs (an ELF binary) has a cap of its own: a static hello is ~700 KB
  const sourceMax = input.sourceMaxBytes ?? (language.sourceExecutable ? limits.executable_max_bytes : limits.source_max_bytes)
  if (bytes(input.source) > sourceMax) throw new AppError('PayloadTooLarge', `source is larger than ${sourceMax} bytes`, { source_max_bytes: sourceMax })
  const stdin = input.input ?? ''
  const inputMax = input.inputMaxBytes ?? limits.input_max_bytes
  if (bytes(stdin) > inputMax) throw new AppError('PayloadTooLarge', `input is larger than ${inputMax} bytes`, { input_max_bytes: inputMax })
  const memoryLimitKb = Math.round(clampLimit(input.memoryLimit, limits.default_memory_kb, input.maxMemoryKb ?? limits.max_memory_kb, limits.min_memory_kb))
  const timeLimitSec = clampLimit(input.timeLimit, limits.default_time_sec, input.maxTimeSec ?? limits.max_time_sec, limits.min_time_sec)
  const callback = input.callback?.trim() ? normaliseCallbackUrl(input.callback) : null
  const async = !!protocol.asynchronous || !!input.async
  const spec = normaliseJobSpec(config, input, timeLimitSec, input.outputMaxBytes)
  const now = deps.now()
  // a test's own time limit is clamped like the submission's (absent: the submission's)
  const tests = input.tests
    ? testRows(config, input.tests, (t) => (t === undefined || !(t > 0) ? null : clampLimit(t, limits.default_time_sec, limits.max_time_sec, limits.min_time_sec)))
    : undefined
  if (input.checker && !tests) throw new AppError('InvalidArgument', 'checker is given without test_cases', { checker: input.checker })
  const program = input.checker && checkerProgram(input.checker)
  if (program) {
    // a checker program is a program like any other: an offered language, a source within the cap
    const checkerLang = offeredLanguage(deps.languages, config, program.lang)
    if (!checkerLang.ok) throw new AppError('LanguageNotSupported', `checker: ${checkerLang.detail}`, { lang: program.lang })
    if (checkerSourceBytes(program) > limits.source_max_bytes)
      throw new AppError('PayloadTooLarge', `the checker's source is larger than ${limits.source_max_bytes} bytes`, { source_max_bytes: limits.source_max_bytes })
  }

  const priority = PRIORITY.api
  const publicId = randomUUID()
  // the job's files go to the data directory, not the row (storage/payloads.ts): written before the
  // row is committed, so an accepted job never lacks them; the row names them
  const { files, linkedFiles, ...rest } = spec
  const payload: PayloadFile[] = [...(files ?? []).map((f) => ({ name: f.name, content: Buffer.from(f.contentBase64, 'base64') })), ...(linkedFiles ?? [])]
  let stored: StoredJobSpec['stored']
  if (payload.length) {
    try {
      stored = storePayloads(config.dataDir, publicId, payload)
    } catch (err) {
      // a Jobe upload evicted since the run named it: as if never uploaded (the protocol says so its way)
      if (err instanceof PayloadGone) throw new AppError('NotFound', `a file of the job is gone: ${err.message}`, {})
      throw err
    }
  }
  const storedSpec: StoredJobSpec = { ...rest, ...(stored && { stored }) }
  const values = {
    publicId,
    codeId: randomBytes(16).toString('hex'),
    clientId: client.id,
    api: input.api,
    compileOnly: !!input.compileOnly,
    async,
    priority,
    language: language.code,
    langRequested: input.lang,
    source: input.source,
    input: stdin,
    timeLimitSec,
    memoryLimitKb,
    requestIdJson: input.id === undefined || input.id === null || input.id === '' ? null : JSON.stringify(input.id),
    contextJson: input.context === undefined ? null : JSON.stringify(input.context),
    // a v3 callback is only used in asynchronous mode (spec A1)
    callbackUrl: async ? callback : null,
    checkerJson: tests ? JSON.stringify(input.checker ?? 'lines') : null,
    // a package's groups decide whether later tests are needed (a client's stop would leave cases its grading reads)
    stopOnFirstFailure: input.grading && tests ? stopsOnFirstFailure(input.grading) : !!input.stopOnFirstFailure,
    gradingJson: input.grading && tests ? JSON.stringify(input.grading) : null,
    protocolJson: input.protocolData === undefined ? null : JSON.stringify(input.protocolData),
    jobSpecJson: Object.keys(storedSpec).length ? JSON.stringify(storedSpec) : null,
    // similarity reports select a problem's submissions by it
    problemId: input.problemId ?? null,
    createdAt: now,
  }
  let row: Submission
  try {
    row = inTransaction(db, () => {
      // refused while too many of this client's rows wait (429), before the quota counts it
      const round = fairRound(db, client.id, priority, async, config.evaluation.max_queued_per_client)
      countAgainstQuota(db, client, config.evaluation.default_quota)
      // the row's head comes back; its large columns are what was just sent (read back, they would be copied again)
      const head = stmts(db).insert.get({ ...values, fairRound: round })!
      if (tests) db.insert(submissionTests).values(tests.map((t) => ({ ...t, submissionId: head.id }))).run()
      return { ...head, source: values.source, input: values.input, jobSpecJson: values.jobSpecJson, stdout: null, stderr: null, rawResultJson: null }
    })
  } catch (err) {
    if (stored) removePayloads(config.dataDir, publicId)
    throw err
  }
  deps.dispatcher.wake()
  return row
}

/**
 * Accept, then for a synchronous request wait for the completion (an in-process notification from
 * the dispatcher, no polling); an asynchronous one answers at once with the pending row.
 */
export async function evaluateV3(deps: ServiceDeps, client: Client, input: SubmissionInput): Promise<Submission> {
  const row = acceptSubmission(deps, client, input)
  return row.async ? row : deps.dispatcher.waitFor(row.id)
}

/**
 * Accept, then wait for the completion at most timeoutMs: the completed row, or the still pending one
 * (it stays queued and runs; the caller tells its client it is busy, e.g. Jobe's overload outcome).
 */
export async function acceptAndWait(deps: ServiceDeps, client: Client, input: SubmissionInput, timeoutMs: number): Promise<{ row: Submission; done: boolean }> {
  const row = acceptSubmission(deps, client, input)
  const done = await deps.dispatcher.waitFor(row.id, timeoutMs)
  return done ? { row: done, done: true } : { row, done: false }
}

/**
 * Accept, then give it startWithinMs to start: one that has not started by then is withdrawn (never
 * run; the caller tells its client the server is busy, e.g. Jobe's overload outcome); one that has is
 * waited for to its end (its own limits bound that).
 */
export async function evaluateWithin(deps: ServiceDeps, client: Client, input: SubmissionInput, startWithinMs: number): Promise<{ row: Submission; withdrawn: boolean }> {
  const row = acceptSubmission(deps, client, input)
  const done = await deps.dispatcher.waitFor(row.id, startWithinMs)
  if (done) return { row: done, withdrawn: false }
  const withdrawn = withdrawQueued(deps, row)
  if (withdrawn) return { row: withdrawn, withdrawn: true }
  return { row: await deps.dispatcher.waitFor(row.id), withdrawn: false }
}

/**
 * Completes a still-queued submission without running it (undefined when it has already been claimed),
 * and gives its count back to the client's quota in the same transaction: a quota counts what ran, and
 * a client that retries a withdrawn run (CodeRunner retries Jobe's outcome 21) must not pay twice.
 */
export function withdrawQueued(deps: Pick<Deps, 'db' | 'now' | 'config'>, row: Submission): Submission | undefined {
  const withdrawn = deps.db.transaction(() => {
    const head = deps.db
      .update(submissions)
      .set({ state: 'completed', failure: 'withdrawn before it started: the server was busy', verdict: null, completedAt: deps.now() })
      .where(and(eq(submissions.id, row.id), eq(submissions.state, 'queued')))
      .returning(HEAD)
      .get()
    // a room run was never counted (room-runs.ts)
    if (head && head.api !== 'room') uncount(deps.db, head.clientId)
    return head && { ...row, ...head }
  })
  if (withdrawn) dropPayloads(deps, withdrawn)
  return withdrawn
}

/** A completed submission's stored files are no longer needed. */
function dropPayloads(deps: Pick<Deps, 'config'>, row: Pick<Submission, 'publicId' | 'jobSpecJson'>): void {
  if (row.jobSpecJson?.includes('"stored"') && jobSpecOf(row).stored?.length) removePayloads(deps.config.dataDir, row.publicId)
}

/** Gives one submission's count back (never below zero). */
function uncount(db: Deps['db'], clientId: number): void {
  db.update(clients).set({ used: sql`max(${clients.used} - 1, 0)` }).where(eq(clients.id, clientId)).run()
}

function countAgainstQuota(db: Deps['db'], client: Client, defaultQuota: number): void {
  const quota = client.quota ?? defaultQuota
  const counted = quota > 0 ? stmts(db).countCapped.get({ id: client.id, quota }) : stmts(db).countUnlimited.get({ id: client.id })
  if (!counted) {
    const current = db.select({ used: clients.used }).from(clients).where(eq(clients.id, client.id)).get()?.used ?? 0
    throw new AppError('QuotaExceeded', 'API usage quota exceeded', { quota, current_count: current })
  }
}

/** A client's own submission by he_id (another client's is answered as unknown). */
export function getSubmission(deps: Pick<Deps, 'db'>, client: Client, publicId: string): Submission {
  const row = stmts(deps.db).byHeId.get({ publicId, clientId: client.id })
  if (!row) throw new AppError('NotFound', `no submission with he_id ${publicId}`, { he_id: publicId })
  return row
}

/** By the code_id of web_link and the output URL: whoever holds the link may read it. */
export function getByCodeId(deps: Pick<Deps, 'db'>, codeId: string): Submission {
  const row = stmts(deps.db).byCodeId.get({ codeId })
  // a room run is the room's alone: no link to it is ever given out, and none opens it
  if (!row || row.api === 'room') throw new AppError('NotFound', `no code with id ${codeId}`)
  return row
}

// ── transitions reported by the dispatcher ─────────────────────────────────────────────────────────
// These are the local queue's (queue.ts) completing and retrying: they never call back into the
// dispatcher, which claims again whenever a job ends (a retried row is among what it may claim).

/** What the transitions need: no dispatcher (they are what it calls). */
export type TransitionDeps = Pick<Deps, 'config' | 'db' | 'log' | 'now' | 'outbox' | 'protocols'>

const live = (row: Submission) =>
  and(eq(submissions.id, row.id), eq(submissions.attempt, row.attempt), inArray(submissions.state, ['running', 'compiled']))
const claim = (row: Submission) => ({ id: row.id, attempt: row.attempt })

/** The compile step is over (shown by protocols with stagesShown). Ignored if the claim is stale. */
export function markCompiled(deps: TransitionDeps, row: Submission, outcome: CompileOutcome): void {
  if (outcome.step?.status === 'internal') return // our fault; the completion decides what to do
  const compileStatus = outcome.ok ? 'OK' : outcome.message.trim() || 'Compilation failed'
  // better-sqlite3 transactions belong to the connection: the prepared statements run inside them
  const updated = inTransaction(deps.db, () => storeCompiled(deps, row, compileStatus))
  if (updated?.callbackUrl) deps.outbox.wake()
}

/** The row marked compiled and its protocol told (v4 enqueues CODE_COMPILED); run inside a transaction. */
function storeCompiled(deps: TransitionDeps, row: Submission, compileStatus: string): Submission | undefined {
  const head = stmts(deps.db).compiled.get({ ...claim(row), compileStatus, compiledAt: deps.now() })
  const u: Submission | undefined = head && { ...row, ...head }
  if (u) deps.protocols.get(u.api)?.onCompiled?.(deps, u)
  return u
}

/**
 * Stores the outcome and enqueues the callbacks, in one transaction. Returns the completed row, or
 * undefined when the claim was stale (a newer attempt owns the row) or the job is retried.
 */
export function completeSubmission(deps: TransitionDeps, row: Submission, result: JobResult): Submission | undefined {
  if (result.tests && result.compile.ok) return completeGraded(deps, row, result.tests, !!result.compile.cached)
  let verdict: Verdict
  try {
    verdict = verdictOf(result, row)
  } catch (err) {
    if (err instanceof InternalFailure) return failAttempt(deps, row, err.message)
    throw err
  }
  return finish(deps, row, {
    state: 'completed',
    compileStatus: verdict.compileStatus,
    compileCached: !!result.compile.cached,
    verdict: verdict.verdict,
    statusDetail: verdict.statusDetail,
    signal: verdict.signal,
    exitCode: verdict.exitCode,
    timeUsedSec: verdict.timeUsedSec,
    memoryUsedKb: verdict.memoryUsedKb,
    stdout: verdict.stdout,
    stderr: verdict.stderr,
    failure: null,
    rawResultJson: JSON.stringify(rawResult(result)),
    gradedJson: null,
    completedAt: deps.now(),
  })
}

/** A graded submission's tests are over: each one's outcome and the verdict they add up to, in one transaction. */
function completeGraded(deps: TransitionDeps, row: Submission, outcomes: TestOutcome[], compileCached: boolean): Submission | undefined {
  const points = testPoints(deps.db, row.id)
  let v = gradedVerdict(outcomes)
  let graded: string | null = null
  if (row.gradingJson) {
    // a package's groups decide: its verdict, with the test that decided it (else the first failure's details)
    const grading = JSON.parse(row.gradingJson) as PackageGrading
    const result = gradeOutcomes(grading, outcomes)
    const deciding = result.decidedBy !== undefined ? outcomes[result.decidedBy] : undefined
    const verdict = STATUS_OF_GRADED[result.verdict]
    if (deciding && deciding.status === verdict) v = { ...v, verdict, statusDetail: deciding.statusDetail, signal: deciding.signal, exitCode: deciding.exitCode, stdout: deciding.stdout }
    else if (verdict !== v.verdict) v = { ...v, verdict, statusDetail: 'NA', signal: 'OTHER', exitCode: 0 }
    graded = JSON.stringify(packageScore(grading, result))
  }
  return finish(
    deps,
    row,
    {
      state: 'completed',
      compileStatus: 'OK',
      compileCached,
      verdict: v.verdict,
      statusDetail: v.statusDetail,
      signal: v.signal,
      exitCode: v.exitCode,
      timeUsedSec: v.timeUsedSec,
      memoryUsedKb: v.memoryUsedKb,
      stdout: v.stdout,
      stderr: '',
      failure: null,
      rawResultJson: JSON.stringify(rawResult({ compile: { ok: true, message: '' } })),
      gradedJson: graded,
      completedAt: deps.now(),
    },
    // inside finish's transaction, after its claim check: a stale attempt writes no test either
    () => outcomes.forEach((o, i) => recordTest(deps.db, row, i, o, points[i] ?? 1))
  )
}

/** One test of a claimed graded run is over: stored at once, so a poll shows the tests filling in. */
export function markTested(deps: TransitionDeps, row: Submission, index: number, outcome: TestOutcome): void {
  if (!stmts(deps.db).isLive.get(claim(row))) return
  const points = testPoints(deps.db, row.id)[index]
  if (points !== undefined) recordTest(deps.db, row, index, outcome, points)
}

/**
 * Our own fault (the jail could not run, the worker died): run it again while attempts remain, then
 * complete it with request_OK False and the reason, so no client waits forever.
 */
export function failAttempt(deps: TransitionDeps, row: Submission, reason: string): Submission | undefined {
  const max = deps.config.evaluation.job_max_attempts
  deps.log.error('job failed on our side', { he_id: row.publicId, attempt: row.attempt, of: max, reason })
  if (row.attempt < max) {
    // queued again: the dispatcher claims it when this job's slot comes free
    deps.db.update(submissions).set({ state: 'queued', compiledAt: null }).where(live(row)).run()
    return undefined
  }
  return finish(deps, row, {
    state: 'completed',
    compileStatus: row.compileStatus ?? 'OK',
    compileCached: false,
    verdict: 'RE',
    statusDetail: 'OTHER',
    signal: 'OTHER',
    exitCode: null,
    timeUsedSec: 0,
    memoryUsedKb: 0,
    stdout: '',
    stderr: '',
    failure: `internal error: ${reason}`,
    rawResultJson: null,
    gradedJson: null,
    completedAt: deps.now(),
  })
}

function finish(deps: TransitionDeps, row: Submission, values: Completion, alsoInside?: () => void): Submission | undefined {
  const done = inTransaction(deps.db, () => {
    // the head read back; the large columns are the claimed row's (never changed) and the values just written
    const head = stmts(deps.db).complete.get({ ...claim(row), ...values })
    const u: Submission | undefined = head && { ...row, ...head, stdout: values.stdout, stderr: values.stderr, rawResultJson: values.rawResultJson }
    if (u) alsoInside?.()
    // the protocol's callbacks are enqueued with the completion, or not at all
    if (u) deps.protocols.get(u.api)?.onCompleted?.(deps, u)
    return u
  })
  if (done?.callbackUrl) deps.outbox.wake()
  if (done) dropPayloads(deps, done)
  return done
}

const rawStep = (r: RunResult): RawStep => ({ status: r.status, exitCode: r.exitCode, signal: r.signal, cpuSec: r.cpuSec, wallSec: r.wallSec, memoryKb: r.memoryKb })

/** The steps as the jail reported them, kept with the row for protocols that map statuses their own way. */
function rawResult(result: JobResult): RawResult {
  const c = result.compile.step
  return {
    compile: c ? { ...rawStep(c), stdout: c.stdout, stderr: c.stderr } : null,
    run: result.run ? rawStep(result.run) : null,
    ...(result.run && result.repeats && { repeats: result.repeats }),
  }
}
