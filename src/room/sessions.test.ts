import { describe, expect, it } from 'vitest'
import { createBody, seedCompany, testApp, testDeps } from '../testing/interviews.ts'
import { roomSessions } from '../storage/schema.ts'
import { csrfMatches, findSession, openSession, pruneSessions, type RoomSession } from './sessions.ts'

const P = '/partner/service/interviews'

async function setup() {
  const deps = testDeps()
  const seed = seedCompany(deps)
  const { call } = testApp(deps)
  const create = async () => (await call('POST', `${P}/`, createBody(seed.admin, deps.now()))).json
  const links = await create()
  const tokenOf = (link: string) => link.slice(-43)
  return { deps, seed, call, create, links, tokenOf }
}

describe('room sessions', () => {
  it('a link opens a session bound to its participant and interview, with the configured lifetime', async () => {
    const t = await setup()
    const opened = openSession(t.deps, t.tokenOf(t.links.interviewer_interview_links['olga@acme.test']))!
    expect(opened.interviewId).toBe(t.links.interview_id)
    expect(opened.maxAgeSec).toBe(t.deps.config.room.session_ttl_min * 60)
    expect(opened.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const s = findSession(t.deps, t.links.interview_id, opened.cookie)!
    expect(s.participant).toMatchObject({ role: 'interviewer', name: 'Olga Other', email: 'olga@acme.test', feedbackRedirectUrl: null })
    expect(s.expiresAt.getTime() - t.deps.now().getTime()).toBe(opened.maxAgeSec * 1000)
    // only the cookie's hash is stored
    expect(t.deps.db.select().from(roomSessions).all().map((r) => r.tokenHash)).not.toContain(opened.cookie)
  })

  it('an unknown, altered or malformed token opens nothing', async () => {
    const t = await setup()
    const token = t.tokenOf(t.links.candidate_interview_link)
    for (const bad of ['', 'x', token.slice(1), token + 'A', (token[0] === 'a' ? 'b' : 'a') + token.slice(1), `${token.slice(0, 42)}=`]) {
      expect(openSession(t.deps, bad), bad).toBeNull()
    }
    expect(t.deps.db.select().from(roomSessions).all()).toEqual([])
  })

  it('a session is only valid for its own interview, before expiry, while its link is live', async () => {
    const t = await setup()
    const other = await t.create()
    const { cookie } = openSession(t.deps, t.tokenOf(t.links.candidate_interview_link))!
    expect(findSession(t.deps, t.links.interview_id, cookie)).not.toBeNull()
    expect(findSession(t.deps, other.interview_id, cookie)).toBeNull()
    expect(findSession(t.deps, t.links.interview_id, undefined)).toBeNull()
    expect(findSession(t.deps, t.links.interview_id.toUpperCase(), cookie)).toBeNull()
    t.deps.advance(t.deps.config.room.session_ttl_min * 60_000)
    expect(findSession(t.deps, t.links.interview_id, cookie)).toBeNull()
  })

  it('re-minting the links (B3) ends the sessions they opened', async () => {
    const t = await setup()
    const { cookie } = openSession(t.deps, t.tokenOf(t.links.candidate_interview_link))!
    await t.call('PUT', `${P}/${t.links.interview_id}/`, createBody(t.seed.admin, t.deps.now()))
    expect(findSession(t.deps, t.links.interview_id, cookie)).toBeNull()
  })

  it('csrfMatches wants the exact token', async () => {
    const t = await setup()
    const { cookie } = openSession(t.deps, t.tokenOf(t.links.candidate_interview_link))!
    const s = findSession(t.deps, t.links.interview_id, cookie) as RoomSession
    expect(csrfMatches(s, s.csrf)).toBe(true)
    for (const bad of [undefined, '', s.csrf.slice(1), s.csrf + 'x', s.csrf.toUpperCase() === s.csrf ? s.csrf.toLowerCase() : s.csrf.toUpperCase()]) {
      expect(csrfMatches(s, bad)).toBe(false)
    }
  })

  it('pruneSessions deletes the expired and the revoked, and keeps the live', async () => {
    const t = await setup()
    const revoked = openSession(t.deps, t.tokenOf(t.links.candidate_interview_link))!
    await t.call('PUT', `${P}/${t.links.interview_id}/`, createBody(t.seed.admin, t.deps.now()))
    const other = await t.create()
    const expiring = openSession(t.deps, t.tokenOf(other.candidate_interview_link))!
    t.deps.advance(60_000)
    const live = openSession(t.deps, t.tokenOf(other.interviewer_interview_links['olga@acme.test']))!
    t.deps.advance(t.deps.config.room.session_ttl_min * 60_000 - 60_000)
    expect(pruneSessions(t.deps)).toBe(2)
    expect(t.deps.db.select().from(roomSessions).all()).toHaveLength(1)
    expect(findSession(t.deps, other.interview_id, live.cookie)).not.toBeNull()
    expect(findSession(t.deps, other.interview_id, expiring.cookie)).toBeNull()
    expect(revoked.cookie).not.toBe(live.cookie)
  })
})
