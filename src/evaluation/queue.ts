// The queue seam: what the dispatcher does with submissions — re-queue what a crash left running,
// claim the next one (bumping its claim token), report its compile step, complete it, or retry it
// after our own fault. The dispatcher calls only this, in one direction; the submissions table is
// the local implementation (the default). A queue shared with other hosts implements the same.
import type { Deps } from '../deps.ts'
import type { CompileOutcome, JobResult, TestOutcome } from '../jobs/types.ts'
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { submissions } from '../storage/schema.ts'
import type { Submission } from './model.ts'
import { completeSubmission, failAttempt, markCompiled, markTested, type TransitionDeps } from './submissions.ts'
import { preparedPerDb, writtenLimit } from '../storage/prepared.ts'

export interface JobQueue {
  /** Rows a crash left running go back to the queue (their claim tokens become stale); how many. */
  recover(): number
  /** Rows a crash left running, untouched: their jobs may still be out on sandbox hosts (resumed, same claim). */
  inFlight(): Submission[]
  /** The next submission to run (in one of `languages`, when given), claimed with a new attempt token; undefined when none waits. */
  claim(now: Date, languages?: ReadonlySet<string>): Submission | undefined
  /** The compile step of a claimed run ended (v4 CODE_COMPILED); a stale claim is ignored. */
  compiled(row: Submission, outcome: CompileOutcome): void
  /** One test of a claimed graded run is over (a poll shows it); a stale claim is ignored. */
  tested(row: Submission, index: number, outcome: TestOutcome): void
  /** The run ended: the completed row, or undefined when the claim was stale or it is run again. */
  complete(row: Submission, result: JobResult): Submission | undefined
  /** Our own fault: queued again while attempts remain (undefined), else completed with the reason. */
  fail(row: Submission, reason: string): Submission | undefined
}

// ── the local queue: the submissions table ─────────────────────────────────────────────────────────

/** Rows a crash left running or compiled are queued again; their old claim token becomes stale. */
export function requeueAbandoned(db: Deps['db']): number {
  return db
    .update(submissions)
    .set({ state: 'queued', compiledAt: null })
    .where(inArray(submissions.state, ['running', 'compiled']))
    .run().changes
}

/**
 * The claim: one UPDATE … RETURNING of the next queued row — by class (PRIORITY), then fair round,
 * synchronous first within a round, then age — optionally only in some languages, bumping its claim
 * token; one statement, so two claimers can never take the same row. The sandbox hosts' claims (languages given) use it too.
 */
function claimStatement(db: Deps['db'], startedAt: Date, languages?: ReadonlySet<string>) {
  const queued = eq(submissions.state, 'queued')
  const next = db
    .select({ id: submissions.id })
    .from(submissions)
    .where(languages ? and(queued, inArray(submissions.language, [...languages])) : queued)
    .orderBy(asc(submissions.priority), asc(submissions.fairRound), asc(submissions.async), asc(submissions.id))
    .limit(writtenLimit(1))
  return db
    .update(submissions)
    .set({ state: 'running', attempt: sql`${submissions.attempt} + 1`, startedAt })
    .where(sql`${submissions.id} = (${next}) and ${submissions.state} = 'queued'`)
    .returning()
}

// drizzle binds the placeholder through startedAt's encoder (Date → ms); set()'s types do not say so
const prepare = (db: Deps['db']) => ({ claim: claimStatement(db, sql.placeholder('now') as unknown as Date).prepare() })
const stmts = preparedPerDb(prepare)

/** Claims the next queued row; with `languages`, only in those (what sandbox hosts can take now). */
export function claimNext(db: Deps['db'], now: Date, languages?: ReadonlySet<string>): Submission | undefined {
  if (!languages) return stmts(db).claim.get({ now })
  // the other languages wait, queued, for a host that has them
  return languages.size ? claimStatement(db, now, languages).get() : undefined
}

/** Today's queue: the submissions table of this server's SQLite database. */
export function localQueue(deps: TransitionDeps & Pick<Deps, 'db' | 'languages'>): JobQueue {
  return {
    recover: () => requeueAbandoned(deps.db),
    inFlight: () => deps.db.select().from(submissions).where(inArray(submissions.state, ['running', 'compiled'])).orderBy(asc(submissions.id)).all(),
    claim: (now, languages) => claimNext(deps.db, now, languages),
    compiled: (row, outcome) => markCompiled(deps, row, outcome),
    tested: (row, index, outcome) => markTested(deps, row, index, outcome),
    complete: (row, result) => completeSubmission(deps, row, result),
    fail: (row, reason) => failAttempt(deps, row, reason),
  }
}
