// The replies of a package verify (POST and GET …/problems/<id>/verify): zod shapes (the OpenAPI
// document is derived from them) and the core's verify row translated into them.
import { z } from 'zod'
import { reportOf, type PackageVerify } from '../evaluation/package-verifies.ts'
import type { Problem } from '../problems/problems.ts'

const VERDICTS = ['AC', 'WA', 'TLE', 'RTE', 'CE', 'JE'] as const

export const VerifyRow = z
  .object({
    file: z.string().meta({ description: 'The submission under submissions/: a file (accepted/a.py) or a folder of files (accepted/multi/).' }),
    folder: z.string(),
    main: z.string().nullable().meta({ description: "A folder's entry point, as the judges choose it; null for one file." }),
    others: z.number().int().nullable().meta({ description: 'How many files lie beside the entry point (a folder).' }),
    language: z.string().nullable().meta({ description: "Arbiter's language code (or, when not offered, the language's name); null when none is known." }),
    expected: z.array(z.enum(VERDICTS)).meta({ description: "The verdicts its folder (or DOMjudge's @EXPECTED_RESULTS@) allows." }),
    got: z.enum(VERDICTS).nullable().meta({ description: 'Its verdict here; null while it has not run, or when it is not run.' }),
    score: z.number().nullable().meta({ description: "A scoring package's score (the root group's)." }),
    time: z.number().nullable().meta({ description: "The slowest test's CPU seconds." }),
    result: z.enum(['pass', 'fail', 'not offered', 'not judged']).meta({ description: "pass/fail: whether it got an expected verdict; `not offered`: its language is not offered here (listed, not failed); `not judged`: not run (yet, or its folder is not a verdict's)." }),
    note: z.string().nullable(),
  })
  .meta({ id: 'PackageVerifyRow' })

export const VerifyReply = z
  .object({
    verify_id: z.string(),
    problem_id: z.string(),
    state: z.enum(['queued', 'running', 'done', 'failed']).meta({ description: "queued: behind this client's running verify; running; done: every run ended (see passed); failed: it could not go on (failure says why)." }),
    stage: z.string().meta({ description: 'What it does now: waiting to start, reading the package, accepted submissions, for the time limit, submissions, done, failed.' }),
    done: z.number().int().meta({ description: 'Runs ended.' }),
    total: z.number().int().nullable().meta({ description: 'Runs in all (submissions in an offered language); null until the package is read.' }),
    passed: z.boolean().nullable().meta({ description: 'Once done: every submission got a verdict its folder expects (those not offered do not count); null before.' }),
    time_limit: z.object({ seconds: z.number(), from: z.string() }).nullable().meta({ description: "The time limit the runs had: the package's, or computed from its accepted submissions; null until known." }),
    max_score: z.number().nullable(),
    rows: z.array(VerifyRow).meta({ description: 'The table: file, expected, got, time, pass/fail; filled in as runs end.' }),
    failure: z.string().nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    status_url: z.string().meta({ description: 'GET it for the progress and, once done, the table.' }),
  })
  .meta({ id: 'PackageVerifyReply' })
export type VerifyReply = z.infer<typeof VerifyReply>

export function verifyReply(row: PackageVerify, problem: Pick<Problem, 'publicId'>, statusUrl: string): VerifyReply {
  const report = reportOf(row)
  const done = row.state === 'done'
  return {
    verify_id: row.publicId,
    problem_id: problem.publicId,
    state: row.state as VerifyReply['state'],
    stage: row.stage,
    done: row.done,
    total: row.total,
    passed: done ? !!report.ok : null,
    time_limit: done && report.timeLimitSec !== undefined ? { seconds: report.timeLimitSec, from: report.timeLimitFrom ?? '' } : null,
    max_score: report.maxScore ?? null,
    rows: report.rows.map((r) => ({
      file: r.file,
      folder: r.folder,
      main: r.main ?? null,
      others: r.others ?? null,
      language: r.lang ?? null,
      expected: r.expected,
      got: r.got ?? null,
      score: r.score ?? null,
      time: r.time ?? null,
      result: r.outcome,
      note: r.note ?? null,
    })),
    failure: row.failure,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
    status_url: statusUrl,
  }
}
