// Stolen and stale links: a revoked (update, delete) or altered token, a candidate's session on an
// interviewer's action, an interviewer of another interview, a missing or wrong CSRF header, an expired
// session: each gets nothing (no cookie, no page, no stream, no change).
import { describe, expect, it } from 'vitest'
import { interviewFeedback, interviews } from '../storage/schema.ts'
import { createBody, seedCompany, testApp, testDeps } from '../testing/interviews.ts'

const P = '/partner/service/interviews'

interface Links {
  interview_id: string
  candidate_interview_link: string
  interviewer_interview_links: Record<string, string>
}

function setup() {
  const deps = testDeps()
  const seed = seedCompany(deps)
  const { app, call } = testApp(deps)
  const create = async (over: Record<string, unknown> = {}): Promise<Links> => {
    const r = await call('POST', `${P}/`, createBody(seed.admin, deps.now(), over))
    expect(r.status).toBe(201)
    return r.json
  }
  /** Opens a link: the session cookie it sets (null when none) and the reply. */
  const join = async (link: string) => {
    const res = await app.request(new URL(link).pathname)
    const set = res.headers.get('set-cookie')
    return { res, setCookie: set, cookie: set ? /^arbiter_room=([^;]+)/.exec(set)![1] : null }
  }
  const room = (id: string, cookie: string | null, path = '', init: RequestInit = {}) =>
    app.request(`/interviews/room/${id}${path}`, { ...init, headers: { ...(cookie && { cookie: `arbiter_room=${cookie}` }), ...init.headers } })
  /** The CSRF token the room page hands its script. */
  const csrfOf = async (id: string, cookie: string) => {
    const html = await (await room(id, cookie)).text()
    return JSON.parse(/<script type="application\/json" id="boot">(.*?)<\/script>/.exec(html)![1]).csrf as string
  }
  const post = (id: string, cookie: string | null, action: string, body: unknown, csrf?: string) =>
    room(id, cookie, `/${action}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(csrf !== undefined && { 'x-csrf-token': csrf }) },
    })
  const statusOf = async (id: string) => (await call('POST', `${P}/report/`, { ...seed.admin, interview_id: id })).json.status
  return { deps, seed, call, create, join, room, csrfOf, post, statusOf }
}

const FEEDBACK = { result: 'STRONG_YES', ratings: { CODE_QUALITY: { rating: 5, comment: 'great' } } }
const CODE = { code: 'print(1)', language: 'PYTHON3', input: '' }

describe('opening a link', () => {
  it('swaps the token for an HttpOnly session cookie scoped to the room, and redirects to the clean URL', async () => {
    const t = setup()
    const links = await t.create()
    const { res, setCookie, cookie } = await t.join(links.candidate_interview_link)
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`/interviews/room/${links.interview_id}`)
    expect(setCookie).toMatch(new RegExp(`Path=/interviews/room/${links.interview_id}`))
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/SameSite=Lax/)
    const page = await t.room(links.interview_id, cookie)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/)
    expect(await page.text()).toContain('Backend interview')
  })

  it('an altered or unknown token gets a 404 page and no cookie', async () => {
    const t = setup()
    const links = await t.create()
    const token = links.candidate_interview_link.slice(-43)
    const altered = links.candidate_interview_link.slice(0, -43) + (token[0] === 'A' ? 'B' : 'A') + token.slice(1)
    for (const link of [altered, links.candidate_interview_link + 'x', 'http://arbiter.test/interviews/join/short']) {
      const { res, setCookie } = await t.join(link)
      expect(res.status, link).toBe(404)
      expect(setCookie).toBeNull()
      expect(await res.text()).toContain('Link not valid')
    }
  })
})

describe('revoked links', () => {
  it('after an update, the old links and the sessions they opened get nothing; the new links work', async () => {
    const t = setup()
    const links = await t.create()
    const id = links.interview_id
    const old = await t.join(links.interviewer_interview_links['ivan1@acme.test'])
    const csrf = await t.csrfOf(id, old.cookie!)
    const updated = await t.call('PUT', `${P}/${id}/`, createBody(t.seed.admin, t.deps.now()))
    expect(updated.status).toBe(200)

    expect((await t.join(links.interviewer_interview_links['ivan1@acme.test'])).res.status).toBe(404)
    expect((await t.join(links.candidate_interview_link)).res.status).toBe(404)
    expect((await t.room(id, old.cookie)).status).toBe(401)
    expect((await t.room(id, old.cookie, '/events')).status).toBe(401)
    expect((await t.post(id, old.cookie, 'code', CODE, csrf)).status).toBe(401)
    expect((await t.post(id, old.cookie, 'feedback', FEEDBACK, csrf)).status).toBe(401)
    expect((await t.post(id, old.cookie, 'end', {}, csrf)).status).toBe(401)
    expect(await t.statusOf(id)).toBe('upcoming')

    const fresh = await t.join(updated.json.interviewer_interview_links['ivan1@acme.test'])
    expect((await t.room(id, fresh.cookie)).status).toBe(200)
  })

  it('after a delete, links and sessions get nothing', async () => {
    const t = setup()
    const links = await t.create()
    const id = links.interview_id
    const ivan = await t.join(links.interviewer_interview_links['ivan1@acme.test'])
    const csrf = await t.csrfOf(id, ivan.cookie!)
    expect((await t.call('POST', `${P}/delete/`, { ...t.seed.admin, interview_id: id })).status).toBe(200)
    expect((await t.join(links.interviewer_interview_links['ivan1@acme.test'])).res.status).toBe(404)
    expect((await t.room(id, ivan.cookie)).status).toBe(401)
    expect((await t.post(id, ivan.cookie, 'end', {}, csrf)).status).toBe(401)
    expect(t.deps.db.select().from(interviews).get()!.endedAt).toBeNull()
  })

  it('an expired session gets nothing; opening the link again gives a fresh one', async () => {
    const t = setup()
    const links = await t.create()
    const { cookie } = await t.join(links.candidate_interview_link)
    t.deps.advance(t.deps.config.room.session_ttl_min * 60_000 + 1)
    expect((await t.room(links.interview_id, cookie)).status).toBe(401)
    const again = await t.join(links.candidate_interview_link)
    expect((await t.room(links.interview_id, again.cookie)).status).toBe(200)
  })
})

describe('sessions used out of place', () => {
  it("a candidate's session cannot give feedback or end the interview", async () => {
    const t = setup()
    const links = await t.create()
    const id = links.interview_id
    const { cookie } = await t.join(links.candidate_interview_link)
    const csrf = await t.csrfOf(id, cookie!)
    const fb = await t.post(id, cookie, 'feedback', FEEDBACK, csrf)
    expect(fb.status).toBe(403)
    expect(await fb.json()).toEqual({ error: 'RoomForbidden', message: 'only an interviewer can do this' })
    expect((await t.post(id, cookie, 'end', {}, csrf)).status).toBe(403)
    expect(t.deps.db.select().from(interviewFeedback).all()).toEqual([])
    expect(await t.statusOf(id)).toBe('upcoming')
    // nor does its page carry the form, the criteria or the button
    const html = await (await t.room(id, cookie)).text()
    expect(html).not.toContain('id="feedback"')
    expect(html).not.toContain('id="end"')
    expect(html).not.toContain('Problem solving')
  })

  it('an interviewer of another interview gets nothing from this one', async () => {
    const t = setup()
    const mine = await t.create()
    const other = await t.create({ title: 'Other interview' })
    const ivan = await t.join(other.interviewer_interview_links['ivan1@acme.test'])
    const csrf = await t.csrfOf(other.interview_id, ivan.cookie!)
    const id = mine.interview_id
    expect((await t.room(id, ivan.cookie)).status).toBe(401)
    expect((await t.room(id, ivan.cookie, '/events')).status).toBe(401)
    expect((await t.post(id, ivan.cookie, 'code', CODE, csrf)).status).toBe(401)
    expect((await t.post(id, ivan.cookie, 'feedback', FEEDBACK, csrf)).status).toBe(401)
    expect((await t.post(id, ivan.cookie, 'end', {}, csrf)).status).toBe(401)
    expect(await t.statusOf(id)).toBe('upcoming')
    expect(t.deps.db.select().from(interviewFeedback).all()).toEqual([])
  })

  it('a POST without the session\'s CSRF token gets nothing', async () => {
    const t = setup()
    const links = await t.create()
    const id = links.interview_id
    const { cookie } = await t.join(links.interviewer_interview_links['ivan1@acme.test'])
    const csrf = await t.csrfOf(id, cookie!)
    for (const header of [undefined, '', 'x'.repeat(csrf.length), csrf.slice(1)]) {
      expect((await t.post(id, cookie, 'end', {}, header)).status).toBe(403)
      expect((await t.post(id, cookie, 'feedback', FEEDBACK, header)).status).toBe(403)
    }
    expect(await t.statusOf(id)).toBe('upcoming')
    // with it, the same interviewer can
    expect((await t.post(id, cookie, 'feedback', FEEDBACK, csrf)).status).toBe(200)
    const end = await t.post(id, cookie, 'end', {}, csrf)
    expect(await end.json()).toEqual({ status: 'completed', redirect_url: 'https://acme.test/after' })
    expect(await t.statusOf(id)).toBe('completed')
  })

  it('no cookie, or a made-up one, gets nothing', async () => {
    const t = setup()
    const { interview_id: id } = await t.create()
    for (const cookie of [null, 'A'.repeat(43), 'not a cookie']) {
      expect((await t.room(id, cookie)).status).toBe(401)
      expect((await t.post(id, cookie, 'end', {}, 'x')).status).toBe(401)
    }
  })
})

describe('the shared document (/doc)', () => {
  const update = async (doc: import('yjs').Doc, edit: (t: import('yjs').Text) => void) => {
    const Y = await import('yjs')
    const before = Y.encodeStateVector(doc)
    edit(doc.getText('code'))
    return Buffer.from(Y.encodeStateAsUpdate(doc, before)).toString('base64')
  }

  it('merges updates, mirrors the text into the code, keeps it for a new server (restart), refuses what is too large or not Yjs', async () => {
    const Y = await import('yjs')
    const t = setup()
    const links = await t.create()
    const id = links.interview_id
    const { cookie } = await t.join(links.candidate_interview_link)
    const csrf = await t.csrfOf(id, cookie!)
    const doc = new Y.Doc()
    expect((await t.post(id, cookie, 'doc', { update: await update(doc, (x) => x.insert(0, 'print(1)')) }, csrf)).status).toBe(200)
    expect((await t.post(id, cookie, 'doc', { update: await update(doc, (x) => x.insert(8, '\nprint(2)')) }, csrf)).status).toBe(200)
    const row = () => t.deps.db.$client.prepare('select code, doc_state from room_states where interview_id = ?').get(id) as { code: string; doc_state: Buffer }
    expect(row().code).toBe('print(1)\nprint(2)')
    // a new app on the same database (a restart) serves the same document to a new event stream
    const restarted = testApp(t.deps)
    const stored = new Y.Doc()
    Y.applyUpdate(stored, new Uint8Array(row().doc_state))
    expect(stored.getText('code').toString()).toBe('print(1)\nprint(2)')
    const page = await restarted.app.request(`/interviews/room/${id}/doc`, { method: 'POST', headers: { cookie: `arbiter_room=${cookie}`, 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify({ update: await update(doc, (x) => x.insert(0, '# ')) }) })
    expect(page.status).toBe(200)
    expect(row().code).toBe('# print(1)\nprint(2)')
    // too large (room.max_code_bytes), not Yjs, not base64, no CSRF token: refused, nothing changed
    const big = new Y.Doc()
    big.getText('code').insert(0, 'x'.repeat(t.deps.config.room.max_code_bytes))
    const tooLarge = await t.post(id, cookie, 'doc', { update: Buffer.from(Y.encodeStateAsUpdate(big)).toString('base64') }, csrf)
    expect(tooLarge.status).toBe(413)
    expect((await t.post(id, cookie, 'doc', { update: Buffer.from('hello world, not yjs').toString('base64') }, csrf)).status).toBe(400)
    expect((await t.post(id, cookie, 'doc', { update: 'not base64!' }, csrf)).status).toBe(400)
    expect((await t.post(id, cookie, 'doc', { update: '' })).status).toBe(403)
    expect(row().code).toBe('# print(1)\nprint(2)')
  })
})
