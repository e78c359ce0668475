// Which session owns which Yjs client id in a room. Every editor tab picks a random client id and writes
// its document structs and its awareness entry (cursor, name) under it; whoever could write under
// another tab's id could overwrite that person's cursor entry, or take the clocks of their next
// keystrokes so the server drops those as already known. So an id belongs to the session that first
// used it; another session using it is refused. Kept in SQLite (room_client_ids), so a restart gives
// nobody a chance to claim an open tab's id first; an id goes with its session (expiry, revocation).
import type { Deps } from '../deps.ts'
import { preparedPerDb } from '../storage/prepared.ts'

export interface ClientIds {
  /** True when `clientId` is this session's (claiming it if nobody has). */
  claim(interviewId: string, sessionId: number, clientId: number): boolean
  /** Forgets a room (it ended: nobody writes any more). */
  forget(interviewId: string): void
}

/** Ids one session may hold in a room (a tab that reloads takes a new one); the oldest is released. */
export const IDS_PER_SESSION = 32

const prepare = (db: Deps['db']) => {
  const c = db.$client
  return {
    owner: c.prepare<[string, number], { session_id: number }>('select session_id from room_client_ids where interview_id = ? and client_id = ?'),
    insert: c.prepare<[string, number, number]>('insert into room_client_ids (interview_id, client_id, session_id) values (?, ?, ?)'),
    // past the bound, the session's oldest ids (first inserted) go
    release: c.prepare<{ session: number; keep: number }>(
      `delete from room_client_ids where rowid in (select rowid from room_client_ids where session_id = :session order by rowid
         limit max(0, (select count(*) from room_client_ids where session_id = :session) - :keep))`
    ),
    forget: c.prepare<[string]>('delete from room_client_ids where interview_id = ?'),
  }
}
const statements = preparedPerDb(prepare)

export function createClientIds(deps: Pick<Deps, 'db'>): ClientIds {
  const s = statements(deps.db)
  return {
    claim(interviewId, sessionId, clientId) {
      const owner = s.owner.get(interviewId, clientId)
      if (owner) return owner.session_id === sessionId
      deps.db.$client.transaction(() => {
        s.insert.run(interviewId, clientId, sessionId)
        s.release.run({ session: sessionId, keep: IDS_PER_SESSION })
      })()
      return true
    },
    forget(interviewId) {
      s.forget.run(interviewId)
    },
  }
}
