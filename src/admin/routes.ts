// /admin: the admin's dashboard. Sign-in with a token from `cli admin create` (failures throttled per
// address); a server-side session behind a random cookie (Path=/admin, HttpOnly, SameSite=Strict) and a
// CSRF token in every form, sign-out included; every request re-checks that the admin is not revoked.
// Writes: create and revoke clients, retry failed deliveries.
import type { Context } from 'hono'
import { Hono } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { Deps } from '../deps.ts'
import { createClient, revokeClient } from '../clients/clients.ts'
import { AppError } from '../errors.ts'
import { readBody } from '../http/body.ts'
import { requestAddress } from '../http/client-address.ts'
import { consumeRate, rateRefusal, type RateLimits } from '../http/rate-limit.ts'
import { retryFailed } from '../jobs/outbox.ts'
import { activeAdmin, findAdminByToken, type Admin } from './admins.ts'
import { dashboard, live } from './dashboard.ts'
import { createHealth } from '../health.ts'
import { ADMIN_CSP, dashboardPage, LIVE_SCRIPT, signInPage } from './page.ts'
import { ADMIN_COOKIE, csrfFor, csrfMatches, endSession, SESSION_TTL_SEC, startSession, verifySession } from './session.ts'

const HEADERS = { 'content-security-policy': ADMIN_CSP, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' }

export function adminRoutes(deps: Deps): Hono {
  const app = new Hono()
  const secure = deps.config.server.public_url.startsWith('https:')
  const body = readBody(64 * 1024)

  const signedIn = (c: Context): { admin: Admin; cookie: string } | null => {
    const cookie = getCookie(c, ADMIN_COOKIE)
    const id = verifySession(deps.db, deps.now(), cookie)
    const admin = id === null ? undefined : activeAdmin(deps.db, id)
    return admin && cookie ? { admin, cookie } : null
  }
  const page = (c: Context, html: string, status: 200 | 401 | 403 | 429 = 200, extra: Record<string, string> = {}) => c.html(html, status, { ...HEADERS, ...extra })
  // the result is shown on the page answering the POST, never put in a URL (a new client's secret is in it)
  // the same parts as /health, at the top of the page
  const health = createHealth(deps)
  const after = async (c: Context, s: { admin: Admin; cookie: string }, flash: string) =>
    page(c, dashboardPage(dashboard(deps), s.admin.name, csrfFor(deps.db, deps.now(), s.cookie), flash, await health()))

  /** A write: signed in, and the form's CSRF token matches the session's. */
  const guarded = (write: (c: Context) => string | Promise<string>) => async (c: Context) => {
    const s = signedIn(c)
    if (!s) return page(c, signInPage('Your session ended: sign in again.'), 401)
    if (!csrfMatches(deps.db, deps.now(), s.cookie, c.var.body.csrf)) return page(c, signInPage('The form was stale or forged (CSRF check): sign in again.'), 403)
    return after(c, s, await write(c))
  }

  // GET /admin
  app.get('/admin', async (c) => {
    const s = signedIn(c)
    if (!s) return page(c, signInPage())
    return page(c, dashboardPage(dashboard(deps), s.admin.name, csrfFor(deps.db, deps.now(), s.cookie), undefined, await health()))
  })

  // failed sign-ins per client address (admin.sign_in_failures_*), counted in SQLite so a restart gives no fresh allowance
  const signInLimits = (): RateLimits => ({ perMinute: deps.config.admin.sign_in_failures_per_minute, perDay: deps.config.admin.sign_in_failures_per_day })
  const addressOf = (c: Context) => requestAddress(c, new Set(deps.config.server.trusted_proxies))
  const throttled = (c: Context, retryAfterSec: number) =>
    page(c, signInPage(`Too many failed sign-ins from this address: try again in ${retryAfterSec} s.`), 429, { 'retry-after': String(retryAfterSec) })

  // POST /admin/login
  app.post('/admin/login', body, (c) => {
    const subject = `admin-sign-in:${addressOf(c)}`
    // a locked-out address is refused before its token is even looked at (no guessing at full speed)
    const wait = rateRefusal(deps, subject, signInLimits())
    if (wait > 0) return throttled(c, wait)
    const admin = findAdminByToken(deps.db, String(c.var.body.token ?? ''))
    if (!admin) {
      deps.log.warn('admin sign-in failed', { address: addressOf(c) })
      try {
        consumeRate(deps, subject, signInLimits())
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        return throttled(c, Number(err.data.retryAfterSec) || 60)
      }
      return page(c, signInPage('Unknown or revoked admin token.'), 401)
    }
    setCookie(c, ADMIN_COOKIE, startSession(deps.db, deps.now(), admin.id), { path: '/admin', httpOnly: true, sameSite: 'Strict', secure, maxAge: SESSION_TTL_SEC })
    deps.log.info('admin signed in', { admin: admin.name })
    return c.redirect('/admin', 303)
  })

  // POST /admin/logout: CSRF-checked (a forged form cannot sign an admin out); the session ends on the server.
  // The cookie is deleted only with the session it names: a cross-site form post carries no cookie
  // (SameSite=Strict), and a browser would still apply a deletion in its answer, signing the admin out.
  app.post('/admin/logout', body, (c) => {
    const s = signedIn(c)
    if (s) {
      if (!csrfMatches(deps.db, deps.now(), s.cookie, c.var.body.csrf)) return page(c, signInPage('The form was stale or forged (CSRF check).'), 403)
      endSession(deps.db, s.cookie)
      deps.log.info('admin signed out', { admin: s.admin.name })
      deleteCookie(c, ADMIN_COOKIE, { path: '/admin' })
    }
    return c.redirect('/admin', 303)
  })

  // GET /admin/live: the live numbers of the queue and the pool
  app.get('/admin/live', (c) => (signedIn(c) ? c.json(live(deps), 200, { 'cache-control': 'no-store' }) : c.json({ error: 'sign in' }, 401)))

  // GET /admin/assets/admin.js
  app.get('/admin/assets/admin.js', (c) => c.body(LIVE_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }))

  // POST /admin/clients
  app.post(
    '/admin/clients',
    body,
    guarded((c) => {
      const name = String(c.var.body.name ?? '').trim()
      const quotaText = String(c.var.body.quota ?? '').trim()
      if (!name || name.length > 100) return 'A client needs a name (at most 100 characters).'
      const quota = quotaText === '' ? undefined : Number(quotaText)
      if (quota !== undefined && (!Number.isInteger(quota) || quota < 0)) return 'The quota is a whole number, 0 or more.'
      const { client, secret } = createClient(deps.db, deps.now(), { name, quota })
      // shown once, as the CLI does
      return `Client ${client.name} created. Its client_secret (shown only now): ${secret}`
    })
  )

  // POST /admin/clients/<id>/revoke
  app.post(
    '/admin/clients/:id/revoke',
    body,
    guarded((c) => {
      const id = c.req.param('id') ?? ''
      if (!/^\d{1,9}$/.test(id)) return 'No such client.'
      try {
        return `Client ${revokeClient(deps.db, deps.now(), id).name} revoked.`
      } catch (err) {
        return (err as Error).message
      }
    })
  )

  // POST /admin/outbox/retry and /admin/outbox/<id>/retry
  const retry = (id?: number) => {
    const ids = retryFailed(deps.db, deps.now(), id)
    deps.outbox.wake()
    return ids.length ? `Queued again: ${ids.map((i) => `#${i}`).join(', ')}.` : 'Nothing to retry.'
  }
  app.post('/admin/outbox/retry', body, guarded(() => retry()))
  app.post(
    '/admin/outbox/:id/retry',
    body,
    guarded((c) => {
      const id = c.req.param('id') ?? ''
      return /^\d{1,12}$/.test(id) ? retry(Number(id)) : 'No such delivery.'
    })
  )
  return app
}
