// Adding a wire protocol touches its folder and one line of src/protocols.ts: shown with a throwaway
// face defined here (its "folder"), registered with one line, served by the real app and core with no
// other file changed, its part in the OpenAPI document and its route there, while the faces already
// there answer as before.
import { Hono } from 'hono'
import { afterEach, describe, expect, test } from 'vitest'
import { createApp } from './app.ts'
import { findClientBySecret } from './clients/clients.ts'
import type { Protocol } from './evaluation/protocols.ts'
import { acceptAndWait } from './evaluation/submissions.ts'
import type { Face } from './http/face.ts'
import { documented } from './http/route-docs.ts'
import { createProtocols, FACES } from './protocols.ts'
import { addClient, createTestDeps, type TestDeps } from './testing/evaluation.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

/** The throwaway protocol: POST /echo/run {secret, lang, source, input} → {stdout}; its own 404 body under /echo. */
const completed: number[] = []
const echoProtocol: Protocol = { name: 'echo', stagesShown: false, onCompleted: (_d, row) => void completed.push(row.id) }
const echoFace: Face = {
  protocols: [echoProtocol],
  mount(app, d) {
    const routes = new Hono()
    const runDoc = { tags: ['echo'], summary: 'Runs a program, answers its stdout.', responses: { 200: { description: '{stdout, verdict}' } } }
    routes.post('/echo/run', documented(runDoc, async (c) => {
      const body = (await c.req.json()) as { secret: string; lang: string; source: string; input: string }
      const client = findClientBySecret(d.db, body.secret)
      if (!client) return c.json({ echo_error: 'who are you' }, 401)
      const { row } = await acceptAndWait(d, client, { api: 'echo', lang: body.lang, source: body.source, input: body.input }, 10_000)
      return c.json({ stdout: row.stdout, verdict: row.verdict })
    }))
    app.route('/', routes)
  },
  notFound: (path) => (path.startsWith('/echo/') ? { status: 404, body: { echo_error: 'no such echo' } } : undefined),
  // its page here is the recipe's: a real one would be docs/api/echo.md
  docs: [{ overview: '**Echo** (`/echo/run`)', pages: ['docs/development/protocols.md'], tags: [{ name: 'echo', description: 'Echo: runs a program.', page: 'docs/development/protocols.md' }] }],
}

describe('a new wire protocol', () => {
  test('registered with one line, it is served by the app and the core; the others are untouched', async () => {
    const faces = [echoFace, ...FACES] // the one line of registration
    deps = createTestDeps({ protocols: createProtocols(faces) })
    const app = createApp(deps, faces)
    const secret = addClient(deps)

    const run = await app.request('/echo/run', { method: 'POST', body: JSON.stringify({ secret, lang: 'C', source: 'int main(){}', input: 'hello' }) })
    expect(run.status).toBe(200)
    expect(await run.json()).toEqual({ stdout: 'hello', verdict: 'AC' })
    expect(completed).toHaveLength(1) // the core called its hook
    expect(await (await app.request('/echo/none')).json()).toEqual({ echo_error: 'no such echo' })

    // the faces already there still answer their own paths and 404s
    const v4 = await app.request('/v4/none')
    expect(v4.status).toBe(404)
    expect(await v4.json()).toMatchObject({ request_status: { code: 'REQUEST_FAILED' } })
    expect(await (await app.request('/none')).json()).toEqual({ message: 'NotFoundError: no such endpoint', errors: {} })
    expect((await app.request('/piston/api/v2/runtimes')).status).not.toBe(404)

    // its part of the OpenAPI document: its route, its tag linking its page (served), its line of the overview
    const doc = (await (await app.request('/openapi.json')).json()) as {
      info: { description: string }
      paths: Record<string, Record<string, { tags: string[] }>>
      tags: { name: string; externalDocs: { url: string } }[]
    }
    expect(doc.paths['/echo/run'].post.tags).toEqual(['echo'])
    expect(doc.tags.find((t) => t.name === 'echo')?.externalDocs.url).toBe('/docs/pages/development/protocols.md')
    expect(doc.info.description).toContain('- **Echo** (`/echo/run`): [docs/development/protocols.md](/docs/pages/development/protocols.md)')
    expect((await app.request('/docs/pages/development/protocols.md')).status).toBe(200)
    // the document is the others' as before, with the new face's part first (the order of registration)
    expect(doc.tags.map((t) => t.name)).toEqual(['echo', 'v3', 'v4', 'problems', 'similarity', 'jobe', 'Judge0 CE', 'piston', 'interviews', 'server'])
  })

  test('without its line the app has no such route and the core refuses its name', async () => {
    deps = createTestDeps()
    const app = createApp(deps)
    const res = await app.request('/echo/run', { method: 'POST', body: '{}' })
    expect(res.status).toBe(404)
    expect(deps.protocols.has('echo')).toBe(false)
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, unknown>; tags: { name: string }[] }
    expect(doc.paths['/echo/run']).toBeUndefined()
    expect(doc.tags.map((t) => t.name)).not.toContain('echo')
  })
})
