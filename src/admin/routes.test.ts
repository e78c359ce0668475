// The dashboard's sessions through its routes: sign-out ends a session on the server (a copied cookie
// stops working), sign-out needs the CSRF token, revoking the admin ends its sessions, sessions
// expire, and failed sign-ins are throttled per address with Retry-After.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createApp } from '../app.ts'
import { createTestDeps, testConfig, type TestDeps } from '../testing/evaluation.ts'
import { createAdmin, revokeAdmin } from './admins.ts'
import { ADMIN_COOKIE, SESSION_TTL_SEC } from './session.ts'

let deps: TestDeps
let clock: Date
let app: ReturnType<typeof createApp>
let token: string

beforeEach(() => {
  clock = new Date('2026-11-26T10:00:00Z')
  deps = createTestDeps({ config: testConfig({ admin: { sign_in_failures_per_minute: 3, sign_in_failures_per_day: 10 } }), start: false })
  deps.now = () => clock
  app = createApp(deps)
  token = createAdmin(deps.db, clock, 'ada').token
})
afterEach(() => deps.stop())

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
})

/** A sign-in over a connection from `peer` (the node server's socket), optionally with X-Forwarded-For. */
async function signIn(t = token, peer?: string, forwardedFor?: string): Promise<Response> {
  const init = form({ token: t })
  const headers: Record<string, string> = { ...init.headers, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) }
  return app.request('/admin/login', { ...init, headers }, peer ? { incoming: { socket: { remoteAddress: peer, remoteFamily: 'IPv4', remotePort: 40000 } } } : undefined)
}

async function cookieOf(res: Response): Promise<string> {
  const set = res.headers.get('set-cookie') ?? ''
  const m = new RegExp(`${ADMIN_COOKIE}=([^;]*)`).exec(set)
  expect(m, set).toBeTruthy()
  return m![1]
}

const dashboard = (cookie: string) => app.request('/admin', { headers: { cookie: `${ADMIN_COOKIE}=${cookie}` } })
const isDashboard = async (res: Response) => (await res.text()).includes('id="sign-out"')
const csrfOf = async (cookie: string) => /name="csrf" value="([^"]+)"/.exec(await (await dashboard(cookie)).text())![1]

describe('admin sessions', () => {
  it('sign-out ends the session on the server: the same cookie, kept by someone else, no longer opens or writes', async () => {
    const cookie = await cookieOf(await signIn())
    expect(await isDashboard(await dashboard(cookie))).toBe(true)
    const csrf = await csrfOf(cookie)
    const out = await app.request('/admin/logout', { ...form({ csrf }), headers: { ...form({}).headers, cookie: `${ADMIN_COOKIE}=${cookie}` } })
    expect(out.status).toBe(303)
    expect(await isDashboard(await dashboard(cookie))).toBe(false)
    // a write with the copied cookie and its old CSRF token is refused too
    const write = await app.request('/admin/clients', { ...form({ csrf, name: 'mallory' }), headers: { ...form({}).headers, cookie: `${ADMIN_COOKIE}=${cookie}` } })
    expect(write.status).toBe(401)
    expect(deps.db.$client.prepare(`select count(*) n from clients where name = 'mallory'`).get()).toEqual({ n: 0 })
  })

  it('sign-out without the CSRF token is refused and the session stays', async () => {
    const cookie = await cookieOf(await signIn())
    const out = await app.request('/admin/logout', { ...form({}), headers: { ...form({}).headers, cookie: `${ADMIN_COOKIE}=${cookie}` } })
    expect(out.status).toBe(403)
    expect(await isDashboard(await dashboard(cookie))).toBe(true)
  })

  it('a sign-out post without the cookie (a cross-site form: SameSite=Strict sends none) deletes no cookie', async () => {
    const out = await app.request('/admin/logout', form({}))
    expect(out.status).toBe(303)
    expect(out.headers.get('set-cookie')).toBeNull()
  })

  it('revoking the admin ends its sessions at once; a session expires after its time', async () => {
    const first = await cookieOf(await signIn())
    revokeAdmin(deps.db, clock, 'ada')
    expect(await isDashboard(await dashboard(first))).toBe(false)
    expect(deps.db.$client.prepare('select count(*) n from admin_sessions').get()).toEqual({ n: 0 })

    const bea = createAdmin(deps.db, clock, 'bea').token
    const second = await cookieOf(await signIn(bea))
    clock = new Date(clock.getTime() + (SESSION_TTL_SEC - 1) * 1000)
    expect(await isDashboard(await dashboard(second))).toBe(true)
    clock = new Date(clock.getTime() + 2000)
    expect(await isDashboard(await dashboard(second))).toBe(false)
  })

  it('a forged or made-up cookie opens nothing', async () => {
    await signIn()
    for (const fake of ['1.9999999999.' + 'A'.repeat(43), 'A'.repeat(43), '', '../../x']) expect(await isDashboard(await dashboard(fake))).toBe(false)
  })
})

describe('sign-in throttling', () => {
  it('failed sign-ins past the limit answer 429 with Retry-After, even for the right token, until the window passes', async () => {
    for (let i = 0; i < 3; i++) expect((await signIn('adm_wrong')).status).toBe(401)
    const refused = await signIn('adm_wrong')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    // locked out: the right token is not even looked at
    const right = await signIn()
    expect(right.status).toBe(429)
    expect(right.headers.get('set-cookie')).toBeNull()
    clock = new Date(clock.getTime() + 61_000)
    expect((await signIn()).status).toBe(303)
  })

  it('per address: one address locked out leaves another signing in', async () => {
    for (let i = 0; i < 4; i++) await signIn('adm_wrong', '203.0.113.7')
    expect((await signIn(token, '203.0.113.7')).status).toBe(429)
    expect((await signIn(token, '198.51.100.2')).status).toBe(303)
  })

  it('behind a trusted proxy (server.trusted_proxies): per client address from X-Forwarded-For, which a client cannot forge', async () => {
    // every request comes from the proxy on loopback; an attacker behind it locks out only itself
    for (let i = 0; i < 4; i++) await signIn('adm_wrong', '127.0.0.1', '203.0.113.7')
    expect((await signIn(token, '127.0.0.1', '203.0.113.7')).status).toBe(429)
    expect((await signIn(token, '127.0.0.1', '198.51.100.2')).status).toBe(303)
    // writing another address to the left changes nothing: the proxy appended the real one
    expect((await signIn(token, '127.0.0.1', '198.51.100.2, 203.0.113.7')).status).toBe(429)
    // a direct client's own X-Forwarded-For is not read
    for (let i = 0; i < 4; i++) await signIn('adm_wrong', '192.0.2.9', '198.51.100.3')
    expect((await signIn(token, '127.0.0.1', '198.51.100.3')).status).toBe(303)
  })

  it('successful sign-ins are not counted', async () => {
    for (let i = 0; i < 6; i++) expect((await signIn()).status).toBe(303)
  })
})
