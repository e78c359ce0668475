// The room offers exactly what the evaluation API accepts (one rule: languages.ts offeredLanguage).
import { afterEach, describe, expect, test } from 'vitest'
import { AppError } from '../errors.ts'
import { createTestDeps, tempDir, testConfig, testLanguages, type TestDeps } from '../testing/evaluation.ts'
import { offeredLanguage } from '../languages.ts'
import { renderRoomPage } from './page.ts'
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

describe("the editor's mode", () => {
  test("is the language's manifest editor_mode, sent to the page by code (a new language needs no code of its own)", () => {
    const langs = testLanguages()
    // a code nothing in the editor knows, highlighted as its entry says
    langs.set('ZIG', { ...langs.get('C')!, code: 'ZIG', name: 'Zig', editorMode: 'rust' })
    langs.set('PYTHON3', { ...langs.get('PYTHON3')!, editorMode: 'python' })
    deps = createTestDeps({ languages: langs, start: false })
    const offered = offeredLanguages(deps)
    expect(offered.find((l) => l.code === 'ZIG')).toEqual({ code: 'ZIG', name: 'Zig', editorMode: 'rust' })
    const html = renderRoomPage({
      nonce: 'n',
      base: '/interviews/room/x',
      csrf: 'c',
      me: { id: 1, name: 'Cara', role: 'candidate' },
      interview: { title: 't', startDatetime: '2030-01-01T00:00:00Z', endDatetime: '2030-01-01T01:00:00Z', status: 'ongoing' },
      participants: [],
      languages: offered,
      state: { language: 'ZIG', code: '', input: '', version: 0 },
      lastRun: null,
    })
    const boot = JSON.parse(/<script type="application\/json" id="boot">(.*?)<\/script>/.exec(html)![1])
    expect(boot.modes).toEqual({ ZIG: 'rust', PYTHON3: 'python' })
    // the page mounts the editor with the mode of the language in use, and switches by the same map
    expect(html).toContain('mode: boot.modes[boot.state.language]')
    expect(html).toContain('editor.setMode(boot.modes[lang.value])')
  })
})
