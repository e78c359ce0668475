// Which session owns which Yjs client id in a room. Every editor tab picks a random client id and writes
// its document structs and its awareness entry (cursor, name) under it; whoever could write under
// another tab's id could overwrite that person's cursor entry, or take the clocks of their next
// keystrokes so the server drops those as already known. So an id belongs to the session that first
// used it; another session using it is refused. In memory: after a restart the first user claims it again.

export interface ClientIds {
  /** True when `clientId` is this session's (claiming it if nobody has). */
  claim(interviewId: string, sessionId: number, clientId: number): boolean
  /** Forgets a room (no streams left, or it ended). */
  forget(interviewId: string): void
}

/** Ids one session may hold in a room (a tab that reloads takes a new one); the oldest is released. */
export const IDS_PER_SESSION = 32

export function createClientIds(): ClientIds {
  const rooms = new Map<string, { owner: Map<number, number>; bySession: Map<number, number[]> }>()
  return {
    claim(interviewId, sessionId, clientId) {
      let room = rooms.get(interviewId)
      if (!room) rooms.set(interviewId, (room = { owner: new Map(), bySession: new Map() }))
      const owner = room.owner.get(clientId)
      if (owner !== undefined) return owner === sessionId
      const mine = room.bySession.get(sessionId) ?? []
      mine.push(clientId)
      room.owner.set(clientId, sessionId)
      if (mine.length > IDS_PER_SESSION) room.owner.delete(mine.shift()!)
      room.bySession.set(sessionId, mine)
      return true
    },
    forget(interviewId) {
      rooms.delete(interviewId)
    },
  }
}
