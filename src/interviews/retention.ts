// Retention of interview data (config `retention`): a stored resume goes resumes_days after its
// interview ended (or was deleted); a finished interview goes interviews_days after, with its
// participants, feedback, room and the room's runs. 0 = keep forever. Run by the nightly sweep (schedule.ts).
import { and, eq, inArray, isNotNull, lt, or } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { interviewFeedback, interviewParticipants, interviews, roomSessions, roomStates, submissions } from '../storage/schema.ts'
import { removeResume } from './resume.ts'

const DAY_MS = 86_400_000

/** Interviews that ended or were deleted before now - days. */
const finishedBefore = (deps: Pick<Deps, 'db'>, before: Date) =>
  deps.db
    .select({ id: interviews.id, resumeFile: interviews.resumeFile })
    .from(interviews)
    .where(or(lt(interviews.endedAt, before), lt(interviews.deletedAt, before)))
    .all()

export async function pruneInterviews(deps: Pick<Deps, 'db' | 'config' | 'now'>): Promise<{ resumes: number; interviews: number }> {
  const { resumes_days: resumeDays, interviews_days: interviewDays } = deps.config.retention
  const now = deps.now().getTime()
  let resumes = 0
  let removed = 0
  if (resumeDays > 0) {
    const rows = finishedBefore(deps, new Date(now - resumeDays * DAY_MS)).filter((r) => r.resumeFile)
    for (const row of rows) {
      // the row first: a file without its row is harmless, a row naming a missing file is not
      deps.db.update(interviews).set({ resumeFile: null }).where(and(inArray(interviews.id, [row.id]), isNotNull(interviews.resumeFile))).run()
      await removeResume(deps.config.dataDir, row.resumeFile)
      resumes++
    }
  }
  if (interviewDays > 0) {
    const rows = finishedBefore(deps, new Date(now - interviewDays * DAY_MS))
    const ids = rows.map((r) => r.id)
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500)
      deps.db.transaction((tx) => {
        tx.delete(roomSessions).where(inArray(roomSessions.interviewId, batch)).run()
        tx.delete(roomStates).where(inArray(roomStates.interviewId, batch)).run()
        // the room's runs hold the candidate's code too
        tx.delete(submissions).where(and(inArray(submissions.interviewId, batch), eq(submissions.state, 'completed'))).run()
        tx.delete(interviewFeedback).where(inArray(interviewFeedback.interviewId, batch)).run()
        tx.delete(interviewParticipants).where(inArray(interviewParticipants.interviewId, batch)).run()
        tx.delete(interviews).where(inArray(interviews.id, batch)).run()
      })
    }
    for (const row of rows) await removeResume(deps.config.dataDir, row.resumeFile)
    removed = ids.length
  }
  return { resumes, interviews: removed }
}
