import { expect, test } from 'vitest'
import { testConfig } from '../evaluation/test-support.ts'
import { buildOpenApi } from './openapi.ts'

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
