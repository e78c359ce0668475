// The room's live side, in memory: who is connected to which interview (server-sent event streams), a
// broadcast to all of them, and which interviews have a run in flight. One process serves a room, so
// this is enough; the state that must survive a restart (the code, the last run) is in SQLite.

export interface RoomEvent {
  /** The SSE event name: state | run | running | status | presence | signed-out */
  type: string
  data: unknown
}

type Send = (e: RoomEvent) => void

export interface RoomHub {
  /** Registers a stream; returns the function that removes it. */
  subscribe(interviewId: string, participantId: number, send: Send): () => void
  publish(interviewId: string, e: RoomEvent): void
  /** Participant ids with at least one open stream. */
  online(interviewId: string): number[]
  /** Claims the interview's run slot; false when a run is already in flight there. */
  startRun(interviewId: string): boolean
  endRun(interviewId: string): void
  /** Runs in flight across all rooms. */
  readonly runs: number
}

export function createRoomHub(): RoomHub {
  const rooms = new Map<string, Map<number, { participantId: number; send: Send }>>()
  const running = new Set<string>()
  let nextId = 1

  const online = (interviewId: string) => [...new Set([...(rooms.get(interviewId)?.values() ?? [])].map((s) => s.participantId))]

  function publish(interviewId: string, e: RoomEvent) {
    for (const s of rooms.get(interviewId)?.values() ?? []) {
      try {
        s.send(e)
      } catch {
        // a stream that broke is removed by its own onAbort
      }
    }
  }

  return {
    subscribe(interviewId, participantId, send) {
      const id = nextId++
      let room = rooms.get(interviewId)
      if (!room) rooms.set(interviewId, (room = new Map()))
      room.set(id, { participantId, send })
      publish(interviewId, { type: 'presence', data: { online: online(interviewId) } })
      return () => {
        const r = rooms.get(interviewId)
        if (!r?.delete(id)) return
        if (r.size === 0) rooms.delete(interviewId)
        else publish(interviewId, { type: 'presence', data: { online: online(interviewId) } })
      }
    },
    publish,
    online,
    startRun(interviewId) {
      if (running.has(interviewId)) return false
      running.add(interviewId)
      return true
    },
    endRun(interviewId) {
      running.delete(interviewId)
    },
    get runs() {
      return running.size
    },
  }
}
