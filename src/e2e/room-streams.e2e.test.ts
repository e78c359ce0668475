// The room's event streams against the real server: 20 connections that open a stream and never read it,
// then 1,000 awareness posts and 200 document posts (60 KB inserted, then deleted) relayed to all of
// them. The server's memory stays roughly flat: each stuck stream is cut off once what waits for it
// passes its bound (here 4 × room.max_code_bytes = 256 KiB, on top of what the kernel's socket buffers
// took), its session can open streams again, and a stream that reads gets every event.
import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { Awareness, encodeAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { waitUntil } from '../testing/harness.ts'
import { startServer, type Server } from '../testing/interview-harness.ts'

const P = '/partner/service/interviews'
let s: Server

beforeAll(async () => {
  s = await startServer({ room: { max_code_bytes: 65536, stream_buffer_bytes: 65536, max_streams_per_session: 4, max_streams_per_room: 32 } })
}, 120_000)
afterAll(async () => {
  await s?.stop()
})

const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.pid}/status`, 'utf8'))![1]) / 1024
const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64')

/** Opens a link: the session's cookie and CSRF token. */
async function join(link: string) {
  const res = await fetch(link, { redirect: 'manual' })
  const cookie = /^arbiter_room=([^;]+)/.exec(res.headers.get('set-cookie')!)![1]
  const room = new URL(res.headers.get('location')!, s.base).pathname
  const page = await (await fetch(s.base + room, { headers: { cookie: `arbiter_room=${cookie}` } })).text()
  const csrf = JSON.parse(/<script type="application\/json" id="boot">(.*?)<\/script>/.exec(page)![1]).csrf as string
  const post = async (action: string, body: unknown) =>
    (await fetch(`${s.base}${room}/${action}`, { method: 'POST', headers: { cookie: `arbiter_room=${cookie}`, 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body) })).status
  /** An event stream on a raw connection that reads nothing after the headers. */
  const stuck = () =>
    new Promise<Socket>((ok, fail) => {
      const sock = connect(Number(new URL(s.base).port), '127.0.0.1')
      sock.on('error', () => {})
      sock.once('connect', () => sock.write(`GET ${room}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: arbiter_room=${cookie}\r\nAccept: text/event-stream\r\n\r\n`))
      sock.once('data', (d) => {
        if (!d.toString().startsWith('HTTP/1.1 200')) return fail(new Error(d.toString().slice(0, 200)))
        sock.pause()
        ok(sock)
      })
    })
  const streamStatus = async () => {
    const ac = new AbortController()
    const r = await fetch(`${s.base}${room}/events`, { headers: { cookie: `arbiter_room=${cookie}` }, signal: ac.signal })
    ac.abort()
    return r.status
  }
  return { cookie, post, stuck, streamStatus, room }
}

test('20 streams that never read, 1,000 awareness and 200 document posts: memory stays flat, the stuck streams are cut off, a reader gets everything', { timeout: 240_000 }, async () => {
  const company = await s.cli('companies', 'create', '--name', 'Acme', '--credits', '5', '--json')
  const admin = await s.cli('users', 'create', '--company', String(company.id), '--email', 'boss@acme.test', '--super-admin', '--json')
  const created = await s.call('POST', `${P}/`, {
    ...admin,
    title: 'Streams',
    start_datetime: new Date(Date.now() - 60_000).toISOString(),
    candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com' },
    interviewers: [{ full_name: 'Ivan Interviewer', email_id: 'ivan@acme.test' }],
  })
  expect(created.status).toBe(201)
  const cand = await join(created.json.candidate_interview_link)
  const sessions = await Promise.all(Array.from({ length: 5 }, () => join(created.json.interviewer_interview_links['ivan@acme.test'])))
  const sockets: Socket[] = []
  for (const who of sessions) for (let i = 0; i < 4; i++) sockets.push(await who.stuck())
  // the per-session cap holds on the real server too
  expect(await sessions[0].streamStatus()).toBe(429)

  // a reader that keeps up, counting what it gets
  const reader = await join(created.json.interviewer_interview_links['ivan@acme.test'])
  const ac = new AbortController()
  const res = await fetch(`${s.base}${reader.room}/events`, { headers: { cookie: `arbiter_room=${reader.cookie}` }, signal: ac.signal })
  let text = ''
  const counting = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of res.body!) text += decoder.decode(chunk as Uint8Array, { stream: true })
    } catch {
      // aborted at the end
    }
  })()
  const seen = (type: string) => text.split(`event: ${type}\n`).length - 1

  const before = rssMb()
  const doc = new Y.Doc()
  const aw = new Awareness(doc)
  const big = 'x'.repeat(60_000)
  for (let i = 0; i < 1000; i++) {
    aw.setLocalStateField('cursor', null)
    aw.setLocalStateField('user', { name: 'n'.repeat(8000) })
    expect(await cand.post('awareness', { update: b64(encodeAwarenessUpdate(aw, [doc.clientID])) })).toBe(200)
    if (i >= 200) continue
    const sv = Y.encodeStateVector(doc)
    if (i % 2 === 0) doc.getText('code').insert(0, big)
    else doc.getText('code').delete(0, big.length)
    expect(await cand.post('doc', { update: b64(Y.encodeStateAsUpdate(doc, sv)) })).toBe(200)
  }
  const after = rssMb()
  await waitUntil(() => seen('awareness') >= 1000 && seen('doc') >= 201, 30_000, 'every event at the reader')
  ac.abort()
  await counting
  // 20 × 8 MB of relayed documents would wait without the bound (the kernel takes ~4 MB of each); with it, 20 × 256 KiB
  expect(after - before, `RSS ${before.toFixed(0)} → ${after.toFixed(0)} MB`).toBeLessThan(30)
  // the stuck streams were let go: each of their sessions may open streams again
  for (const who of sessions) await waitUntil(async () => (await who.streamStatus()) === 200, 10_000, 'a stuck session to be let go')
  for (const x of sockets) x.destroy()
  console.log(`room streams: server RSS ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after the burst`)
})
