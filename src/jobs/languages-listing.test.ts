// The languages listing (`npm run -s cli -- languages`): every code of the spec's v3 and v4
// lists, with the real version of its compiler or interpreter as provisioning recorded it, whether it is
// provisioned, and a note wherever the code is not literally what it names (none is a silent alias).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { loadLanguages } from '../languages.ts'
import { languageListing } from './cli-commands.ts'

const V4 =
  'C CPP14 CPP17 CLOJURE CSHARP GO HASKELL JAVA8 JAVA14 JAVASCRIPT_NODE KOTLIN OBJECTIVEC PASCAL PERL PHP PYTHON PYTHON3 PYTHON3_8 R RUBY RUST SCALA SWIFT TYPESCRIPT'.split(' ')
const V3 = 'C CPP CPP11 CLOJURE CSHARP JAVA JAVASCRIPT HASKELL PERL PHP PYTHON RUBY'.split(' ')
/** The languages Judge0, Piston and the contest judges offer beyond the spec's. */
const BEYOND_THE_SPEC =
  'ADA ASSEMBLY AWK BASH COBOL C_CLANG C_GCC9 C_GCC9_GNU17 C_GCC10 CPP_CLANG CPP_GCC9 CPP_GCC10 D ELIXIR ERLANG FORTRAN GROOVY LISP LUA OCAML OCTAVE PROLOG PROLOG_SWI SQL TEXT'.split(' ')
/** The modern versions served beside the spec's codes (issue 34). */
const MODERN = 'CPP20 CPP23 JAVA21 KOTLIN2 SCALA3 TYPESCRIPT5'.split(' ')
/** Judge0's own forms (judge0_only): its Executable (44) and multi-file program (89). */
const JUDGE0_FORMS = 'EXECUTABLE MULTIFILE'.split(' ')
const ALL = [...new Set([...V4, ...V3, ...BEYOND_THE_SPEC, ...MODERN, ...JUDGE0_FORMS])]

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' })
const langs = loadLanguages()
const listing = languageListing(config.paths.toolchains, langs)
const entry = (code: string) => listing.find((l) => l.code === code)!

/** The runtime version a code's name promises, where it names one: PYTHON3_8 → 3.8, JAVA14 → 14, PYTHON → 2. */
function namedVersion(code: string): string | undefined {
  if (code === 'PYTHON') return '2' // the spec's "PYTHON (Python 2)"
  const m = /^(?:PYTHON|JAVA)(\d+)(?:_(\d+))?$/.exec(code)
  return m ? [m[1], m[2]].filter(Boolean).join('.') : undefined
}

/** `version` is `named` or a release of it: 3.9.2 is not 3.8, 21.0.13 is not 8, 2.7.18 is 2. */
const isRelease = (version: string, named: string) => version === named || version.startsWith(`${named}.`)

describe('the languages listing on this machine', () => {
  it('lists every code of v3 and v4, the languages beyond the spec and the modern versions once, and nothing else', () => {
    const codes = listing.map((l) => l.code)
    expect(new Set(codes).size).toBe(codes.length)
    expect([...codes].sort()).toEqual([...ALL].sort())
  })

  it.each(ALL)('%s: provisioned, with a real version that its name mentions', (code) => {
    const l = entry(code)
    expect(l.provisioned, `npx tsx scripts/provision.ts --langs ${code}`).toBe(true)
    // what the version command printed, reduced to its dotted number: never null, never the code's own digits
    expect(l.version, `no version recorded for ${code} in versions.json`).toMatch(/^\d+(\.\d+)+$/)
    // the display name says which compiler/interpreter release it is (e.g. "javac 21", "Python 3.9")
    const numbers = [...l.name.matchAll(/\d+(?:\.\d+)*/g)].map((m) => m[0])
    expect(numbers.some((n) => isRelease(l.version!, n)), `${l.name} vs ${l.version}`).toBe(true)
  })

  it.each([...new Set([...V4, ...V3, ...MODERN])].filter((c) => namedVersion(c)))(
    '%s: a note when the runtime is not the release the code names',
    (code) => {
      const l = entry(code)
      const named = namedVersion(code)!
      // JAVA8 and JAVA14 run on javac/JVM 21, PYTHON3_8 on 3.9: each must say so
      if (!isRelease(l.version!, named)) expect(l.note, `${code} runs ${l.version}, not ${named}`).toBeTruthy()
    }
  )

  it('names the codes that run something other than what they name', () => {
    const noted = listing.filter((l) => l.note).map((l) => l.code)
    for (const code of ['PYTHON3_8', 'JAVA8', 'JAVA14']) expect(noted).toContain(code)
  })

  it('has no silent alias: of the codes that run the same thing, all but one carry a note', () => {
    const groups = new Map<string, string[]>()
    for (const l of langs.values()) {
      const key = JSON.stringify([l.root, l.compile, l.run, l.env])
      groups.set(key, [...(groups.get(key) ?? []), l.code])
    }
    const shared = [...groups.values()].filter((g) => g.length > 1)
    // JAVA = JAVA8, JAVASCRIPT = JAVASCRIPT_NODE, CPP = CPP17
    expect(shared.length).toBeGreaterThanOrEqual(3)
    for (const codes of shared) {
      const silent = codes.filter((c) => !entry(c).note)
      expect(silent.length, `${codes.join(' = ')}: without a note: ${silent.join(', ')}`).toBeLessThanOrEqual(1)
    }
  })

  it("shows each manifest note as it is, and no note where the manifest has none", () => {
    for (const l of langs.values()) expect(entry(l.code).note).toBe(l.note)
    for (const l of listing) if (!langs.get(l.code)!.note) expect(l).not.toHaveProperty('note')
  })

  it('carries code, aliases, name, version and provisioned for each', () => {
    expect(entry('CPP')).toMatchObject({ code: 'CPP', aliases: ['C++'], name: langs.get('CPP')!.name, provisioned: true })
    expect(entry('PYTHON3_8').version).toMatch(/^3\.9\./)
    expect(entry('PYTHON').version).toMatch(/^2\.7\./)
  })
})

describe('the languages listing of a machine with nothing provisioned', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-listing-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('still lists every code, not provisioned and with no version, notes included', () => {
    const empty = languageListing(dir, langs)
    expect(empty.map((l) => l.code).sort()).toEqual([...langs.keys()].sort())
    for (const l of empty) {
      expect(l.provisioned).toBe(false)
      expect(l.version).toBeNull()
    }
    expect(empty.find((l) => l.code === 'PYTHON3_8')!.note).toBe(langs.get('PYTHON3_8')!.note)
  })
})
