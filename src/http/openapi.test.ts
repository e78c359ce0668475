import { expect, test } from 'vitest'
import { createTestDeps, testConfig } from '../evaluation/test-support.ts'
import { createApp } from './app.ts'
import { buildOpenApi, NOT_IN_DOCUMENT, PATH_ALIASES } from './openapi.ts'

test('the OpenAPI document describes the evaluation API from the zod schemas', () => {
  const doc = buildOpenApi(testConfig())
  expect(doc.openapi).toBe('3.1.0')
  expect(Object.keys(doc.paths ?? {})).toEqual(
    expect.arrayContaining(['/code/run/', '/code/compile/', '/v4/partner/code-evaluation/submissions/', '/v4/partner/code-evaluation/submissions/{he_id}/', '/output/{code_id}'])
  )
  const schemas = doc.components?.schemas ?? {}
  expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['V3Request', 'V4Request', 'V3Reply', 'V4Reply', 'ErrorReply']))
  // the request schema is the one the routes check with: source and lang required, unknown fields allowed
  expect((schemas.V4Request as { required?: string[] }).required).toEqual(expect.arrayContaining(['source', 'lang']))
  expect(doc.servers?.[0].url).toBe('https://judge.example.com')
})

test('every route of the app is in /openapi.json, or listed with its reason in NOT_IN_DOCUMENT', () => {
  const deps = createTestDeps()
  try {
    const doc = buildOpenApi(deps.config)
    // the document's operations as the app spells them: {param} → :param, no trailing slash
    const documented = new Set(
      Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
        Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1').replace(/(.)\/$/, '$1')}`)
      )
    )
    const unaliased = (path: string) => PATH_ALIASES.reduce((p, [alias, to]) => (p.startsWith(alias) ? to + p.slice(alias.length) : p), path)
    const missing = createApp(deps)
      .routes.filter((r) => r.method !== 'ALL') // middleware and the 405 fallbacks
      .map((r) => `${r.method} ${r.path}`)
      .filter((route) => {
        const [method, path] = route.split(' ')
        const key = `${method} ${unaliased(path)}`
        return !Object.hasOwn(NOT_IN_DOCUMENT, key) && ![...documented].some((d) => d.replace(/:\w+/g, ':') === key.replace(/:\w+/g, ':'))
      })
    expect([...new Set(missing)]).toEqual([])
    // and nothing listed as left out is documented after all
    for (const route of Object.keys(NOT_IN_DOCUMENT)) expect(documented.has(route)).toBe(false)
  } finally {
    deps.stop()
  }
})
