// Awareness (the others' cursors) is the server's word on who is who: the name, role and colour come from
// the session, never from the update; a client id belongs to the session that first used it; a
// malformed entry is refused and never reaches the others; after the end it answers 409 like doc/code/run.
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { PALETTE } from './awareness.ts'
import { IDS_PER_SESSION } from './client-ids.ts'
import { edit, roomSetup } from '../testing/room.ts'

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64')

/** A browser tab's awareness, as the editor keeps it. */
function tab(user: Record<string, unknown>) {
  const doc = new Y.Doc()
  const aw = new Awareness(doc)
  aw.setLocalStateField('user', user)
  const text = doc.getText('code')
  const at = (i: number) => Y.createRelativePositionFromTypeIndex(text, i)
  return {
    doc,
    aw,
    /** The editor's update with its cursor (as y-codemirror.next sets it: a JSON round trip of relative positions). */
    update(anchor = 0, head = anchor) {
      aw.setLocalStateField('cursor', JSON.parse(JSON.stringify({ anchor: at(anchor), head: at(head) })))
      return b64(encodeAwarenessUpdate(aw, [doc.clientID]))
    },
  }
}

/** What a peer's awareness holds after applying relayed updates. */
const statesOf = (updates: string[]) => {
  const peer = new Awareness(new Y.Doc())
  peer.setLocalState(null)
  for (const u of updates) applyAwarenessUpdate(peer, Buffer.from(u, 'base64'), 'remote')
  return peer.getStates()
}

/** A hand-made awareness update (lib0 encoding): entries of [clientId, clock, JSON text]. */
function raw(entries: [number, number, string][], trailing: number[] = []) {
  const out: number[] = []
  const uint = (n: number) => {
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80)
      n = Math.floor(n / 128)
    }
    out.push(n)
  }
  uint(entries.length)
  for (const [id, clock, json] of entries) {
    uint(id)
    uint(clock)
    const b = Buffer.from(json)
    uint(b.length)
    out.push(...b)
  }
  return b64(Uint8Array.from([...out, ...trailing]))
}

async function room() {
  const t = await roomSetup()
  const cand = await t.join(t.links.candidate)
  const ivan = await t.join(t.links.interviewer)
  // some text for cursors to point into
  expect((await ivan.post('doc', { update: edit(new Y.Doc(), (x) => x.insert(0, 'print(1)\nprint(2)')) })).status).toBe(200)
  const watch = await ivan.stream()
  return { ...t, cand, ivan, watch }
}

describe('awareness', () => {
  it("relays the session's name, role and a palette colour, whatever the update says; the cursor as sent", async () => {
    const t = await room()
    const me = tab({ name: 'Ivan Interviewer', role: 'interviewer', color: 'red;position:fixed;inset:0;background:url(//x)', colorLight: 'x' })
    expect((await t.cand.post('awareness', { update: me.update(2, 5) })).status).toBe(200)
    const e = await t.watch.next('awareness')
    const state = statesOf([e!.data.update]).get(me.doc.clientID)!
    expect(state.user).toEqual({ name: 'Cara Candidate', role: 'candidate', color: state.user.color, colorLight: `${state.user.color}33` })
    expect(PALETTE).toContain(state.user.color)
    expect(state.user.color).toMatch(/^#[0-9a-f]{6}$/)
    expect(state.cursor).toEqual(JSON.parse(JSON.stringify(me.aw.getLocalState()!.cursor)))
  })

  it("cannot overwrite another participant's entry: a client id belongs to the session that first used it", async () => {
    const t = await room()
    const ivanTab = tab({ name: 'Ivan Interviewer' })
    expect((await t.ivan.post('awareness', { update: ivanTab.update(0) })).status).toBe(200)
    await t.watch.next('awareness')
    // the candidate replays the interviewer's client id with a newer clock and its own cursor
    const forged = raw([[ivanTab.doc.clientID, 99, JSON.stringify({ cursor: null })]])
    const r = await t.cand.post('awareness', { update: forged })
    expect(r.status).toBe(403)
    expect(r.json.message).toMatch(/belongs to another participant's editor/)
    // so is a new session of the same candidate (opening the link again); the interviewer's own next update is relayed
    const again = await t.join(t.links.candidate)
    expect((await again.post('awareness', { update: forged })).status).toBe(403)
    expect((await t.ivan.post('awareness', { update: ivanTab.update(3) })).status).toBe(200)
    const e = await t.watch.next('awareness')
    expect(statesOf([e!.data.update]).get(ivanTab.doc.clientID)!.user.name).toBe('Ivan Interviewer')
  })

  it('an id stays its owner\'s across a restart (before, the first to use it after one took it), and goes with its session', async () => {
    const t = await room()
    const ivanTab = tab({ name: 'Ivan Interviewer' })
    expect((await t.ivan.post('awareness', { update: ivanTab.update(0) })).status).toBe(200)
    t.restart()
    const forged = raw([[ivanTab.doc.clientID, 99, JSON.stringify({ cursor: null })]])
    expect((await t.cand.post('awareness', { update: forged })).status).toBe(403)
    expect((await t.ivan.post('awareness', { update: ivanTab.update(2) })).status).toBe(200)
    // the interviewer's session ends (expiry, revocation): its ids are free again
    const sql = t.deps.db.$client
    const { session_id } = sql.prepare('select session_id from room_client_ids where client_id = ?').get(ivanTab.doc.clientID) as { session_id: number }
    sql.prepare('delete from room_sessions where id = ?').run(session_id)
    expect((await t.cand.post('awareness', { update: forged })).status).toBe(200)
  })

  it(`a session holds at most ${IDS_PER_SESSION} ids (a tab that reloads takes a new one): its oldest is released`, async () => {
    const t = await room()
    const ids = Array.from({ length: IDS_PER_SESSION + 1 }, (_, i) => 5000 + i)
    for (const id of ids) expect((await t.cand.post('awareness', { update: raw([[id, 1, JSON.stringify({ cursor: null })]]) })).status).toBe(200)
    const held = t.deps.db.$client.prepare('select client_id from room_client_ids where interview_id = ? and client_id between 5000 and 5999 order by client_id').pluck().all(t.id)
    expect(held).toEqual(ids.slice(1))
    expect((await t.ivan.post('awareness', { update: raw([[ids[0]!, 2, JSON.stringify({ cursor: null })]]) })).status).toBe(200)
    expect((await t.ivan.post('awareness', { update: raw([[ids[1]!, 2, JSON.stringify({ cursor: null })]]) })).status).toBe(403)
  })

  it('refuses a malformed entry instead of relaying it to everyone', async () => {
    const t = await room()
    const id = 123456
    const cursor = (p: unknown) => JSON.stringify({ cursor: { anchor: p, head: p } })
    const bad: [string, string][] = [
      ['two entries', raw([[id, 1, '{}'], [id + 1, 1, '{}']])],
      ['no entry', raw([])],
      ['not JSON', raw([[id, 1, '{"cursor":']])],
      ['bytes after the entry', raw([[id, 1, '{}']], [7])],
      ['a cursor that is not a position', raw([[id, 1, cursor('here')]])],
      ['a position in another type (it would create it at every peer)', raw([[id, 1, cursor({ type: null, tname: 'evil', item: null, assoc: 0 })]])],
      ['an extra field', raw([[id, 1, JSON.stringify({ cursor: null, html: '<b>' })]])],
      ['a user that is not an object', raw([[id, 1, JSON.stringify({ user: 'Ivan Interviewer' })]])],
      ['cut short', b64(Uint8Array.from([1, 0x80]))],
    ]
    for (const [what, update] of bad) {
      const r = await t.cand.post('awareness', { update })
      expect(r.status, what).toBe(400)
      expect(r.json.message, what).toMatch(/^awareness: /)
    }
    // none of them reached the interviewer: the next awareness event is the next good update
    const good = tab({ name: 'whoever' })
    expect((await t.cand.post('awareness', { update: good.update(1) })).status).toBe(200)
    const e = await t.watch.next('awareness')
    expect([...statesOf([e!.data.update]).keys()]).toEqual([good.doc.clientID])
  })

  it('answers 409 after the end, like doc, code and run', async () => {
    const t = await room()
    expect((await t.ivan.post('end', {})).status).toBe(200)
    const r = await t.cand.post('awareness', { update: tab({}).update(0) })
    expect(r.status).toBe(409)
    expect(r.json.error).toBe('RoomEnded')
  })
})
