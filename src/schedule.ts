// The clock table (node-cron), wiring only: the interview sweep (lifecycle, reports) with the room's
// and the outbox's housekeeping, and the nightly retention sweep. main.ts starts it and stops it.
import cron from 'node-cron'
import type { Deps } from './deps.ts'
import { pruneSubmissions } from './evaluation/retention.ts'
import { concludeDueInterviews } from './interviews/lifecycle.ts'
import { pruneInterviews } from './interviews/retention.ts'
import { redactSentMail } from './jobs/mailer.ts'
import { pruneOutbox } from './jobs/outbox-retention.ts'
import { pruneSessions } from './room/sessions.ts'

export interface Schedule {
  stop(): Promise<void>
}

/** One pass: interviews move on (and owe their reports), dead room sessions go, sent mail loses its links. */
export function sweep(deps: Deps): void {
  const { started, completed } = concludeDueInterviews(deps)
  const pruned = pruneSessions(deps)
  const redacted = redactSentMail(deps.db)
  // the reports were committed as outbox rows: send them now rather than at the outbox's next look
  if (completed) deps.outbox.wake()
  if (started || completed || pruned || redacted) deps.log.info('sweep', { started, completed, pruned, redacted })
}

/** The retention pass (config `retention`, read at each run so a SIGHUP applies to the next one). */
export async function retentionSweep(deps: Deps): Promise<Record<string, number>> {
  const counts = { ...pruneSubmissions(deps), ...(await pruneInterviews(deps)), ...(await pruneOutbox(deps)) }
  if (Object.values(counts).some((n) => n > 0)) deps.log.info('retention sweep', counts)
  return counts
}

export function startSchedule(deps: Deps): Schedule {
  const safely = () => {
    try {
      sweep(deps)
    } catch (err) {
      deps.log.error('sweep failed', { err: String(err) })
    }
  }
  // once at start: the server may have been down while interviews ended
  safely()
  const task = cron.schedule(deps.config.interviews.sweep_cron, safely, { name: 'interview-sweep', noOverlap: true })
  const retention = cron.schedule(
    deps.config.retention.sweep_cron,
    () => retentionSweep(deps).catch((err: unknown) => deps.log.error('retention sweep failed', { err: String(err) })),
    { name: 'retention-sweep', noOverlap: true }
  )
  return {
    async stop() {
      await task.destroy()
      await retention.destroy()
    },
  }
}
