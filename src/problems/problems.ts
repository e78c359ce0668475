// The problems service: a client's test set stored once — metadata in SQLite, each input and
// expected output in a content-addressed file — then graded against by problem_id. A problem belongs
// to the client that made it: any other client is told it does not exist.
import { randomBytes } from 'node:crypto'
import { and, asc, desc, eq, or, sql } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Client } from '../clients/clients.ts'
import { clampLimit } from '../config.ts'
import { checkerProgram, checkerSourceBytes, type CheckerSpec } from '../grading/checkers.ts'
import { offeredLanguage } from '../languages.ts'
import { problems, problemTests } from '../storage/schema.ts'
import { putBlob, readBlob, removeUnused } from './blobs.ts'
import { preparedPerDb } from '../storage/prepared.ts'
import type { PackageGrading } from '../packages/stored-grading.ts'

export type Problem = typeof problems.$inferSelect
export type ProblemTest = typeof problemTests.$inferSelect

type ServiceDeps = Pick<Deps, 'config' | 'db' | 'languages' | 'now'>

export interface ProblemTestInput {
  name?: string
  input: Uint8Array | string
  expected_output: Uint8Array | string
  points?: number
  time_limit?: number
}

export interface ProblemInput {
  name: string
  tests: ProblemTestInput[]
  checker?: CheckerSpec
  time_limit?: number
  memory_limit?: number
  /** A Kattis/ICPC package's grading (groups, scores, per-group validator flags), kept as it is. */
  grading?: PackageGrading
}

const bytesOf = (v: Uint8Array | string) => (typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v))

export function createProblem(deps: ServiceDeps, client: Client, input: ProblemInput): { problem: Problem; tests: ProblemTest[] } {
  const { config, db } = deps
  const g = config.grading
  const limits = config.limits
  const name = input.name.trim()
  if (!name || name.length > 200) throw new AppError('InvalidArgument', 'name must be 1 to 200 characters', { name: input.name })
  if (!input.tests.length) throw new AppError('InvalidArgument', 'a problem needs at least one test', {})
  if (input.tests.length > g.max_tests) throw new AppError('PayloadTooLarge', `more than ${g.max_tests} tests`, { max_tests: g.max_tests, test_count: input.tests.length })
  const checker = input.checker ?? 'lines'
  const program = checkerProgram(checker)
  if (program) {
    const offer = offeredLanguage(deps.languages, config, program.lang)
    if (!offer.ok) throw new AppError('LanguageNotSupported', `checker: ${offer.detail}`, { lang: program.lang })
    if (checkerSourceBytes(program) > limits.source_max_bytes) throw new AppError('PayloadTooLarge', `the checker's source is larger than ${limits.source_max_bytes} bytes`, {})
  }
  const clampTime = (t: number | undefined) => (t === undefined || !(t > 0) ? null : clampLimit(t, limits.default_time_sec, limits.max_time_sec, limits.min_time_sec))
  let total = 0
  const data = input.tests.map((t, i) => {
    const files = [bytesOf(t.input), bytesOf(t.expected_output)]
    for (const f of files) {
      if (f.length > g.test_max_bytes) throw new AppError('PayloadTooLarge', `test ${t.name ?? i + 1}: a file larger than ${g.test_max_bytes} bytes`, { test_max_bytes: g.test_max_bytes })
      total += f.length
    }
    if (total > g.total_max_bytes) throw new AppError('PayloadTooLarge', `the tests are larger than ${g.total_max_bytes} bytes in all`, { total_max_bytes: g.total_max_bytes })
    return { name: t.name ?? String(i + 1), files, points: t.points ?? 1, timeLimitSec: clampTime(t.time_limit) }
  })
  // the files first (each written whole, then renamed), the rows in one transaction; if that fails,
  // the files this upload added are removed again: nothing is stored half-way
  const created: string[] = []
  const rows = data.map((t, position) => {
    const [input, output] = t.files.map((f) => {
      const blob = putBlob(config.dataDir, f)
      if (blob.created) created.push(blob.hash)
      return blob.hash
    })
    return { position, name: t.name, inputHash: input, outputHash: output, inputBytes: t.files[0].length, outputBytes: t.files[1].length, points: t.points, timeLimitSec: t.timeLimitSec }
  })
  try {
    return db.transaction(() => {
      const problem = db
        .insert(problems)
        .values({
          publicId: `p_${randomBytes(12).toString('hex')}`,
          clientId: client.id,
          name,
          checkerJson: JSON.stringify(checker),
          timeLimitSec: clampTime(input.time_limit),
          memoryLimitKb: input.memory_limit && input.memory_limit > 0 ? Math.round(clampLimit(input.memory_limit, limits.default_memory_kb, limits.max_memory_kb, limits.min_memory_kb)) : null,
          testCount: rows.length,
          totalBytes: total,
          createdAt: deps.now(),
          gradingJson: input.grading ? JSON.stringify(input.grading) : null,
        })
        .returning()
        .get()
      const tests = db.insert(problemTests).values(rows.map((r) => ({ ...r, problemId: problem.id }))).returning().all()
      return { problem, tests }
    })
  } catch (err) {
    removeUnused(config.dataDir, created, (h) => isBlobUsed(db, h))
    throw err
  }
}

function isBlobUsed(db: Deps['db'], hash: string): boolean {
  return (
    !!db.select({ p: problemTests.problemId }).from(problemTests).where(or(eq(problemTests.inputHash, hash), eq(problemTests.outputHash, hash))).limit(1).get() ||
    !!db.select({ p: problems.id }).from(problems).where(eq(problems.packageHash, hash)).limit(1).get()
  )
}

/**
 * Keeps an imported package's zip with its problem, for verifying it later through the API, while the
 * client's kept zips stay within grading.package_store_max_bytes; past it the zip is not kept (the
 * problem is, and the answer says why).
 */
export function keepPackage(deps: Pick<Deps, 'config' | 'db'>, client: Client, problem: Problem, zip: Uint8Array): { kept: boolean; note?: string } {
  const { config, db } = deps
  const cap = config.grading.package_store_max_bytes
  const over = (used: number) => used + zip.length > cap
  const usedBy = () => db.select({ n: sql<number>`coalesce(sum(${problems.packageBytes}), 0)` }).from(problems).where(eq(problems.clientId, client.id)).get()!.n
  const refused = (used: number) => ({ kept: false, note: `not kept: this client's problems keep ${used} bytes of packages and this one has ${zip.length}, past grading.package_store_max_bytes (${cap}); delete problems to verify this one through the API` })
  // checked before the file is written, and again with the row (two imports at once)
  if (over(usedBy())) return refused(usedBy())
  const blob = putBlob(config.dataDir, zip)
  const used = db.transaction(() => {
    const n = usedBy()
    if (over(n)) return n
    db.update(problems).set({ packageHash: blob.hash, packageBytes: zip.length }).where(eq(problems.id, problem.id)).run()
    return undefined
  })
  if (used === undefined) return { kept: true }
  if (blob.created) removeUnused(config.dataDir, [blob.hash], (h) => isBlobUsed(db, h))
  return refused(used)
}

/** A client's own problem by its problem_id; another client's is answered as unknown. */
// Prepared once per database: every graded submission against a problem reads it (building and
// preparing the drizzle queries each time cost more than running them)
function prepare(db: Deps['db']) {
  const p = sql.placeholder
  return {
    problem: db.select().from(problems).where(and(eq(problems.publicId, p('publicId')), eq(problems.clientId, p('clientId')))).prepare(),
    tests: db.select().from(problemTests).where(eq(problemTests.problemId, p('problemId'))).orderBy(asc(problemTests.position)).prepare(),
  }
}
const stmts = preparedPerDb(prepare)

export function getProblem(deps: Pick<Deps, 'db'>, client: Client, publicId: string): { problem: Problem; tests: ProblemTest[] } {
  const problem = stmts(deps.db).problem.get({ publicId, clientId: client.id })
  if (!problem) throw new AppError('NotFound', `no problem with problem_id ${publicId}`, { problem_id: publicId })
  const tests = stmts(deps.db).tests.all({ problemId: problem.id })
  return { problem, tests }
}

export function listProblems(deps: Pick<Deps, 'db'>, client: Client): Problem[] {
  return deps.db.select().from(problems).where(eq(problems.clientId, client.id)).orderBy(desc(problems.id)).all()
}

/** Deletes a problem and the files no other problem uses. Submissions already made keep their copy. */
export function deleteProblem(deps: Pick<Deps, 'db' | 'config'>, client: Client, publicId: string): Problem {
  const { problem, tests } = getProblem(deps, client, publicId)
  deps.db.delete(problems).where(eq(problems.id, problem.id)).run()
  removeUnused(deps.config.dataDir, [...tests.flatMap((t) => [t.inputHash, t.outputHash]), ...(problem.packageHash ? [problem.packageHash] : [])], (h) => isBlobUsed(deps.db, h))
  return problem
}

/** What a graded submission takes from a problem: its tests (with their data), checker and limits. */
export function loadProblemForGrading(deps: Pick<Deps, 'db' | 'config'>, client: Client, publicId: string) {
  const { problem, tests } = getProblem(deps, client, publicId)
  return {
    checker: JSON.parse(problem.checkerJson) as CheckerSpec,
    timeLimitSec: problem.timeLimitSec,
    memoryLimitKb: problem.memoryLimitKb,
    grading: problem.gradingJson ? (JSON.parse(problem.gradingJson) as PackageGrading) : undefined,
    tests: tests.map((t) => ({
      name: t.name,
      input: readBlob(deps.config.dataDir, t.inputHash),
      expected_output: readBlob(deps.config.dataDir, t.outputHash),
      points: t.points,
      ...(t.timeLimitSec !== null ? { time_limit: t.timeLimitSec } : {}),
    })),
  }
}

/** The reply shape of a problem (GET one adds each test's sizes, never the data). */
export function problemReply(problem: Problem, tests?: ProblemTest[]) {
  return {
    problem_id: problem.publicId,
    name: problem.name,
    test_count: problem.testCount,
    total_bytes: problem.totalBytes,
    checker: JSON.parse(problem.checkerJson) as CheckerSpec,
    time_limit: problem.timeLimitSec,
    memory_limit: problem.memoryLimitKb,
    created_at: problem.createdAt.toISOString(),
    ...(tests && {
      tests: tests.map((t) => ({ id: t.name, input_bytes: t.inputBytes, expected_output_bytes: t.outputBytes, points: t.points, time_limit: t.timeLimitSec })),
    }),
  }
}
