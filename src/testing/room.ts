// Test helpers of the room: an interview with its people signed in, their POSTs, and their event streams
// read event by event (or opened and never read), against the room's routes with a hub the test can see.
import * as Y from 'yjs'
import { expect } from 'vitest'
import type { Config } from '../config.ts'
import { createBody, seedCompany, testApp, testDeps } from './interviews.ts'
import { createRoomHub } from '../room/hub.ts'
import { roomRoutes, streamLimits } from '../room/routes.ts'

const P = '/partner/service/interviews'

export interface SseEvent {
  event: string
  data: any
}

export async function roomSetup(room: Partial<Config['room']> = {}, start = new Date('2030-01-01T00:00:00Z')) {
  const deps = testDeps()
  Object.assign(deps.config.room, room)
  const seed = seedCompany(deps)
  const { call } = testApp(deps)
  let hub = createRoomHub(streamLimits(deps))
  let app = roomRoutes(deps, hub)
  /** A server restart: the room's routes made anew over the same database (open streams are not carried over). */
  const restart = () => {
    hub = createRoomHub(streamLimits(deps))
    app = roomRoutes(deps, hub)
  }
  const created = await call('POST', `${P}/`, createBody(seed.admin, start))
  expect(created.status).toBe(201)
  const id: string = created.json.interview_id
  const links = { candidate: created.json.candidate_interview_link as string, interviewer: created.json.interviewer_interview_links['ivan1@acme.test'] as string }

  /** Opens a link (a new session each time) and returns what that person can do. */
  const join = async (link: string) => {
    const res = await app.request(new URL(link).pathname)
    const cookie = /^arbiter_room=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]
    const page = await (await app.request(`/interviews/room/${id}`, { headers: { cookie: `arbiter_room=${cookie}` } })).text()
    const csrf = JSON.parse(/<script type="application\/json" id="boot">(.*?)<\/script>/.exec(page)![1]).csrf as string
    const post = async (action: string, body: unknown) => {
      const r = await app.request(`/interviews/room/${id}/${action}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { cookie: `arbiter_room=${cookie}`, 'content-type': 'application/json', 'x-csrf-token': csrf },
      })
      return { status: r.status, json: (await r.json()) as any }
    }
    /** Opens an event stream; nothing reads it unless next() is called. */
    const stream = async () => {
      const ac = new AbortController()
      const res = await app.request(`/interviews/room/${id}/events`, { headers: { cookie: `arbiter_room=${cookie}` }, signal: ac.signal })
      let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
      let buf = ''
      const pending: SseEvent[] = []
      const decoder = new TextDecoder()
      /** The next event (of this type, skipping others), or null when the stream ended. */
      const next = async (type?: string, timeoutMs = 5000): Promise<SseEvent | null> => {
        reader ??= res.body!.getReader()
        const deadline = Date.now() + timeoutMs
        for (;;) {
          while (pending.length) {
            const e = pending.shift()!
            if (!type || e.event === type) return e
          }
          const left = deadline - Date.now()
          if (left <= 0) throw new Error(`no ${type ?? ''} event within ${timeoutMs} ms`)
          const r = await Promise.race([reader.read(), new Promise<'timeout'>((ok) => setTimeout(() => ok('timeout'), left))])
          if (r === 'timeout') continue
          if (r.done) return null
          buf += decoder.decode(r.value, { stream: true })
          let i: number
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i)
            buf = buf.slice(i + 2)
            const event = /^event: (.*)$/m.exec(block)?.[1]
            const data = /^data: (.*)$/m.exec(block)?.[1]
            if (event) pending.push({ event, data: data === undefined ? undefined : JSON.parse(data) })
          }
        }
      }
      /** The browser goes away: its end of the body is cancelled. */
      const close = async () => {
        ac.abort()
        await (reader ? reader.cancel() : res.body?.cancel())
      }
      return { res, next, close }
    }
    return { cookie, csrf, post, stream }
  }
  return {
    deps,
    seed,
    call,
    get app() {
      return app
    },
    get hub() {
      return hub
    },
    id,
    links,
    join,
    restart,
  }
}

/** An editor's update: what `edit` does to `doc` (a Y.Doc playing a browser tab), base64. */
export function edit(doc: Y.Doc, change: (t: Y.Text) => void): string {
  const before = Y.encodeStateVector(doc)
  change(doc.getText('code'))
  return Buffer.from(Y.encodeStateAsUpdate(doc, before)).toString('base64')
}
