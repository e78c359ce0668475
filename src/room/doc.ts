// The room editor's shared document: a Yjs document per interview, kept in memory while the room is in
// use and stored in SQLite after every change as one compacted update (a restart loads it; an older room
// that has only plain text starts from that text). `room_states.code` mirrors its text, so runs, reports
// and everything else read the code as before.
//
// An update is accepted only when it keeps the document to what the editor makes (doc-rules.ts) and the
// code within room.max_code_bytes — and the whole encoded document too, editing history and anything
// pending included, since that is what is stored, re-encoded on every change and sent to every new
// stream. It is tried on a copy first (a second document kept in step), so a refused update never
// touches the shared one. When the history alone takes the document past the cap while the code is at
// most half of it (a long interview: each keystroke leaves a few bytes), the document is started again
// from its text, update included, and the open pages reload from it; a code over half the cap with its
// history over the whole is refused. A stored document that breaks the rules (stored before they
// existed) is rebuilt from its text when loaded.
import { eq, sql } from 'drizzle-orm'
import * as Y from 'yjs'
import { AppError } from '../errors.ts'
import { roomStates } from '../storage/schema.ts'
import { checkDocument, checkUpdate, documentFault, TEXT } from './doc-rules.ts'
import { roomState, type RoomDeps } from './room.ts'

export interface RoomDocs {
  /** The whole document, as one update (what a participant gets when its event stream opens). */
  state(interviewId: string): Uint8Array
  /**
   * Applies a participant's update; returns the code's new text, and whether the document was started
   * again from it (`replaced`: its history had reached the cap; every page must load it anew). `mayWrite`
   * says whether a Yjs client id that wrote structs in it belongs to the poster. Refused when too large,
   * malformed or not the editor's.
   */
  apply(interviewId: string, update: Uint8Array, mayWrite: (clientId: number) => boolean): { text: string; replaced: boolean }
  text(interviewId: string): string
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8')

interface Loaded {
  doc: Y.Doc
  /** The same document, where each update is tried first. */
  probe: Y.Doc
  /** The document encoded (what is stored). */
  encoded: Uint8Array
}

const copyOf = (encoded: Uint8Array) => {
  const d = new Y.Doc()
  d.getText(TEXT)
  Y.applyUpdate(d, encoded)
  return d
}

/** A document holding only this text (a fresh start, or the repair of one that breaks the rules). */
const fromText = (code: string) => {
  const doc = new Y.Doc()
  if (code) doc.getText(TEXT).insert(0, code)
  return doc
}

export function createRoomDocs(deps: RoomDeps & { log?: { warn(msg: string, data?: Record<string, unknown>): void } }): RoomDocs {
  const docs = new Map<string, Loaded>()

  const save = (id: string, doc: Y.Doc, encoded: Uint8Array) => {
    const text = doc.getText(TEXT).toString()
    const state = Buffer.from(encoded)
    const now = deps.now()
    const current = roomState(deps, id)
    deps.db
      .insert(roomStates)
      .values({ interviewId: id, language: current.language, code: text, input: current.input, version: 1, docState: state, updatedAt: now })
      .onConflictDoUpdate({ target: roomStates.interviewId, set: { code: text, docState: state, version: sql`${roomStates.version} + 1`, updatedAt: now } })
      .run()
    return text
  }

  const load = (id: string): Loaded => {
    const known = docs.get(id)
    if (known) return known
    const row = deps.db.select({ docState: roomStates.docState }).from(roomStates).where(eq(roomStates.interviewId, id)).get()
    let doc: Y.Doc
    if (row?.docState) {
      let fault: string | null
      doc = new Y.Doc()
      try {
        doc.getText(TEXT)
        Y.applyUpdate(doc, new Uint8Array(row.docState))
        fault = documentFault(doc) ?? (Y.encodeStateAsUpdate(doc).length > deps.config.room.max_code_bytes ? 'larger than room.max_code_bytes' : null)
      } catch {
        fault = 'not a Yjs document'
      }
      if (fault) {
        // stored before these rules: keep what everyone saw (the text), drop the rest
        deps.log?.warn('room document repaired: rebuilt from its text', { interviewId: id, fault })
        doc = fromText(roomState(deps, id).code)
        const encoded = Y.encodeStateAsUpdate(doc)
        save(id, doc, encoded)
      }
    } else doc = fromText(roomState(deps, id).code)
    const encoded = Y.encodeStateAsUpdate(doc)
    const loaded = { doc, probe: copyOf(encoded), encoded }
    docs.set(id, loaded)
    return loaded
  }

  return {
    state: (id) => load(id).encoded,
    text: (id) => load(id).doc.getText(TEXT).toString(),
    apply(id, update, mayWrite) {
      const room = load(id)
      for (const client of checkUpdate(update)) {
        if (!mayWrite(client)) throw new AppError('RoomForbidden', `update: Yjs client ${client} belongs to another participant's editor`)
      }
      const max = deps.config.room.max_code_bytes
      let encoded: Uint8Array
      try {
        try {
          Y.applyUpdate(room.probe, update)
        } catch {
          throw new AppError('RoomBadRequest', 'update: not a Yjs update')
        }
        checkDocument(room.probe)
        if (bytes(room.probe.getText(TEXT).toString()) > max) throw new AppError('RoomTooLarge', `the code would be larger than ${max} bytes`)
        encoded = Y.encodeStateAsUpdate(room.probe)
        if (encoded.length > max && bytes(room.probe.getText(TEXT).toString()) > max / 2) {
          throw new AppError('RoomTooLarge', `the shared document (the code and its editing history) would be larger than ${max} bytes (room.max_code_bytes)`)
        }
      } catch (e) {
        // the copy took the refused update: start it again from the shared document
        room.probe = copyOf(room.encoded)
        throw e
      }
      if (encoded.length > max) {
        // the history, not the code, is over the cap: the code alone, with the update, starts a new document
        const doc = fromText(room.probe.getText(TEXT).toString())
        const fresh = Y.encodeStateAsUpdate(doc)
        deps.log?.warn('room document started again from its text: its editing history reached room.max_code_bytes', { interviewId: id, bytes: encoded.length })
        docs.set(id, { doc, probe: copyOf(fresh), encoded: fresh })
        return { text: save(id, doc, fresh), replaced: true }
      }
      Y.applyUpdate(room.doc, update)
      room.encoded = encoded
      return { text: save(id, room.doc, encoded), replaced: false }
    },
  }
}
