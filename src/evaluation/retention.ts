// Retention of code-evaluation data (config `retention`): completed submissions older than
// submissions_days are deleted; older than outputs_days they lose the program's stdout/stderr (the
// verdict and figures stay). A package verify that ended (done or failed) goes with its runs, after
// submissions_days too: its report is kept in its own row, which would otherwise outlive them. 0 = keep
// forever. Run by the nightly sweep (schedule.ts).
import { and, eq, inArray, isNotNull, lt, or } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { packageVerifies, submissions } from '../storage/schema.ts'

const DAY_MS = 86_400_000
const cutoff = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS)

export function pruneSubmissions(deps: Pick<Deps, 'db' | 'config' | 'now'>): { submissions: number; outputs: number; verifies: number } {
  const { submissions_days: keepDays, outputs_days: outputDays } = deps.config.retention
  const now = deps.now()
  let deleted = 0
  let cleared = 0
  let verifies = 0
  if (keepDays > 0) {
    deleted = deps.db
      .delete(submissions)
      .where(and(eq(submissions.state, 'completed'), lt(submissions.completedAt, cutoff(now, keepDays))))
      .run().changes
    // one still queued or running is never removed (its runs are waited for, or read back at a restart)
    verifies = deps.db
      .delete(packageVerifies)
      .where(and(inArray(packageVerifies.state, ['done', 'failed']), lt(packageVerifies.completedAt, cutoff(now, keepDays))))
      .run().changes
  }
  if (outputDays > 0) {
    cleared = deps.db
      .update(submissions)
      .set({ stdout: null, stderr: null })
      .where(
        and(
          eq(submissions.state, 'completed'),
          lt(submissions.completedAt, cutoff(now, outputDays)),
          or(isNotNull(submissions.stdout), isNotNull(submissions.stderr))
        )
      )
      .run().changes
  }
  return { submissions: deleted, outputs: cleared, verifies }
}
