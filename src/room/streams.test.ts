// The room's event streams: capped per session and per room (a clear 429 past either, and a full room
// still lets in a participant with fewer streams), written with back-pressure, and a reader that does
// not keep up is dropped once what waits for it passes room.stream_buffer_bytes — a burst of awareness
// posts into streams nobody reads leaves the bytes waiting bounded.
import { Awareness, encodeAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { edit, roomSetup } from '../testing/room.ts'

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64')

describe('stream caps', () => {
  it('one session may hold room.max_streams_per_session streams; one more gets a clear 429', async () => {
    const t = await roomSetup({ max_streams_per_session: 2 })
    const cand = await t.join(t.links.candidate)
    const a = await cand.stream()
    const b = await cand.stream()
    expect([a.res.status, b.res.status]).toEqual([200, 200])
    const c = await cand.stream()
    expect(c.res.status).toBe(429)
    expect(await c.res.json()).toEqual({ error: 'RoomBusy', message: expect.stringMatching(/already has 2 open event streams \(room.max_streams_per_session\)/) })
    // closing one frees its place
    await a.close()
    await new Promise((r) => setTimeout(r, 20))
    expect((await cand.stream()).res.status).toBe(200)
  })

  it('a full room (room.max_streams_per_room) refuses the one holding most, and lets in someone holding fewer', async () => {
    const t = await roomSetup({ max_streams_per_session: 4, max_streams_per_room: 3 })
    const cand = await t.join(t.links.candidate)
    const mine = [await cand.stream(), await cand.stream(), await cand.stream()]
    expect(mine.map((s) => s.res.status)).toEqual([200, 200, 200])
    // opening the link again gives a new session, not more room
    const again = await t.join(t.links.candidate)
    const refused = await again.stream()
    expect(refused.res.status).toBe(429)
    expect(((await refused.res.json()) as { message: string }).message).toMatch(/this room already has 3 open event streams \(room.max_streams_per_room\)/)
    // the interviewer still gets in: the candidate's oldest stream makes way
    const ivan = await t.join(t.links.interviewer)
    const theirs = await ivan.stream()
    expect(theirs.res.status).toBe(200)
    expect(await theirs.next('doc')).toMatchObject({ data: { init: true } })
    // its body ends after what it had been sent
    let e = await mine[0].next(undefined, 2000)
    while (e) e = await mine[0].next(undefined, 2000)
    expect(e).toBeNull()
    expect(t.hub.buffered().streams).toBe(3)
    expect(t.hub.online(t.id).sort()).toHaveLength(2)
  })
})

describe('slow readers', () => {
  it('streams that never read and a burst of 1,000 awareness posts: bytes waiting stay bounded, the stuck streams are dropped, a reading stream gets everything', async () => {
    const bound = 65536
    const t = await roomSetup({ max_code_bytes: 4096, stream_buffer_bytes: bound, max_streams_per_room: 32 })
    const cand = await t.join(t.links.candidate)
    const ivan = await t.join(t.links.interviewer)
    expect((await ivan.post('doc', { update: edit(new Y.Doc(), (x) => x.insert(0, 'print(1)\n'.repeat(50))) })).status).toBe(200)
    // 20 streams that never read, over five sessions
    const stuck = []
    for (let s = 0; s < 5; s++) {
      const who = await t.join(s % 2 ? t.links.candidate : t.links.interviewer)
      for (let i = 0; i < 4; i++) stuck.push(await who.stream())
    }
    expect(stuck.every((s) => s.res.status === 200)).toBe(true)
    // and one that reads everything
    const reader = await ivan.stream()
    let seen = 0
    const reading = (async () => {
      for (let e = await reader.next('awareness', 30_000); e; e = await reader.next('awareness', 30_000)) if (++seen === 1000) return
    })()
    const doc = new Y.Doc()
    const aw = new Awareness(doc)
    const text = doc.getText('code')
    let most = 0
    for (let i = 0; i < 1000; i++) {
      const p = JSON.parse(JSON.stringify(Y.createRelativePositionFromTypeIndex(text, 0)))
      aw.setLocalStateField('cursor', { anchor: p, head: p })
      expect((await cand.post('awareness', { update: b64(encodeAwarenessUpdate(aw, [doc.clientID])) })).status).toBe(200)
      most = Math.max(most, t.hub.buffered().bytes)
    }
    await reading
    expect(seen).toBe(1000)
    // every stuck stream passed the bound and was dropped; nothing waited for them beyond it
    expect(most).toBeLessThanOrEqual(21 * bound)
    expect(t.hub.buffered()).toEqual({ streams: 1, bytes: expect.any(Number) })
    expect(t.hub.buffered().bytes).toBeLessThan(bound)
    // their bodies end (the connection is closed) rather than hang
    for (const s of stuck.slice(0, 3)) {
      let e = await s.next(undefined, 2000)
      while (e) e = await s.next(undefined, 2000)
      expect(e).toBeNull()
    }
  }, 60_000)
})
