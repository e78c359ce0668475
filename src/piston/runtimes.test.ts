// The Piston runtime table: names, versions as 3-part semver, the string-order rule, Piston's matching.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fakeProvision, tempDir } from '../testing/evaluation.ts'
import { documentedLanguages, markdownTable } from '../testing/doc-tables.ts'
import { loadLanguages, type Language } from '../languages.ts'
import { listingOrder, listRuntimes, matchRuntime, runtimeTable, RUNTIMES_TTL_MS, runtimeVersion, semverOf, type Runtime } from './runtimes.ts'

const langs = loadLanguages()

/** The versions this appliance's toolchains report (docs/languages.md), as versions.json records them. */
const REAL_VERSIONS: Record<string, string> = Object.fromEntries([...documentedLanguages()].map(([code, { version }]) => [code, version]))
const TABLE = runtimeTable(langs)

function toolchainsWith(versions: Record<string, string>): string {
  const dir = tempDir('piston-runtimes-')
  // one stamp per root and toolchain: PYTHON and PYTHON3_8 share bullseye's, so their packages are merged
  const byStamp = new Map<string, Language>()
  for (const l of langs.values()) {
    const key = `${l.root}/${l.toolchain}`
    const seen = byStamp.get(key)
    byStamp.set(key, seen ? { ...seen, packages: [...new Set([...seen.packages, ...l.packages])] } : l)
  }
  fakeProvision(dir, byStamp.values())
  const languages = Object.fromEntries(Object.entries(versions).map(([code, version]) => [code, { version }]))
  writeFileSync(join(dir, 'versions.json'), JSON.stringify({ languages }))
  return dir
}
const offerConfig = (toolchains: string, enabled: string[] = []) => ({ paths: { toolchains }, languages: { enabled } })
const runtimes = listRuntimes(langs, offerConfig(toolchainsWith(REAL_VERSIONS)))

/** Piston clients' "newest": piston-client sorts by `a.version > b.version` (string comparison). */
const newestByString = (rts: Runtime[]) => [...rts].sort((a, b) => (a.version > b.version ? -1 : b.version > a.version ? 1 : 0))[0]

describe('semverOf', () => {
  it.each([
    ['21.0.13.1', '21.0.13'],
    ['6.12.0.199', '6.12.0'],
    ['9.6', '9.6.0'],
    ['20', '20.0.0'],
    ['3.13.5', '3.13.5'],
    ['1.24rc1', '1.24.0'],
    ['04.05.006', '4.5.6'],
    ['unknown', undefined],
  ])('%s → %s', (raw, want) => expect(semverOf(raw)).toBe(want))
})

describe("the runtime table (the manifest's piston keys)", () => {
  it('names only codes of the manifest, each once', () => {
    const codes = TABLE.map((e) => e.code)
    expect(new Set(codes).size).toBe(codes.length)
    for (const code of codes) expect(langs.has(code), code).toBe(true)
  })

  it('lists every table entry with its real version as 3-part semver, in manifest order with the versions of one name together, newest first', () => {
    expect(runtimes.map((r) => r.code)).toEqual(listingOrder(runtimes).map((e) => e.code))
    expect(runtimes.map((r) => r.code).sort()).toEqual(TABLE.map((e) => e.code).sort())
    const python = runtimes.filter((r) => r.language === 'python').map((r) => r.code)
    expect(python).toEqual(['PYTHON3', 'PYTHON'])
    expect(runtimes.findIndex((r) => r.code === 'PYTHON')).toBe(runtimes.findIndex((r) => r.code === 'PYTHON3') + 1)
    for (const rt of runtimes) {
      expect(rt.version).toMatch(/^\d+\.\d+\.\d+$/)
      // semver has no leading zeros: NASM's 2.16.03 is 2.16.3
      expect(REAL_VERSIONS[rt.code].replace(/\.0+(\d)/g, '.$1').startsWith(rt.version), rt.code).toBe(true)
    }
    expect(runtimes.find((r) => r.code === 'JAVA14')!.version).toBe('21.0.13')
  })

  it('never lets string comparison pick another runtime than semver within one language', () => {
    for (const language of new Set(runtimes.map((r) => r.language))) {
      const rts = runtimes.filter((r) => r.language === language)
      const bySemver = matchRuntime(runtimes, language, '*')
      expect(newestByString(rts).code, language).toBe(bySemver!.code)
      // and the whole order agrees, so "second newest" is not misleading either
      const strings = [...rts].sort((a, b) => (a.version < b.version ? -1 : 1)).map((r) => r.code)
      const semvers = [...rts].sort((a, b) => (a.version === b.version ? 0 : matchRuntime([a, b], language, '*') === b ? -1 : 1)).map((r) => r.code)
      expect(strings, language).toEqual(semvers)
    }
  })

  it('would have been misleading with PYTHON3_8 under `python` (why it has its own name)', () => {
    const all = runtimes.filter((r) => r.code.startsWith('PYTHON')).map((r) => ({ ...r, language: 'python' }))
    expect(newestByString(all).code).toBe('PYTHON3_8')
    expect(matchRuntime(all, 'python', '*')!.code).toBe('PYTHON3')
  })

  it('gives one runtime per (name or alias, version): a request is never ambiguous', () => {
    const seen = new Map<string, string>()
    for (const rt of runtimes) {
      for (const name of [rt.language, ...rt.aliases]) {
        const key = `${name}@${rt.version}`
        expect(seen.get(key), `${key}: ${rt.code} and ${seen.get(key)}`).toBeUndefined()
        seen.set(key, rt.code)
      }
    }
  })

  it('leaves out codes that are not offered (languages.enabled)', () => {
    const only = listRuntimes(langs, offerConfig(toolchainsWith(REAL_VERSIONS), ['PYTHON3', 'C']))
    expect(only.map((r) => r.code)).toEqual(['C', 'PYTHON3'])
  })

  it('reuses a listing for RUNTIMES_TTL_MS, then sees what changed (a version newly recorded)', () => {
    const dir = toolchainsWith({ ...REAL_VERSIONS, PYTHON3: '3.13.5' })
    const config = offerConfig(dir)
    const first = listRuntimes(langs, config, 1_000_000)
    writeFileSync(join(dir, 'versions.json'), JSON.stringify({ languages: { ...Object.fromEntries(Object.entries(REAL_VERSIONS).map(([k, v]) => [k, { version: v }])), PYTHON3: { version: '3.13.9' } } }))
    expect(listRuntimes(langs, config, 1_000_000 + RUNTIMES_TTL_MS - 1)).toBe(first)
    const later = listRuntimes(langs, config, 1_000_000 + RUNTIMES_TTL_MS)
    expect(later.find((r) => r.code === 'PYTHON3')!.version).toBe('3.13.9')
    // past the TTL with nothing changed: the same listing, not built again
    expect(listRuntimes(langs, config, 1_000_000 + 5 * RUNTIMES_TTL_MS)).toBe(later)
  })

  it('past the TTL, an offered code that is no longer offered (or a new one) rebuilds the listing', () => {
    const dir = toolchainsWith(REAL_VERSIONS)
    const config = offerConfig(dir, ['PYTHON3', 'C'])
    const first = listRuntimes(langs, config, 2_000_000)
    expect(first.map((r) => r.code)).toEqual(['C', 'PYTHON3'])
    config.languages.enabled = ['C']
    expect(listRuntimes(langs, config, 2_000_000 + RUNTIMES_TTL_MS - 1)).toBe(first)
    expect(listRuntimes(langs, config, 2_000_000 + RUNTIMES_TTL_MS).map((r) => r.code)).toEqual(['C'])
  })

  it("without a recorded version, uses the version the language's name states", () => {
    expect(runtimeVersion(langs.get('PYTHON3')!, {})).toBe('3.13.0')
    expect(runtimeVersion(langs.get('PYTHON3')!, { PYTHON3: { version: '3.13.5' } })).toBe('3.13.5')
  })
})

describe("matchRuntime (Piston's rule)", () => {
  it.each([
    ['python', '*', 'PYTHON3'],
    ['python', '3', 'PYTHON3'],
    ['python', '3.x', 'PYTHON3'],
    ['python', '3.13.5', 'PYTHON3'],
    ['python', '2', 'PYTHON'],
    ['python', '2.7.x', 'PYTHON'],
    ['python', '<3', 'PYTHON'],
    ['python', '>=2 <4', 'PYTHON3'],
    ['py', '*', 'PYTHON3'],
    ['python3', '3.13', 'PYTHON3'],
    ['python2', '*', 'PYTHON'],
    ['python3.9', '3.9', 'PYTHON3_8'],
    ['python3_8', '*', 'PYTHON3_8'],
    ['c++', '14', 'CPP'],
    ['cpp17', '*', 'CPP17'],
    ['java', '*', 'JAVA14'],
    ['js', '20.x', 'JAVASCRIPT_NODE'],
    ['node', '^20', 'JAVASCRIPT_NODE'],
    ['csharp', '6.12.0', 'CSHARP'],
  ])('%s %s → %s', (language, version, code) => expect(matchRuntime(runtimes, language, version)?.code).toBe(code))

  it.each([
    ['python', '3.8'],
    ['python', '4'],
    ['python', 'latest'],
    ['Python', '*'],
    ['PYTHON3', '*'],
    ['forth', '*'],
    ['python', ''],
  ])('%s %s → unknown', (language, version) => expect(matchRuntime(runtimes, language, version)).toBeUndefined())
})

describe('the docs page', () => {
  const page = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api', 'piston.md'), 'utf8')
  it('lists every runtime once, in the order GET runtimes lists them', () => {
    const rows = markdownTable(page, ['language', 'version', 'aliases', 'runtime', 'Arbiter code'])
    expect(rows.map((r) => `${r[0]} ${r[4]!.split(' ')[0]}`)).toEqual(runtimes.map((e) => `${e.language} ${e.code}`))
  })

  it.each(TABLE.map((e) => [e.language, e]))('lists %s with its aliases, runtime and code', (_l, e) => {
    const row = page.split('\n').find((l) => l.startsWith(`| ${e.language} | `) && new RegExp(`\\| ${e.code}( \\(.*\\))? \\|$`).test(l))
    expect(row, `${e.language} / ${e.code}`).toBeDefined()
    expect(row).toContain(e.aliases.length ? `| ${e.aliases.join(', ')} |` : '| |')
    if (e.runtime) expect(row).toContain(`| ${e.runtime} |`)
  })
})

