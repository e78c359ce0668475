// Retention of code-evaluation data (config `retention`): completed submissions older than
// submissions_days are deleted; older than outputs_days they lose the program's stdout/stderr (the
// verdict and figures stay). 0 = keep forever. Run by the nightly sweep (schedule.ts).
import { and, eq, isNotNull, lt, or } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { submissions } from '../storage/schema.ts'

const DAY_MS = 86_400_000
const cutoff = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS)

export function pruneSubmissions(deps: Pick<Deps, 'db' | 'config' | 'now'>): { submissions: number; outputs: number } {
  const { submissions_days: keepDays, outputs_days: outputDays } = deps.config.retention
  const now = deps.now()
  let deleted = 0
  let cleared = 0
  if (keepDays > 0) {
    deleted = deps.db
      .delete(submissions)
      .where(and(eq(submissions.state, 'completed'), lt(submissions.completedAt, cutoff(now, keepDays))))
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
  return { submissions: deleted, outputs: cleared }
}
