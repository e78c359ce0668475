import { describe, expect, it } from 'vitest'
import { loadLanguages } from '../languages.ts'
import { entryById, JUDGE0_OWN_ID_BASE, judge0Entries, MULTI_FILE_ID, offeredJudge0Languages, sameAs } from './languages.ts'

const manifest = loadLanguages()
const entries = [...judge0Entries(manifest).values()]

describe("the Judge0 ids, from the manifest's judge0 keys", () => {
  it("uses Judge0 CE 1.13.1's ids for its languages and free ids above its range for the rest", () => {
    const ids = new Map(entries.map((e) => [e.code, e.id]))
    expect(Object.fromEntries([...ids].filter(([, id]) => id < 100))).toMatchObject({
      C_GCC9: 48, C_GCC10: 49, C_GCC9_GNU17: 50, CPP_GCC10: 53, JAVA14: 62, JAVASCRIPT_NODE: 63, PYTHON3: 71, GO: 60, RUST: 73, RUBY: 72, PHP: 68, TYPESCRIPT: 74, CSHARP: 51,
      HASKELL: 61, KOTLIN: 78, SCALA: 81, PERL: 85, R: 80, SWIFT: 83, OBJECTIVEC: 79, PASCAL: 67, CLOJURE: 86, PYTHON: 70,
    })
    for (const e of entries) expect(e.id <= 89 || e.id >= JUDGE0_OWN_ID_BASE).toBe(true)
    expect(entryById(manifest, MULTI_FILE_ID)?.code).toBe('MULTIFILE')
    expect(entryById(manifest, 44)?.code).toBe('EXECUTABLE')
    expect(entryById(manifest, 71)?.code).toBe('PYTHON3')
    expect(entryById(manifest, 47)).toBeUndefined()
    // Judge0's GCC 7.4, 8.3 and 9.2 (C 48-50, C++ 52-54) are bullseye's GCC 9 and 10; trixie's GCC 14 has ids of Arbiter's own
    expect([48, 49, 50, 52, 53, 54].map((id) => entryById(manifest, id)?.code)).toEqual(['C_GCC9', 'C_GCC10', 'C_GCC9_GNU17', 'CPP_GCC9', 'CPP_GCC10', 'CPP_GCC9'])
    expect(Object.fromEntries(['C', 'CPP', 'CPP14'].map((code) => [code, entries.filter((e) => e.code === code).map((e) => e.id)]))).toEqual({ C: [1007], CPP: [1008], CPP14: [1009] })
  })

  it('covers every code of the manifest, by an id of its own or as the same behaviour as another', () => {
    // Judge0 CE has none of these versions (its newest: Java 13, GCC 9.2, TypeScript 3.7, Kotlin 1.3,
    // Scala 2.13), so they have no Judge0 id: a Judge0 client keeps the ids it knows
    const notInJudge0 = ['CPP20', 'CPP23', 'JAVA21', 'KOTLIN2', 'SCALA3', 'TYPESCRIPT5']
    const covered = new Set([...entries.map((e) => e.code), ...Object.keys(sameAs(manifest)), ...notInJudge0])
    for (const code of notInJudge0) expect(entries.some((e) => e.code === code)).toBe(false)
    expect([...manifest.keys()].filter((c) => !covered.has(c))).toEqual([])
    expect(sameAs(manifest)).toMatchObject({ JAVA8: 'JAVA', JAVASCRIPT: 'JAVASCRIPT_NODE', CPP17: 'CPP' })
  })

  it('names carry the installed version, sorted by name', () => {
    const list = offeredJudge0Languages([manifest.get('PYTHON3')!, manifest.get('C')!, manifest.get('CPP')!], { C: { version: '14.2.0' }, PYTHON3: { version: '3.13.5' } })
    expect(list.map((l) => [l.id, l.name])).toEqual([
      [1007, 'C (GCC 14.2.0)'],
      [1008, 'C++ (GCC 14)'],
      [71, 'Python (3.13.5)'],
    ])
    expect(list[0]).toMatchObject({ is_archived: false, source_file: 'main.c', run_cmd: './main' })
    expect(list[0]!.compile_cmd).toBe('gcc -std=gnu17 -O2 -pipe -fuse-ld=gold -o main %s main.c -lm')
    expect(list[2]!.compile_cmd).toBeNull()
  })

  it('lists every id of a language that has several, each under its own name', () => {
    const c = { ...manifest.get('C')!, judge0: [{ id: 50, name: 'C (GCC {version})', version: '14' }, { id: 48, name: 'C (fixed)' }] }
    expect(offeredJudge0Languages([c], {}).map((l) => [l.id, l.name])).toEqual([
      [48, 'C (fixed)'],
      [50, 'C (GCC 14)'],
    ])
  })
})
