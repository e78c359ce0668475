// The shared document accepts only what the editor makes: plain text in the one Y.Text, nothing pending
// past a small bound, no other root type, no embed or formatting in the text, the whole encoded document
// within room.max_code_bytes (a history past it with a short code starts the document again from its
// text), structs only under the poster's own client ids. A stored document that breaks these (stored
// before them) is rebuilt from its text when loaded.
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { roomStates } from '../storage/schema.ts'
import { createRoomDocs } from './doc.ts'
import { MAX_PENDING_BYTES } from './doc-rules.ts'
import { edit, roomSetup } from '../testing/room.ts'

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64')
/** An update of everything `change` does to a fresh document. */
const fresh = (change: (d: Y.Doc) => void) => {
  const d = new Y.Doc()
  change(d)
  return b64(Y.encodeStateAsUpdate(d))
}

async function room(max = 4096) {
  const t = await roomSetup({ max_code_bytes: max })
  const cand = await t.join(t.links.candidate)
  const row = () => t.deps.db.$client.prepare('select code, doc_state from room_states where interview_id = ?').get(t.id) as { code: string; doc_state: Buffer } | undefined
  const stored = () => {
    const d = new Y.Doc()
    Y.applyUpdate(d, new Uint8Array(row()!.doc_state))
    return d
  }
  // a first real edit, so there is a document to keep
  const tab = new Y.Doc()
  expect((await cand.post('doc', { update: edit(tab, (x) => x.insert(0, 'print(1)')) })).status).toBe(200)
  return { ...t, cand, row, stored, tab }
}

describe('the document accepts only what the editor makes', () => {
  it("refuses embeds, formatting, nested types and keyed entries in the text; the stored document and the others' stream stay as they were", async () => {
    const t = await room()
    const ivan = await t.join(t.links.interviewer)
    const stream = await ivan.stream()
    expect((await stream.next('doc'))!.data.init).toBe(true)
    const hostile: [string, (d: Y.Doc) => void][] = [
      ['an embed', (d) => d.getText('code').insertEmbed(0, { image: 'x' })],
      ['formatting', (d) => d.getText('code').insert(0, 'bold', { bold: true })],
      ['a nested type', (d) => d.getText('code').insertEmbed(0, new Y.Map())],
      ['a keyed entry', (d) => d.getText('code').setAttribute('k', 'v')],
    ]
    for (const [what, change] of hostile) {
      // built on the document the server has, as a real client would
      const d = new Y.Doc()
      Y.applyUpdate(d, Y.encodeStateAsUpdate(t.tab))
      const r = await t.cand.post('doc', { update: edit(d, () => change(d)) })
      expect(r.status, what).toBe(400)
      expect(r.json.message, what).toMatch(/^update: /)
    }
    expect(t.row()!.code).toBe('print(1)')
    const s = t.stored()
    expect([...s.share.keys()].filter((k) => k !== 'code')).toEqual([])
    expect(s.getText('code').toDelta()).toEqual([{ insert: 'print(1)' }])
    // a plain edit after all that still goes through, and it is the next doc event the interviewer gets
    expect((await t.cand.post('doc', { update: edit(t.tab, (x) => x.insert(8, '\n')) })).status).toBe(200)
    expect((await stream.next('doc'))!.data.init).toBeUndefined()
    stream.close()
  })

  it('refuses other root types, whatever they hold', async () => {
    const t = await room()
    for (const change of [(d: Y.Doc) => d.getMap('evil').set('k', 'v'.repeat(1000)), (d: Y.Doc) => d.getText('other').insert(0, 'x'), (d: Y.Doc) => d.getArray('a').push([1])]) {
      const r = await t.cand.post('doc', { update: fresh(change) })
      expect(r.status).toBe(400)
      expect(r.json.message).toMatch(/no shared type but "code"/)
    }
    expect([...t.stored().share.keys()].filter((k) => k !== 'code')).toEqual([])
  })

  it('keeps nothing pending past a small bound: 24 updates that never integrate do not pile up', async () => {
    const t = await roomSetup({ max_code_bytes: 1 << 20 })
    const cand = await t.join(t.links.candidate)
    let refused = 0
    for (let i = 0; i < 24; i++) {
      // the second half of a client's edits, without the first: it waits for structs that never come
      const d = new Y.Doc()
      d.getText('code').insert(0, 'a')
      const later = edit(d, (x) => x.insert(1, 'b'.repeat(400)))
      const r = await cand.post('doc', { update: later })
      if (r.status !== 200) {
        refused++
        expect(r.status).toBe(400)
        expect(r.json.message).toMatch(/depends on changes the server never received/)
      }
    }
    expect(refused).toBeGreaterThanOrEqual(22)
    const row = t.deps.db.$client.prepare('select code, doc_state from room_states where interview_id = ?').get(t.id) as { code: string; doc_state: Buffer } | undefined
    expect(row?.code ?? '').toBe('')
    expect(row?.doc_state.length ?? 0).toBeLessThan(MAX_PENDING_BYTES + 200)
  })

  /** Types and deletes at spread-out places: the text stays short while the history grows. */
  const churn = (round: number) => (x: Y.Text) => {
    for (let i = 0; i < 20; i++) {
      const at = (round * 7 + i * 13) % (x.length + 1)
      x.insert(at, 'yz')
      x.delete((at + 3) % x.length, 1)
    }
  }

  it('a long editing history past room.max_code_bytes (the code short) starts the document again from its text, and every page is sent it whole', async () => {
    const t = await room(4096)
    const ivan = await t.join(t.links.interviewer)
    const stream = await ivan.stream()
    expect((await stream.next('doc'))!.data.init).toBe(true)
    let replaced: { status: number; json: any } | undefined
    let round = 0
    for (; round < 400 && !replaced; round++) {
      const r = await t.cand.post('doc', { update: edit(t.tab, churn(round)) })
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      if (r.json.replaced) replaced = r
      else expect((await stream.next('doc'))!.data.init).toBeUndefined()
    }
    // before, the history reached the cap and every later edit was refused (413) for the rest of the interview
    expect(replaced, 'the document was started again').toBeDefined()
    const text = t.tab.getText('code').toString()
    expect(t.row()!.code).toBe(text) // the update that crossed the cap is in it
    expect(t.row()!.doc_state.length).toBeLessThan(Buffer.byteLength(text) + 100)
    // the open stream gets the new document whole, as at a connect: a page holding the old one sees it is not its own
    const whole = (await stream.next('doc'))!.data
    expect(whole.init).toBe(true)
    const d = new Y.Doc()
    Y.applyUpdate(d, Buffer.from(whole.update, 'base64'))
    expect(d.getText('code').toString()).toBe(text)
    expect(Y.decodeStateVector(Y.encodeStateVector(d)).has(t.tab.clientID)).toBe(false)
    // a page that loaded it edits on
    const next = new Y.Doc()
    Y.applyUpdate(next, Buffer.from(whole.update, 'base64'))
    expect((await t.cand.post('doc', { update: edit(next, (x) => x.insert(0, '#')) })).status).toBe(200)
    expect(t.row()!.code).toBe(`#${text}`)
  })

  it('a code over half of room.max_code_bytes whose history passes the cap is refused (starting again would not leave room)', async () => {
    const t = await room(4096)
    expect((await t.cand.post('doc', { update: edit(t.tab, (x) => x.insert(0, 'x'.repeat(2200))) })).status).toBe(200)
    let refused: { status: number; json: any } | undefined
    for (let round = 0; round < 400 && !refused; round++) {
      const r = await t.cand.post('doc', { update: edit(t.tab, churn(round)) })
      if (r.status !== 200) refused = r
      else expect(r.json.replaced).toBeUndefined()
    }
    expect(refused?.status).toBe(413)
    expect(refused?.json.message).toMatch(/shared document \(the code and its editing history\) would be larger than 4096 bytes/)
    expect(t.row()!.doc_state.length).toBeLessThanOrEqual(4096)
  })

  it("refuses structs under another participant's client id (they would take the clocks of that person's next keystrokes)", async () => {
    const t = await room()
    const ivan = await t.join(t.links.interviewer)
    // the candidate's tab owns its client id; the interviewer forges an edit under it
    const forged = new Y.Doc()
    Y.applyUpdate(forged, Y.encodeStateAsUpdate(t.tab))
    forged.clientID = t.tab.clientID
    const r = await ivan.post('doc', { update: edit(forged, (x) => x.insert(0, 'x')) })
    expect(r.status).toBe(403)
    expect(r.json.message).toMatch(/belongs to another participant's editor/)
    // the candidate's own next keystroke still lands
    expect((await t.cand.post('doc', { update: edit(t.tab, (x) => x.insert(0, '#')) })).status).toBe(200)
    expect(t.row()!.code).toBe('#print(1)')
  })

  it('a stored document that breaks the rules (stored before them) is rebuilt from its text when loaded', async () => {
    const t = await room()
    const broken = new Y.Doc()
    broken.getText('code').insert(0, 'print(1)')
    broken.getText('code').insertEmbed(3, { image: 'x' })
    broken.getMap('junk').set('k', 'v'.repeat(5000))
    t.deps.db.update(roomStates).set({ docState: Buffer.from(Y.encodeStateAsUpdate(broken)) }).run()
    // a new server (restart) loads it
    const docs = createRoomDocs(t.deps)
    const d = new Y.Doc()
    Y.applyUpdate(d, docs.state(t.id))
    expect([...d.share.keys()].filter((k) => k !== 'code')).toEqual([])
    expect(d.getText('code').toDelta()).toEqual([{ insert: 'print(1)' }])
    // stored repaired, and editable from there
    const s = t.stored()
    expect([...s.share.keys()].filter((k) => k !== 'code')).toEqual([])
    expect(s.getText('code').toString()).toBe('print(1)')
    expect(docs.apply(t.id, Buffer.from(edit(d, (x) => x.insert(8, '!')), 'base64'), () => true)).toEqual({ text: 'print(1)!', replaced: false })
  })
})
