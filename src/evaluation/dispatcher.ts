// The durable queue loop. The submissions table is the queue of record: on start, rows a crash left
// running go back to queued; while a pool slot is free the next queued row (by class, then each client's
// turn: fair-share.ts) is claimed with one UPDATE … RETURNING that also bumps its claim token `attempt`,
// and handed to the pool.
// Piscina's own queue stays empty, so 10,000 queued submissions cost rows on disk, not memory.
import { eq, sql } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import type { RunHooks } from '../jobs/pool-types.ts'
import { jobKey } from '../jobs/progress.ts'
import type { CompileOutcome, Job, JobTest, TestOutcome } from '../jobs/types.ts'
import type { PackageGrading } from '../packages/stored-grading.ts'
import { checkerOf, jobTests, testsOf, type SubmissionTest } from './graded.ts'
import { submissions } from '../storage/schema.ts'
import { localQueue, type JobQueue } from './queue.ts'
import type { Dispatcher } from './dispatcher-types.ts'
import { jobSpecOf, type Submission } from './model.ts'
import { preparedPerDb } from '../storage/prepared.ts'
import { noteStorageFault, storageFaultOf } from '../storage/faults.ts'
import { payloadFilesAt, sweepPayloads } from '../storage/payloads.ts'
import { notePhase } from './phases.ts'

export type { Dispatcher } from './dispatcher-types.ts'

/** The job of a claimed row; a graded row's tests (read from submission_tests) go with it; its stored files by path (read by the worker). */
export function jobOf(row: Submission, tests: SubmissionTest[] | undefined, dataDir: string): Job {
  const { stored, ...spec } = jobSpecOf(row)
  return {
    language: row.language,
    source: row.source,
    input: row.input,
    timeLimitSec: row.timeLimitSec,
    memoryLimitKb: row.memoryLimitKb,
    // the compile cache is shared within one client only (compile_cached tells nothing about others)
    cacheScope: `client:${row.clientId}`,
    ...(row.compileOnly ? { compileOnly: true } : {}),
    ...spec,
    ...(stored?.length && { filesAt: payloadFilesAt(dataDir, row.publicId, stored) }),
    ...(tests ? { tests: jobTests(tests), checker: checkerOf(row), stopOnFirstFailure: row.stopOnFirstFailure } : {}),
    ...(tests && row.gradingJson && packageJob(jobTests(tests), JSON.parse(row.gradingJson) as PackageGrading)),
  }
}

/** A package's grading on the job: each test's validator flags (its group's), score.txt's rule. */
function packageJob(tests: JobTest[], grading: PackageGrading): Pick<Job, 'tests' | 'validatorScores'> {
  return {
    tests: tests.map((t, i) => (grading.testFlags[i] ? { ...t, checkerFlags: grading.testFlags[i]! } : t)),
    ...(grading.validatorScores && { validatorScores: grading.validatorScores }),
  }
}

const TEST_FLUSH_MS = 250
/** A result that cannot be stored (the disk full) is tried again after 1 s, 2 s, … at most this apart. */
export const STORE_RETRY_MAX_MS = 30_000

// prepared once per database: every synchronous request looks its row's state up as it starts waiting
// (the whole row, with its source, stdin and outputs, only when it is already completed)
const statements = preparedPerDb((db: Deps['db']) => ({
  stateById: db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, sql.placeholder('id'))).prepare(),
  byId: db.select().from(submissions).where(eq(submissions.id, sql.placeholder('id'))).prepare(),
  stateByHeId: db.select({ state: submissions.state }).from(submissions).where(eq(submissions.publicId, sql.placeholder('publicId'))).prepare(),
}))
const completedById = (db: Deps['db'], id: number): Submission | undefined =>
  statements(db).stateById.get({ id })?.state === 'completed' ? statements(db).byId.get({ id }) : undefined

/** Thrown out of a storage retry when the dispatcher stops: the row stays for the next start. */
const STOPPED = Symbol('stopped')

export function createDispatcher(deps: Omit<Deps, 'dispatcher'>, queue: JobQueue = localQueue(deps)): Dispatcher {
  const { db, log } = deps
  const waiters = new Map<number, Set<(row: Submission) => void>>()
  const running = new Set<Promise<void>>()
  let started = false
  let stopped = false
  let pumping = false
  // waits for storage to come back that a stop cuts short
  const pauses = new Set<() => void>()
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const end = () => {
        clearTimeout(timer)
        pauses.delete(end)
        resolve()
      }
      const timer = setTimeout(end, ms)
      pauses.add(end)
    })
  let pumpRetry: NodeJS.Timeout | undefined

  const notify = (row: Submission) => {
    const set = waiters.get(row.id)
    if (!set) return
    waiters.delete(row.id)
    for (const resolve of set) resolve(row)
  }

  const track = (row: Submission) => {
    const p: Promise<void> = execute(row)
      .catch((err: unknown) => log.error('dispatch failed', { he_id: row.publicId, err: String(err) }))
      .finally(() => {
        running.delete(p)
        pump()
      })
    running.add(p)
  }

  const execute = async (row: Submission) => {
    const jlog = log.child({ he_id: row.publicId, attempt: row.attempt })
    let done: Submission | undefined
    try {
      // only a protocol that shows stages (v4 CODE_COMPILED) hears of them early; the others learn everything at completion
      // a graded job's tests are stored as they end, but at most every TEST_FLUSH_MS (a write per
      // test would cost the main thread more than a short test's run); the completion stores them all
      const pending = new Map<number, TestOutcome>()
      let flushTimer: NodeJS.Timeout | undefined
      // progress notes only: one that cannot be stored (the disk full) is skipped, the completion stores all
      const note = (what: string, write: () => void) => {
        try {
          write()
        } catch (err) {
          const fault = storageFaultOf(err)
          if (!fault) throw err
          noteStorageFault(fault, jlog, { while: what })
        }
      }
      const flush = () => {
        flushTimer = undefined
        note('storing test progress', () => {
          for (const [index, outcome] of pending) queue.tested(row, index, outcome)
        })
        pending.clear()
      }
      // (a pool thread reports a compile step only when the run outlasts COMPILED_REPORT_DELAY_MS; the
      // completion stores one not reported, and the protocol's onCompleted shows it first. Only a
      // graded job has tests; without a hook the pool relays no progress for the job)
      const hooks: RunHooks =
        deps.protocols.get(row.api)?.stagesShown
          ? {
              onCompiled: (outcome: CompileOutcome) => note('storing the compile step', () => queue.compiled(row, outcome)),
              ...(row.checkerJson && {
                onTest: (index: number, outcome: TestOutcome) => {
                  pending.set(index, outcome)
                  flushTimer ??= setTimeout(flush, TEST_FLUSH_MS)
                },
              }),
            }
          : {}
      let result
      const handed = performance.now()
      try {
        result = await deps.pool.run(jobOf(row, row.checkerJson ? testsOf(db, row.id) : undefined, deps.config.dataDir), { ...hooks, jobKey: jobKey(row.id, row.attempt) })
      } finally {
        clearTimeout(flushTimer)
      }
      const ran = result
      const stored = performance.now()
      notePhase('pool', stored - handed)
      done = await store(jlog, () => queue.complete(row, ran))
      notePhase('store', performance.now() - stored)
    } catch (err) {
      if (err === STOPPED) return
      const reason = err instanceof Error ? err.message : String(err)
      try {
        done = await store(jlog, () => queue.fail(row, reason))
      } catch (again) {
        if (again === STOPPED) return
        throw again
      }
    }
    if (done) {
      jlog.debug('completed', { verdict: done.verdict, ms: done.completedAt!.getTime() - done.createdAt.getTime() })
      notify(done)
    }
  }

  /**
   * Stores a result (or a failure), trying again while the data disk is full or unwritable (1 s, 2 s, …
   * STORE_RETRY_MAX_MS apart) until it can: a finished run is never left `compiled`. A stop ends the
   * waiting (STOPPED); the row, still running, is queued again by the next start and run again.
   */
  const store = async (jlog: typeof log, write: () => Submission | undefined): Promise<Submission | undefined> => {
    for (let delay = 1000; ; delay = Math.min(delay * 2, STORE_RETRY_MAX_MS)) {
      try {
        return write()
      } catch (err) {
        const fault = storageFaultOf(err)
        if (!fault) throw err
        noteStorageFault(fault, jlog, { while: 'storing a result', retry_in_ms: delay })
        if (stopped) throw STOPPED
        await pause(delay)
        if (stopped) throw STOPPED
      }
    }
  }

  const pump = () => {
    if (!started || stopped || pumping) return
    pumping = true
    try {
      while (running.size < deps.pool.size) {
        const t0 = performance.now()
        const row = queue.claim(deps.now(), deps.pool.available())
        if (!row) break
        notePhase('claim', performance.now() - t0)
        // (a queue seam's row may come without its creation time)
        if (row.createdAt) notePhase('queued', Math.max(0, deps.now().getTime() - row.createdAt.getTime()))
        track(row)
      }
    } catch (err) {
      const fault = storageFaultOf(err)
      if (fault) noteStorageFault(fault, log, { while: 'claiming the next submission' })
      else log.error('claim failed', { err: String(err) })
      // the queued rows wait for storage to come back, not for the next submission's wake
      if (!pumpRetry) pumpRetry = setTimeout(() => ((pumpRetry = undefined), pump()), 2000)
    } finally {
      pumping = false
    }
  }

  const api: Dispatcher = {
    start() {
      if (deps.pool.resumesInFlight) {
        // out on sandbox hosts, they may still be running or their results waiting: attach to them under
        // the same claim (a job lost meanwhile is sent again) rather than run them twice
        const rows = queue.inFlight()
        if (rows.length) log.info('resuming submissions that were out when the last stop came', { count: rows.length })
        rows.forEach(track)
      } else {
        const n = queue.recover()
        if (n) log.info('re-queued submissions left running by the last stop', { count: n })
      }
      // stored files (storage/payloads.ts) of submissions done or never committed: a stop or crash between
      // a completion and its cleanup, or between an accept's files and its row
      const swept = sweepPayloads(deps.config.dataDir, (publicId) => {
        const state = statements(db).stateByHeId.get({ publicId })?.state
        return state !== undefined && state !== 'completed'
      })
      if (swept) log.info('removed stored job files no submission waits for', { count: swept })
      deps.pool.onCapacity(() => api.wake())
      started = true
      pump()
    },
    wake() {
      // once the caller's synchronous work (its transaction) is done; several wakes make one pump
      queueMicrotask(pump)
    },
    waitFor(id: number, timeoutMs?: number): Promise<Submission> {
      return new Promise((resolve) => {
        let set = waiters.get(id)
        if (!set) waiters.set(id, (set = new Set()))
        let timer: NodeJS.Timeout | undefined
        const done = (row: Submission) => {
          clearTimeout(timer)
          resolve(row)
        }
        set.add(done)
        if (timeoutMs !== undefined) {
          timer = setTimeout(() => {
            const s = waiters.get(id)
            s?.delete(done)
            if (s && !s.size) waiters.delete(id)
            resolve(undefined as unknown as Submission)
          }, timeoutMs)
        }
        // it may have completed before we started listening
        const row = completedById(db, id)
        if (row) notify(row)
      })
    },
    async stop(graceMs = 10_000) {
      stopped = true
      clearTimeout(pumpRetry)
      for (const end of [...pauses]) end()
      let timer: NodeJS.Timeout | undefined
      await Promise.race([Promise.allSettled([...running]), new Promise((r) => (timer = setTimeout(r, graceMs)))])
      clearTimeout(timer)
    },
    get inFlight() {
      return running.size
    },
  }
  return api
}
