import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.ts'
import { findClientBySecret } from '../clients/clients.ts'
import { acceptSubmission } from '../evaluation/submissions.ts'
import { addClient, createTestDeps, type TestDeps, json } from '../testing/evaluation.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

function setup() {
  deps = createTestDeps()
  const client = findClientBySecret(deps.db, addClient(deps))!
  return { app: createApp(deps), client }
}

const hostile = '<script>alert(1)</script> & "quotes"'

describe('output URL', () => {
  test('raw stdout as text/plain to any GET; 404 JSON until completed or for unknown ids', async () => {
    const { app, client } = setup()
    deps.pool.hold()
    const row = acceptSubmission(deps, client, { api: 'v4', lang: 'C', source: 's', input: hostile })
    const early = await app.request(`/output/${row.codeId}`)
    expect(early.status).toBe(404)
    expect((await json(early)).message).toMatch(/^NotFoundError/)
    deps.pool.release()
    await deps.dispatcher.waitFor(row.id)
    const r = await app.request(`/output/${row.codeId}`, { headers: { accept: 'application/json', 'client-secret': 'whatever', range: 'bytes=0-1' } })
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(r.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await r.text()).toBe(hostile)
    expect((await app.request('/output/0123')).status).toBe(404)
  })
})

describe('web_link page', () => {
  test('shows source, language, status and output, all escaped, with a locked-down CSP', async () => {
    const { app, client } = setup()
    const row = acceptSubmission(deps, client, { api: 'v3', lang: 'c++', source: `int main(){} // ${hostile}`, input: hostile })
    await deps.dispatcher.waitFor(row.id)
    const r = await app.request(`/view/${row.codeId}`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toMatch(/^text\/html/)
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'none'/)
    expect(r.headers.get('x-robots-tag')).toMatch(/noindex/)
    const html = await r.text()
    expect(html).not.toContain('<script>')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;')
    expect(html).toContain('C++ (g++)')
    expect(html).toMatch(/<td id="status">AC<\/td>/)
  })

  test('unknown code: an HTML 404', async () => {
    const { app } = setup()
    const r = await app.request('/view/nope')
    expect(r.status).toBe(404)
    expect(await r.text()).toMatch(/No code with this link/)
  })
})
