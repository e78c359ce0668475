// Adding a language is one manifest entry: a fixture manifest (the shipped one and one new file) is
// served through every face's own listing — HackerEarth's codes, Judge0's ids, Piston's runtimes, Jobe's
// names, similarity's families — with no table in any protocol folder touched.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from './app.ts'
import { loadLanguages, MANIFEST_DIR, offeredLanguages } from './languages.ts'
import { similarityFamilies } from './similarity/languages.ts'
import { addClient, createTestDeps, fakeProvision, json, tempDir, testConfig, type TestDeps } from './testing/evaluation.ts'

const PYPY = `
root = "trixie"
packages = ["pypy3"]
version = ["pypy3", "--version"]

[[language]]
code = "PYPY3"
aliases = ["PYPY"]
judge0 = [{ id = 1099, name = "Python (PyPy {version})", version = "7.3" }]
piston = { name = "pypy", aliases = ["pypy3"] }
similarity = "python"
name = "PyPy 7.3 (Python 3.11)"
source_file = "main.py"
run = ["pypy3", "main.py"]
selftest = "print(input())"
selftest_error = "print("
editor_mode = "python"
`

let deps: TestDeps | undefined
afterEach(async () => {
  await deps?.stop()
  deps = undefined
})

function withExtraEntry() {
  const dir = tempDir('arbiter-faces-manifest-')
  for (const f of readdirSync(MANIFEST_DIR)) writeFileSync(join(dir, f), readFileSync(join(MANIFEST_DIR, f)))
  writeFileSync(join(dir, 'pypy.toml'), PYPY)
  const languages = loadLanguages(dir)
  const toolchains = tempDir('arbiter-faces-toolchains-')
  fakeProvision(toolchains, [languages.get('PYPY3')!, languages.get('PYTHON3')!])
  writeFileSync(join(toolchains, 'versions.json'), JSON.stringify({ languages: { PYPY3: { version: '7.3.19' }, PYTHON3: { version: '3.13.5' } } }))
  deps = createTestDeps({ languages, config: testConfig({ paths: { toolchains } }) })
  return { app: createApp(deps), secret: addClient(deps), languages }
}

describe('adding a language is one manifest entry', () => {
  it('is served by every face under the names its entry gives', async () => {
    const { app, secret, languages } = withExtraEntry()
    // HackerEarth v3/v4: the code and its aliases
    expect(offeredLanguages(languages, deps!.config).map((l) => l.code)).toEqual(['PYPY3', 'PYTHON3'])
    // Judge0: its id and name, with the provisioned version
    const judge0 = await json(await app.request('/judge0/languages/all', { headers: { 'X-Auth-Token': secret } }))
    expect(judge0.map((l: { id: number; name: string }) => [l.id, l.name])).toEqual([
      [71, 'Python (3.13.5)'],
      [1099, 'Python (PyPy 7.3.19)'],
    ])
    expect((await app.request('/judge0/languages/1099', { headers: { 'X-Auth-Token': secret } })).status).toBe(200)
    // Piston: its name and aliases
    const piston = await json(await app.request('/piston/api/v2/runtimes', { headers: { authorization: secret } }))
    expect(piston).toContainEqual({ language: 'pypy', version: '7.3.19', aliases: ['pypy3'] })
    // Jobe: its code in lowercase, with the manifest's commands
    const jobe = await json(await app.request('/jobe/index.php/restapi/languages', { headers: { 'X-API-KEY': secret } }))
    expect(jobe).toEqual([
      ['python3', '3.13.5'],
      ['pypy3', '7.3.19'],
    ])
    // similarity: one more code in its family
    expect(similarityFamilies(languages).codesOf('python')).toEqual(['PYPY3', 'PYTHON', 'PYTHON3', 'PYTHON3_8'])
  })
})
