// The room's live side, in memory: who is connected to which interview (server-sent event streams), a
// broadcast to all of them, and which interviews have a run in flight. One process serves a room, so
// this is enough; the state that must survive a restart (the code, the last run) is in SQLite.
//
// Streams are capped per session and per room. When a room is full, a participant holding fewer streams
// than another takes that one's oldest: one participant opening tab after tab (or link after link, each
// a new session) cannot lock the others out of their own interview.
import { AppError } from '../errors.ts'
import type { RoomEvent } from './event-queue.ts'

export type { RoomEvent }

/** Where a stream's events go (an EventQueue). */
export interface Sink {
  send(e: RoomEvent): void
  close(why?: 'slow' | 'closed'): void
  readonly bytes: number
}

export interface StreamOwner {
  sessionId: number
  participantId: number
}

export interface HubLimits {
  perSession: number
  perRoom: number
}

export interface RoomHub {
  /** Registers a stream; returns the function that removes it. Throws RoomBusy past the caps. */
  subscribe(interviewId: string, owner: StreamOwner, sink: Sink): () => void
  publish(interviewId: string, e: RoomEvent): void
  /** Participant ids with at least one open stream. */
  online(interviewId: string): number[]
  /** Claims the interview's run slot; false when a run is already in flight there. */
  startRun(interviewId: string): boolean
  endRun(interviewId: string): void
  /** Runs in flight across all rooms. */
  readonly runs: number
  /** Open streams, and the bytes waiting in them for their readers, across all rooms. */
  buffered(): { streams: number; bytes: number }
}

interface Entry extends StreamOwner {
  sink: Sink
}

export function createRoomHub(limits: () => HubLimits = () => ({ perSession: 4, perRoom: 16 })): RoomHub {
  // Map keeps insertion order: the first entry of a participant is its oldest stream
  const rooms = new Map<string, Map<number, Entry>>()
  const running = new Set<string>()
  let nextId = 1

  const online = (interviewId: string) => [...new Set([...(rooms.get(interviewId)?.values() ?? [])].map((s) => s.participantId))]

  function publish(interviewId: string, e: RoomEvent) {
    for (const s of [...(rooms.get(interviewId)?.values() ?? [])]) s.sink.send(e)
  }

  const count = (room: Map<number, Entry>, pick: (e: Entry) => number, value: number) => [...room.values()].filter((e) => pick(e) === value).length

  /** Makes room for one more stream of `owner`, or refuses it. */
  function admit(room: Map<number, Entry>, owner: StreamOwner) {
    const { perSession, perRoom } = limits()
    if (count(room, (e) => e.sessionId, owner.sessionId) >= perSession) {
      throw new AppError('RoomBusy', `this session already has ${perSession} open event streams (room.max_streams_per_session): close another tab of this room`)
    }
    if (room.size < perRoom) return
    const held = new Map<number, number>()
    for (const e of room.values()) held.set(e.participantId, (held.get(e.participantId) ?? 0) + 1)
    const [greedy, most] = [...held].reduce((a, b) => (b[1] > a[1] ? b : a))
    if (most <= (held.get(owner.participantId) ?? 0)) {
      throw new AppError('RoomBusy', `this room already has ${perRoom} open event streams (room.max_streams_per_room): close another tab of this room`)
    }
    const oldest = [...room].find(([, e]) => e.participantId === greedy)!
    room.delete(oldest[0])
    oldest[1].sink.close('closed')
  }

  return {
    subscribe(interviewId, owner, sink) {
      const id = nextId++
      let room = rooms.get(interviewId)
      if (!room) rooms.set(interviewId, (room = new Map()))
      try {
        admit(room, owner)
      } catch (e) {
        if (room.size === 0) rooms.delete(interviewId)
        throw e
      }
      room.set(id, { ...owner, sink })
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
    buffered() {
      let streams = 0
      let bytes = 0
      for (const room of rooms.values()) {
        for (const e of room.values()) {
          streams++
          bytes += e.sink.bytes
        }
      }
      return { streams, bytes }
    },
  }
}
