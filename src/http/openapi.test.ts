import { Hono } from 'hono'
import { expect, test } from 'vitest'
import { createTestDeps } from '../testing/evaluation.ts'
import { createApp } from '../app.ts'
import { buildOpenApi } from './openapi.ts'
import { declaredRoutes, documented } from './route-docs.ts'

/** The document as the app serves it: the faces' parts are given by their registration. */
const served = async (app: Hono) => (await (await app.request('/openapi.json')).json()) as ReturnType<typeof buildOpenApi>

test('the OpenAPI document describes the evaluation API from the zod schemas', async () => {
  const deps = createTestDeps()
  try {
    const doc = await served(createApp(deps))
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths ?? {})).toEqual(
      expect.arrayContaining(['/code/run/', '/code/compile/', '/v4/partner/code-evaluation/submissions/', '/v4/partner/code-evaluation/submissions/{heId}/', '/output/{codeId}', '/partner/service/interviews/{interview_id}/', '/health', '/metrics'])
    )
    // an alias is documented once, under its first path
    expect(Object.keys(doc.paths ?? {}).filter((p) => p.startsWith('/v3/') || p.startsWith('/partner/hackerearth/'))).toEqual([])
    const schemas = doc.components?.schemas ?? {}
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['V3Request', 'V4Request', 'V3Reply', 'V4Reply', 'ErrorReply']))
    // the request schema is the one the routes check with: source and lang required, unknown fields allowed
    expect((schemas.V4Request as { required?: string[] }).required).toEqual(expect.arrayContaining(['source', 'lang']))
    expect(doc.servers?.[0].url).toBe('https://judge.example.com')
  } finally {
    await deps.stop()
  }
})

test('the document names every API served, and each tag links the page that documents it', async () => {
  const deps = createTestDeps()
  try {
    const doc = await served(createApp(deps))
    const description = doc.info.description ?? ''
    for (const api of ['HackerEarth Code Checker v3', 'v4', 'Jobe', 'Judge0 CE', 'Piston', 'Grading and problems', 'Similarity', 'Interviews'])
      expect(description).toContain(api)
    // every tag an operation carries is declared, with a page of docs/ that exists
    const used = new Set(
      Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item as Record<string, { tags?: string[] }>).flatMap((op) => op.tags ?? []))
    )
    const tags = new Map((doc.tags ?? []).map((t) => [t.name, t]))
    expect([...used].filter((t) => !tags.has(t))).toEqual([])
    expect([...used].sort()).toEqual(expect.arrayContaining(['Judge0 CE', 'interviews', 'jobe', 'piston', 'problems', 'similarity', 'v3', 'v4']))
    // each link is this server's page of docs/, and it answers
    const app = createApp(deps)
    for (const t of tags.values()) {
      expect(t.externalDocs?.url, t.name).toMatch(/^\/docs\/pages\/.+\.md$/)
      expect(description).toContain(`(${t.externalDocs!.url})`)
      const page = await app.request(t.externalDocs!.url)
      expect(page.status, t.externalDocs!.url).toBe(200)
      expect(await page.text()).toMatch(/<h1[^>]*>/)
    }
  } finally {
    await deps.stop()
  }
})

test('every route of the app is declared: documented in /openapi.json, or marked internal with its reason', async () => {
  const deps = createTestDeps()
  try {
    const routes = declaredRoutes(createApp(deps))
    expect(routes.length).toBeGreaterThan(30)
    expect(routes.filter((r) => !r.mark).map((r) => `${r.method} ${r.path}`)).toEqual([])
    for (const r of routes) if (r.mark && 'internal' in r.mark) expect(r.mark.internal.length).toBeGreaterThan(10)
  } finally {
    await deps.stop()
  }
})

test("the document assembles the parts it is given, in order, a part given twice once, and names no API of its own", () => {
  const app = new Hono()
  app.get('/a', documented({ tags: ['a'], summary: 'a', responses: { 200: { description: 'ok' } } }, (c) => c.text('a')))
  const a = { overview: '**A** (`/a`)', pages: ['docs/api/a.md', 'docs/a2.md'], tags: [{ name: 'a', description: 'A.', page: 'docs/api/a.md' }] }
  const b = { overview: '**B**', pages: ['docs/api/b.md'], tags: [{ name: 'b1', description: 'B1.', page: 'docs/api/b.md' }, { name: 'b2', description: 'B2.', page: 'docs/b.md' }] }
  const doc = buildOpenApi({ server: { public_url: 'http://x' } } as never, app, [b, a, b])
  expect(doc.tags?.map((t) => [t.name, t.externalDocs?.url])).toEqual([
    ['b1', '/docs/pages/api/b.md'],
    ['b2', '/docs/pages/b.md'],
    ['a', '/docs/pages/api/a.md'],
    ['server', '/docs/pages/api/README.md'],
  ])
  expect(doc.info.description).toContain('\n\n- **B**: [docs/api/b.md](/docs/pages/api/b.md)\n- **A** (`/a`): [docs/api/a.md](/docs/pages/api/a.md), [docs/a2.md](/docs/pages/a2.md)\n\n')
  // with no parts: the server's own tag only, and no API named
  const bare = buildOpenApi({ server: { public_url: 'http://x' } } as never, app)
  expect(bare.tags?.map((t) => t.name)).toEqual(['server'])
  expect(bare.info.description).not.toMatch(/HackerEarth|Judge0|Jobe|Piston|Interviews/)
})

test('a route added without a declaration is caught, and a documented one appears in the document', () => {
  const app = new Hono()
  app.get('/new', (c) => c.text('x'))
  app.get('/described', documented({ summary: 'described', responses: { 200: { description: 'ok' } } }, (c) => c.text('y')))
  expect(declaredRoutes(app).filter((r) => !r.mark).map((r) => r.path)).toEqual(['/new'])
  expect(Object.keys(buildOpenApi({ server: { public_url: 'http://x' } } as never, app).paths ?? {})).toEqual(['/described'])
})
