import { Hono } from 'hono'
import { describe, expect, test } from 'vitest'
import { cors } from './cors.ts'

function appWith(allowed: string[]) {
  const app = new Hono()
  let made: Response | undefined
  app.use(
    '*',
    cors({
      origin: (o) => (allowed.includes('*') ? '*' : allowed.includes(o) ? o : null),
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      allowHeaders: ['client-secret', 'content-type'],
      maxAge: 600,
    })
  )
  app.post('/x', (c) => (made = c.json({ a: 1 })))
  app.get('/own', (c) => c.body('out', 200, { 'access-control-allow-origin': '*' }))
  return { app, made: () => made }
}

describe('cors', () => {
  test('a preflight from an allowed origin: 204 with its origin, methods, headers and max age; another origin gets none', async () => {
    const { app } = appWith(['https://app.example'])
    const pre = (origin: string) => app.request('/x', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } })
    const ok = await pre('https://app.example')
    expect(ok.status).toBe(204)
    expect(Object.fromEntries(ok.headers)).toEqual({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-methods': 'GET,POST,OPTIONS',
      'access-control-allow-headers': 'client-secret,content-type',
      'access-control-max-age': '600',
      vary: 'Origin, Access-Control-Request-Headers',
    })
    const other = await pre('https://evil.example')
    expect(other.status).toBe(204)
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('a request from an allowed origin carries it; from none or another, none; Vary: Origin on each', async () => {
    const { app } = appWith(['https://app.example'])
    const post = (headers: Record<string, string>) => app.request('/x', { method: 'POST', headers })
    const ok = await post({ origin: 'https://app.example' })
    expect([ok.status, ok.headers.get('access-control-allow-origin'), ok.headers.get('vary'), await ok.json()]).toEqual([200, 'https://app.example', 'Origin', { a: 1 }])
    for (const headers of [{}, { origin: 'https://evil.example' }] as Record<string, string>[]) {
      const r = await post(headers)
      expect([r.headers.get('access-control-allow-origin'), r.headers.get('vary')]).toEqual([null, 'Origin'])
    }
  })

  test("every origin allowed: '*', and no Vary (the answer does not depend on the origin)", async () => {
    const r = await appWith(['*']).app.request('/x', { method: 'POST', headers: { origin: 'https://any.example' } })
    expect([r.headers.get('access-control-allow-origin'), r.headers.get('vary')]).toEqual(['*', null])
  })

  test("a route's own allow-origin stays unless the request's origin is allowed", async () => {
    const { app } = appWith(['https://app.example'])
    expect((await app.request('/own')).headers.get('access-control-allow-origin')).toBe('*')
    expect((await app.request('/own', { headers: { origin: 'https://app.example' } })).headers.get('access-control-allow-origin')).toBe('https://app.example')
  })

  test('the reply the route made is the one sent, not rebuilt around its body (hono/cors rebuilds it as a stream)', async () => {
    const { app, made } = appWith(['https://app.example'])
    const r = await app.request('/x', { method: 'POST' })
    expect(r).toBe(made())
  })
})
