// HTTP routes of the interview room: the link landing (token → session cookie → clean URL), the page,
// its event stream (server-sent events), and the POSTs that change the shared editor, run the code, save
// an interviewer's feedback and end the interview. Every call checks the session belongs to this
// interview; POSTs also need the session's CSRF token, and feedback / end need an interviewer.
import { Hono, type Context } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import { streamSSE } from 'hono/streaming'
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { readBody } from '../http/body.ts'
import { roomError } from './error-bodies.ts'
import { EVAL_PARAM_LABELS, FeedbackSubmission, RATING_KEYS, RATING_SCALE, RESULTS } from '../interviews/feedback.ts'
import { endInterview, interviewStatus, roomInterview, storedFeedback, submitFeedback } from '../interviews/lifecycle.ts'
import { LINK_PATH } from '../interviews/links.ts'
import { readAwareness, relayedAwareness } from './awareness.ts'
import { createClientIds } from './client-ids.ts'
import { createRoomDocs, type RoomDocs } from './doc.ts'
import { editorBundle } from './editor/bundle.ts'
import { EventQueue } from './event-queue.ts'
import { createRoomHub, type RoomHub } from './hub.ts'
import { EDITOR_PATH, renderMessagePage, renderRoomPage, pageHeaders } from './page.ts'
import { offeredLanguages, roomState, runCode, saveState } from './room.ts'
import { COOKIE, csrfMatches, findSession, openSession, roomPath, type RoomSession } from './sessions.ts'

/** How often an open event stream re-checks its session and the interview's status. */
const HEARTBEAT_MS = 15_000

const EditorChange = z.object({
  code: z.string(),
  language: z.string().max(40),
  input: z.string().default(''),
  /** The browser tab that made the change, echoed so it can skip its own. */
  cid: z.string().max(64).optional(),
})

/** A Yjs update (or awareness update) from the editor, base64. */
const DocUpdate = z.object({
  update: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64'),
  cid: z.string().max(64).optional(),
})

const nonce = () => randomBytes(16).toString('base64')

function messagePage(c: Context, status: 401 | 404, title: string, text: string) {
  const n = nonce()
  return c.html(renderMessagePage(n, title, text), status, pageHeaders(n))
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body)
  if (!r.success) {
    const i = r.error.issues[0]
    throw new AppError('RoomBadRequest', `${i.path.join('.') || 'body'}: ${i.message}`)
  }
  return r.data
}

/** The caps on event streams, read from the config at each use (a reload applies them). */
export const streamLimits = (deps: Pick<Deps, 'config'>) => () => ({ perSession: deps.config.room.max_streams_per_session, perRoom: deps.config.room.max_streams_per_room })

/** Bytes a stream may have waiting: the configured bound, never less than a whole document and then some. */
const streamBuffer = (deps: Pick<Deps, 'config'>) => Math.max(deps.config.room.stream_buffer_bytes, 4 * deps.config.room.max_code_bytes)

export function roomRoutes(deps: Deps, hub: RoomHub = createRoomHub(streamLimits(deps)), docs: RoomDocs = createRoomDocs(deps)): Hono {
  const app = new Hono()
  const clientIds = createClientIds(deps)
  const cookiePath = (id: string) => roomPath(id)
  const secure = deps.config.server.public_url.startsWith('https:')

  const session = (c: Context): RoomSession | null => findSession(deps, c.req.param('id') ?? '', getCookie(c, COOKIE))

  /** The session of a POST: signed in to this interview, with its CSRF token, in the role asked for. */
  const actor = (c: Context, role?: 'interviewer'): RoomSession => {
    const s = session(c)
    if (!s) throw new AppError('RoomSessionRequired', 'not signed in to this interview: open your link again')
    if (!csrfMatches(s, c.req.header('x-csrf-token'))) throw new AppError('RoomForbidden', 'missing or wrong x-csrf-token')
    if (role && s.participant.role !== role) throw new AppError('RoomForbidden', 'only an interviewer can do this')
    return s
  }

  const refuseEnded = (id: string) => {
    if (interviewStatus(deps, id) === 'completed') throw new AppError('RoomEnded', 'the interview has ended')
  }

  const bodyLimit = readBody(2 * deps.config.room.max_code_bytes + 64 * 1024)

  // GET /interviews/join/<token>  (the auto-login link)
  app.get(`${LINK_PATH}:token`, (c) => {
    const opened = openSession(deps, c.req.param('token'))
    if (!opened) {
      return messagePage(c, 404, 'Link not valid', 'This interview link is unknown or was replaced by a newer one. Please use the latest link you received.')
    }
    setCookie(c, COOKIE, opened.cookie, { path: cookiePath(opened.interviewId), httpOnly: true, sameSite: 'Lax', secure, maxAge: opened.maxAgeSec })
    c.header('cache-control', 'no-store')
    c.header('referrer-policy', 'no-referrer')
    return c.redirect(roomPath(opened.interviewId), 303)
  })

  // GET /interviews/room/<interview_id>
  app.get('/interviews/room/:id', (c) => {
    const s = session(c)
    if (!s) return messagePage(c, 401, 'Not signed in', 'Open the interview link from your invitation (again) to enter this room.')
    const view = roomInterview(deps, s.interviewId)
    const state = roomState(deps, s.interviewId)
    const interviewer = s.participant.role === 'interviewer'
    const mine = interviewer ? storedFeedback(deps, s.interviewId, s.participant.email) : null
    const n = nonce()
    const html = renderRoomPage({
      nonce: n,
      base: roomPath(s.interviewId),
      csrf: s.csrf,
      me: { id: s.participant.id, name: s.participant.name, role: s.participant.role },
      interview: { title: view.row.title, startDatetime: view.startDatetime, endDatetime: view.endDatetime, status: view.status },
      participants: view.participants.map((p) => ({ id: p.id, name: p.fullName, role: p.role })),
      languages: offeredLanguages(deps),
      state,
      lastRun: state.lastRun,
      ...(interviewer && {
        feedback: {
          evalParams: view.row.evalParams,
          keys: RATING_KEYS.map((k) => ({ key: k, verbose: RATING_SCALE[k].verbose, labels: RATING_SCALE[k].labels })),
          evalLabels: EVAL_PARAM_LABELS,
          results: Object.entries(RESULTS),
          mine,
        },
      }),
    })
    return c.html(html, 200, pageHeaders(n))
  })

  // GET /interviews/room/<interview_id>/events  (server-sent events: state, doc, awareness, run, running, status, presence)
  app.get('/interviews/room/:id/events', (c) => {
    const s = session(c)
    if (!s) throw new AppError('RoomSessionRequired', 'not signed in to this interview')
    const id = s.interviewId
    const cookie = getCookie(c, COOKIE)
    // a reader too slow for what waits for it is cut off: the connection too, not only the body
    const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing
    const events = new EventQueue(streamBuffer(deps), (why) => {
      if (why === 'slow') outgoing?.destroy()
    })
    // what the page starts from, queued before the stream joins the room so no change falls in between
    const { lastRun, ...state } = roomState(deps, id)
    let status = interviewStatus(deps, id)
    events.send({ type: 'state', data: state })
    // the shared document as it is now; the others' updates follow as 'doc' events
    events.send({ type: 'doc', data: { update: Buffer.from(docs.state(id)).toString('base64'), init: true } })
    events.send({ type: 'status', data: { status } })
    if (lastRun) events.send({ type: 'run', data: lastRun })
    // over the caps: refused here, before the stream starts (429 RoomBusy)
    const unsubscribe = hub.subscribe(id, { sessionId: s.id, participantId: s.participant.id }, events)
    c.header('cache-control', 'no-store')
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => events.close())
      events.attach(stream)
      try {
        while (!events.closed) {
          await events.sleep(HEARTBEAT_MS)
          if (events.closed) break
          // a link re-minted or revoked meanwhile ends the stream too
          if (!findSession(deps, id, cookie)) {
            events.send({ type: 'signed-out', data: {} })
            await events.drained()
            break
          }
          const now = interviewStatus(deps, id)
          if (now !== status) hub.publish(id, { type: 'status', data: { status: (status = now) } })
          events.comment('ping')
        }
      } catch {
        // the interview was deleted meanwhile
      } finally {
        unsubscribe()
        events.close()
      }
    })
  })

  // GET /interviews/room-assets/editor.js  (the editor's bundle: CodeMirror, Yjs; no secrets in it)
  app.get(EDITOR_PATH, async (c) => {
    const js = await editorBundle()
    return c.body(js, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })
  })

  // POST /interviews/room/<interview_id>/doc  (a Yjs update of the shared code: merged, stored, passed on)
  app.post('/interviews/room/:id/doc', bodyLimit, (c) => {
    const s = actor(c)
    const { update, cid } = parse(DocUpdate, c.var.body)
    refuseEnded(s.interviewId)
    const { replaced } = docs.apply(s.interviewId, Buffer.from(update, 'base64'), (client) => clientIds.claim(s.interviewId, s.id, client))
    // a document started again from its text goes to every page whole, the poster's too: each sees it is not
    // the one it has and reloads from it (client.ts applyRemote)
    if (replaced) hub.publish(s.interviewId, { type: 'doc', data: { update: Buffer.from(docs.state(s.interviewId)).toString('base64'), init: true } })
    else hub.publish(s.interviewId, { type: 'doc', data: { update, cid } })
    return c.json({ saved: true, ...(replaced ? { replaced: true } : {}) })
  })

  // POST /interviews/room/<interview_id>/awareness  (where a participant's cursor and selection are; not stored)
  app.post('/interviews/room/:id/awareness', readBody(16 * 1024), (c) => {
    const s = actor(c)
    const { update, cid } = parse(DocUpdate, c.var.body)
    refuseEnded(s.interviewId)
    const entry = readAwareness(Buffer.from(update, 'base64'))
    if (!clientIds.claim(s.interviewId, s.id, entry.clientId)) {
      throw new AppError('RoomForbidden', `awareness: Yjs client ${entry.clientId} belongs to another participant's editor`)
    }
    // relayed as the server writes it: the name, role and colour are the session's
    const relayed = relayedAwareness(entry, { id: s.participant.id, name: s.participant.name, role: s.participant.role })
    hub.publish(s.interviewId, { type: 'awareness', data: { update: Buffer.from(relayed).toString('base64'), cid } })
    return c.json({ ok: true })
  })

  // POST /interviews/room/<interview_id>/code  (the language or the input changed; the code is the shared document's)
  app.post('/interviews/room/:id/code', bodyLimit, (c) => {
    const s = actor(c)
    const change = { ...parse(EditorChange, c.var.body), code: docs.text(s.interviewId) }
    refuseEnded(s.interviewId)
    const state = saveState(deps, s.interviewId, change)
    hub.publish(s.interviewId, { type: 'state', data: { ...state, cid: change.cid, by: s.participant.name } })
    return c.json({ version: state.version })
  })

  // POST /interviews/room/<interview_id>/run  (runs the editor's code in the sandbox; everyone sees the output)
  app.post('/interviews/room/:id/run', bodyLimit, async (c) => {
    const s = actor(c)
    // it runs the shared document's code, whatever the page sent
    const change = { ...parse(EditorChange, c.var.body), code: docs.text(s.interviewId) }
    refuseEnded(s.interviewId)
    const state = saveState(deps, s.interviewId, change)
    hub.publish(s.interviewId, { type: 'state', data: { ...state, cid: change.cid, by: s.participant.name } })
    hub.publish(s.interviewId, { type: 'running', data: { by: s.participant.name } })
    const output = await runCode(deps, hub, s.interviewId, s.participant.name, change)
    hub.publish(s.interviewId, { type: 'run', data: output })
    return c.json(output)
  })

  // POST /interviews/room/<interview_id>/feedback  (interviewers: result and ratings)
  app.post('/interviews/room/:id/feedback', bodyLimit, (c) => {
    const s = actor(c, 'interviewer')
    submitFeedback(deps, s.interviewId, s.participant.email, parse(FeedbackSubmission, c.var.body))
    return c.json({ saved: true })
  })

  // POST /interviews/room/<interview_id>/end  (interviewers: completes the interview for everyone)
  app.post('/interviews/room/:id/end', (c) => {
    const s = actor(c, 'interviewer')
    const { status } = endInterview(deps, s.interviewId)
    clientIds.forget(s.interviewId)
    hub.publish(s.interviewId, { type: 'status', data: { status } })
    return c.json({ status, redirect_url: s.participant.feedbackRedirectUrl ?? roomPath(s.interviewId) })
  })

  app.onError(roomError(deps.log))
  return app
}
