// A run from an interview room as a queued submission: no protocol (api 'room'), owned by the room client
// of the interview's company, in its own class (PRIORITY.room: claimed before every API's submissions),
// never counted against a quota or the queued cap, and invisible to the APIs (their reads are by the
// asking client, which is never a room client). It takes the same claim as every other job, so it
// runs wherever the queue sends jobs: a local slot or a sandbox host.
import { randomBytes, randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { companies, interviews, submissions } from '../storage/schema.ts'
import { roomClientOf } from '../clients/clients.ts'
import { fairRound, PRIORITY } from './fair-share.ts'
import type { Submission } from './model.ts'

export interface RoomRun {
  interviewId: string
  /** A canonical code the room offers (checked by the room). */
  language: string
  source: string
  input: string
  timeLimitSec: number
  memoryLimitKb: number
}

/** Queues the run and wakes the dispatcher; wait for it with deps.dispatcher.waitFor(row.id). */
export function queueRoomRun(deps: Pick<Deps, 'db' | 'now' | 'dispatcher'>, run: RoomRun): Submission {
  const { db } = deps
  const now = deps.now()
  const row = db.transaction(() => {
    const company = db
      .select({ id: companies.id, name: companies.name })
      .from(interviews)
      .innerJoin(companies, eq(companies.id, interviews.companyId))
      .where(eq(interviews.id, run.interviewId))
      .get()
    if (!company) throw new AppError('INTERVIEWNOTFOUND')
    const client = roomClientOf(db, now, company)
    return db
      .insert(submissions)
      .values({
        publicId: randomUUID(),
        codeId: randomBytes(16).toString('hex'),
        clientId: client.id,
        api: 'room',
        interviewId: run.interviewId,
        async: true,
        priority: PRIORITY.room,
        // round-robin between companies; no cap: each room has at most one run at a time
        fairRound: fairRound(db, client.id, PRIORITY.room, true, 0),
        language: run.language,
        langRequested: run.language,
        source: run.source,
        input: run.input,
        timeLimitSec: run.timeLimitSec,
        memoryLimitKb: run.memoryLimitKb,
        createdAt: now,
      })
      .returning()
      .get()
  })
  deps.dispatcher.wake()
  return row
}
