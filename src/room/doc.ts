// The room editor's shared document (issue 13): a Yjs document per interview, kept in memory while the
// room is in use and stored in SQLite after every change as one compacted update (a restart loads it;
// an older room that has only plain text starts from that text). `room_states.code` mirrors its text,
// so runs, reports and everything else read the code as before. An update that would make the code
// larger than room.max_code_bytes is refused before it touches the document.
import { eq, sql } from 'drizzle-orm'
import * as Y from 'yjs'
import { AppError } from '../errors.ts'
import { roomStates } from '../storage/schema.ts'
import { roomState, type RoomDeps } from './room.ts'

export interface RoomDocs {
  /** The whole document, as one update (what a participant gets when its event stream opens). */
  state(interviewId: string): Uint8Array
  /** Applies a participant's update; returns the code's new text. Refused when too large or malformed. */
  apply(interviewId: string, update: Uint8Array): string
  text(interviewId: string): string
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8')

export function createRoomDocs(deps: RoomDeps): RoomDocs {
  const docs = new Map<string, Y.Doc>()

  const load = (id: string): Y.Doc => {
    let doc = docs.get(id)
    if (doc) return doc
    doc = new Y.Doc()
    const row = deps.db.select({ docState: roomStates.docState }).from(roomStates).where(eq(roomStates.interviewId, id)).get()
    if (row?.docState) Y.applyUpdate(doc, new Uint8Array(row.docState))
    else {
      const code = roomState(deps, id).code
      if (code) doc.getText('code').insert(0, code)
    }
    docs.set(id, doc)
    return doc
  }

  const save = (id: string, doc: Y.Doc) => {
    const text = doc.getText('code').toString()
    const state = Buffer.from(Y.encodeStateAsUpdate(doc))
    const now = deps.now()
    const current = roomState(deps, id)
    deps.db
      .insert(roomStates)
      .values({ interviewId: id, language: current.language, code: text, input: current.input, version: 1, docState: state, updatedAt: now })
      .onConflictDoUpdate({ target: roomStates.interviewId, set: { code: text, docState: state, version: sql`${roomStates.version} + 1`, updatedAt: now } })
      .run()
    return text
  }

  return {
    state: (id) => Y.encodeStateAsUpdate(load(id)),
    text: (id) => load(id).getText('code').toString(),
    apply(id, update) {
      const doc = load(id)
      // tried on a copy first: a refused update must leave the shared document as it was
      const probe = new Y.Doc()
      try {
        Y.applyUpdate(probe, Y.encodeStateAsUpdate(doc))
        Y.applyUpdate(probe, update)
      } catch {
        throw new AppError('RoomBadRequest', 'update: not a Yjs update')
      }
      const max = deps.config.room.max_code_bytes
      if (bytes(probe.getText('code').toString()) > max) throw new AppError('RoomTooLarge', `the code would be larger than ${max} bytes`)
      Y.applyUpdate(doc, update)
      return save(id, doc)
    },
  }
}
