import { describe, expect, it } from 'vitest'
import { AppError } from '../errors.ts'
import { users } from '../storage/schema.ts'
import {
  addCredits,
  authenticate,
  CLIENT_ID_LENGTH,
  clientIdSuffix,
  createCompany,
  createUser,
  listUsers,
  mintClientId,
  mintClientSecret,
  revokeUser,
} from './accounts.ts'
import { testDeps } from '../testing/interviews.ts'

const codeOf = (fn: () => unknown) => {
  try {
    fn()
    return 'OK'
  } catch (e) {
    return e instanceof AppError ? e.code : String(e)
  }
}

describe('credentials', () => {
  it.each([
    ['https://interviews.example.com', 'api.interviews.example.com'],
    ['https://api.example.com:8443/base', 'api.example.com'],
    ['http://localhost:8080', 'api.localhost'],
    ['http://127.0.0.1:8080', 'api.127-0-0-1.arbiter'],
    ['http://[::1]:8080', 'api.1.arbiter'],
    ['https://a.very.long.sub.domain.name.of.some.company.example.com', 'name.of.some.company.example.com'],
  ])('suffix of %s is %s', (url, want) => expect(clientIdSuffix(url)).toBe(want))

  it('mints 67-character client ids ending in the suffix, 40-character secrets', () => {
    for (const url of ['http://localhost:8080', 'https://interviews.example.com', 'http://10.0.0.5']) {
      const id = mintClientId(url)
      expect(id).toHaveLength(CLIENT_ID_LENGTH)
      expect(id.endsWith(`.${clientIdSuffix(url)}`)).toBe(true)
      expect(id.slice(0, id.length - clientIdSuffix(url).length - 1)).toMatch(/^[0-9a-f]{32,}$/)
    }
    expect(mintClientSecret()).toMatch(/^[0-9a-f]{40}$/)
    expect(mintClientId('http://localhost')).not.toBe(mintClientId('http://localhost'))
  })
})

describe('accounts', () => {
  it('stores neither credential, and authenticates with both', () => {
    const deps = testDeps()
    const company = createCompany(deps, { name: 'Acme', credits: 2, interviewsEnabled: true })
    const { client_id, client_secret } = createUser(deps, { companyId: company.id, email: 'Boss@Acme.io', superAdmin: true })
    const dump = JSON.stringify(deps.db.select().from(users).all())
    expect(dump).not.toContain(client_id)
    expect(dump).not.toContain(client_secret)
    expect(authenticate(deps, client_id, client_secret)).toMatchObject({ companyId: company.id, email: 'boss@acme.io', role: 'super_admin' })
    expect(codeOf(() => authenticate(deps, client_id, client_secret.replace(/.$/, 'x')))).toBe('AUTHFAILED')
    expect(codeOf(() => authenticate(deps, `${client_id}x`, client_secret))).toBe('AUTHFAILED')
    expect(listUsers(deps)[0].client_id).toMatch(/^[0-9a-f]{6}….api.arbiter.test$/)
  })

  it('revoked users answer ACCESSERROR naming the support address; wrong secret stays AUTHFAILED', () => {
    const deps = testDeps({ support_email: 'help@arbiter.test' })
    const company = createCompany(deps, { name: 'Acme', credits: 2, interviewsEnabled: true })
    const u = createUser(deps, { companyId: company.id, email: 'm@acme.io', superAdmin: false })
    revokeUser(deps, { clientId: u.client_id })
    try {
      authenticate(deps, u.client_id, u.client_secret)
      expect.unreachable()
    } catch (e) {
      expect((e as AppError).code).toBe('ACCESSERROR')
      expect((e as AppError).detail).toContain('help@arbiter.test')
    }
    expect(codeOf(() => authenticate(deps, u.client_id, 'f'.repeat(40)))).toBe('AUTHFAILED')
    // the address is free again
    expect(() => createUser(deps, { companyId: company.id, email: 'm@acme.io', superAdmin: false })).not.toThrow()
    expect(() => createUser(deps, { companyId: company.id, email: 'M@acme.io', superAdmin: false })).toThrow(/already has an active user/)
  })

  it('adds credits but never below zero', () => {
    const deps = testDeps()
    const company = createCompany(deps, { name: 'Acme', credits: 2, interviewsEnabled: true })
    expect(addCredits(deps, company.id, 3).credits).toBe(5)
    expect(addCredits(deps, company.id, -5).credits).toBe(0)
    expect(() => addCredits(deps, company.id, -1)).toThrow(/below 0/)
    expect(() => addCredits(deps, 999, 1)).toThrow(/no company/)
  })
})
