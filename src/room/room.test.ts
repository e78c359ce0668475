// The room offers exactly what the evaluation API accepts (one rule: languages.ts offeredLanguage).
import { afterEach, describe, expect, test } from 'vitest'
import { AppError } from '../errors.ts'
import { createTestDeps, tempDir, testConfig, type TestDeps } from '../testing/evaluation.ts'
import { offeredLanguage } from '../languages.ts'
import { checkChange, offeredLanguages } from './room.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

const codes = (d: TestDeps) => offeredLanguages(d).map((l) => l.code)
const change = (language: string) => ({ language, code: 'x', input: '' })

describe('the languages the room offers', () => {
  test('languages.enabled (codes or aliases) narrows them, as the API', () => {
    deps = createTestDeps({ config: testConfig({ languages: { enabled: ['PY3', 'c'] } }), start: false })
    expect(codes(deps)).toEqual(['C', 'PYTHON3'])
    expect(() => checkChange(deps, change('CPP'))).toThrow(AppError)
    for (const code of deps.languages.keys()) expect(codes(deps).includes(code), code).toBe(offeredLanguage(deps.languages, deps.config, code).ok)
  })

  test('a language enabled but not provisioned is not offered (the API refuses it too)', () => {
    deps = createTestDeps({ config: testConfig({ languages: { enabled: ['PYTHON3'] }, paths: { toolchains: tempDir() } }), start: false })
    expect(codes(deps)).toEqual([])
    expect(() => checkChange(deps, change('PYTHON3'))).toThrow(/not offered/)
    expect(offeredLanguage(deps.languages, deps.config, 'PYTHON3')).toMatchObject({ ok: false, reason: 'not provisioned' })
  })

  test('no languages.enabled: every provisioned one', () => {
    deps = createTestDeps({ start: false })
    expect(codes(deps)).toEqual([...deps.languages.keys()])
  })
})
