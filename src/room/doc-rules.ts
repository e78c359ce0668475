// What the room's shared document may hold: what the editor makes, nothing else. The editor (CodeMirror
// bound to one Y.Text named "code") only ever inserts and deletes plain text, as its own Yjs client, and
// its updates always build on what the server already has. Anything else — an embed or a formatting
// mark in the text, a map entry, another root type, structs whose dependencies never arrive — either
// breaks every peer's editor (an embed freezes CodeMirror's binding) or piles up unseen in the stored
// document, so it is refused. Pure checks; src/room/doc.ts applies them.
import * as Y from 'yjs'
import { AppError } from '../errors.ts'

export const TEXT = 'code'

/** Bytes of structs or deletions a document may hold that wait for something that has not arrived. */
export const MAX_PENDING_BYTES = 1024

const bad = (why: string) => new AppError('RoomBadRequest', `update: ${why}`)

/** Content the text may hold: strings, and what is left of deleted items. */
const allowedContent = (c: unknown) => c instanceof Y.ContentString || c instanceof Y.ContentDeleted

/**
 * Reads an update without applying it and checks each struct is one the editor makes: a string (or a
 * deleted run) in the root text, as a sibling of other text. Returns the Yjs client ids that wrote
 * structs in it (the caller checks they belong to the poster). Throws RoomBadRequest otherwise.
 */
export function checkUpdate(update: Uint8Array): Set<number> {
  let decoded: ReturnType<typeof Y.decodeUpdate>
  try {
    decoded = Y.decodeUpdate(update)
  } catch {
    throw bad('not a Yjs update')
  }
  const writers = new Set<number>()
  for (const s of decoded.structs) {
    if (s instanceof Y.Skip) throw bad('it has gaps (structs that never integrate)')
    writers.add(s.id.client)
    if (!(s instanceof Y.Item)) continue // a GC struct: a deleted run, no content
    // in a decoded update, parent is a root's name, or null when it follows from the item's neighbours
    const parent = s.parent as unknown
    if (parent !== null && parent !== TEXT) throw bad(typeof parent === 'string' ? `no shared type but "${TEXT}" exists (got "${parent}")` : 'no nested types')
    if (s.parentSub !== null) throw bad('the code has no keyed entries')
    if (!allowedContent(s.content)) throw bad(`only plain text may go into the code (got ${s.content.constructor.name})`)
  }
  return writers
}

/** Encoded bytes of what waits in a document for structs that have not arrived. */
export function pendingBytes(doc: Y.Doc): number {
  return (doc.store.pendingStructs?.update.length ?? 0) + (doc.store.pendingDs?.length ?? 0)
}

/** Why a whole document breaks the rules (null when it keeps them). */
export function documentFault(doc: Y.Doc): string | null {
  for (const name of doc.share.keys()) if (name !== TEXT) return `no shared type but "${TEXT}" exists (got "${name}")`
  const text = doc.getText(TEXT)
  if (text._map.size > 0) return 'the code has no keyed entries'
  for (let n = text._start; n !== null; n = n.right) {
    if (!allowedContent(n.content)) return `only plain text may go into the code (got ${n.content.constructor.name})`
  }
  if (pendingBytes(doc) > MAX_PENDING_BYTES) return 'it depends on changes the server never received'
  return null
}

/** Throws when a document breaks the rules; a refused update names the fault. */
export function checkDocument(doc: Y.Doc): void {
  const fault = documentFault(doc)
  if (fault) throw bad(fault)
}
