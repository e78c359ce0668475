import { describe, expect, it } from 'vitest'
import { interviewParticipants } from '../storage/schema.ts'
import { hashToken, linkUrl, mintToken, verifyToken } from './links.ts'
import { createInterview } from './interviews.ts'
import { authenticate } from './accounts.ts'
import { createBody, seedCompany, testDeps } from '../testing/interviews.ts'
import { readRequest, InterviewCreate } from './schemas.ts'

describe('links', () => {
  it('mints 256-bit URL-safe tokens', () => {
    const t = mintToken()
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(mintToken()).not.toBe(t)
    expect(linkUrl('https://a.test', t)).toBe(`https://a.test/interviews/join/${t}`)
  })

  it('stores only hashes and finds the participant by its token', async () => {
    const deps = testDeps()
    const { admin } = seedCompany(deps)
    const user = authenticate(deps, admin.client_id, admin.client_secret)
    const links = await createInterview(deps, user, readRequest(InterviewCreate, createBody(admin, deps.now())))
    const token = links.candidate_interview_link.split('/').pop()!
    const stored = deps.db.select().from(interviewParticipants).all()
    expect(JSON.stringify(stored)).not.toContain(token)
    expect(stored.map((p) => p.tokenHash)).toContain(hashToken(token))
    expect(verifyToken(deps, token)?.participant.role).toBe('candidate')
    const ivan = links.interviewer_interview_links['ivan1@acme.test'].split('/').pop()!
    expect(verifyToken(deps, ivan)?.participant.email).toBe('ivan1@acme.test')
    expect(verifyToken(deps, mintToken())).toBeNull()
    expect(verifyToken(deps, 'short')).toBeNull()
  })
})
