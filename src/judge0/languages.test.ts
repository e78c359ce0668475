import { describe, expect, it } from 'vitest'
import { loadLanguages } from '../languages.ts'
import { FREE_ID_BASE, JUDGE0_LANGUAGES, MULTI_FILE_ID, offeredJudge0Languages, SAME_AS } from './languages.ts'

const manifest = loadLanguages()

describe('the Judge0 language table', () => {
  it("uses Judge0 CE 1.13.1's ids for its languages and free ids above its range for the rest", () => {
    const ids = new Map(JUDGE0_LANGUAGES.map((e) => [e.code, e.id]))
    expect(Object.fromEntries([...ids].filter(([, id]) => id < 100))).toMatchObject({
      C: 50, CPP: 54, JAVA14: 62, JAVASCRIPT_NODE: 63, PYTHON3: 71, GO: 60, RUST: 73, RUBY: 72, PHP: 68, TYPESCRIPT: 74, CSHARP: 51,
      HASKELL: 61, KOTLIN: 78, SCALA: 81, PERL: 85, R: 80, SWIFT: 83, OBJECTIVEC: 79, PASCAL: 67, CLOJURE: 86, PYTHON: 70,
    })
    for (const e of JUDGE0_LANGUAGES) expect(e.id <= 89 || e.id >= FREE_ID_BASE).toBe(true)
    expect(new Set(JUDGE0_LANGUAGES.map((e) => e.id)).size).toBe(JUDGE0_LANGUAGES.length)
    expect(JUDGE0_LANGUAGES.some((e) => e.id === MULTI_FILE_ID)).toBe(false)
  })

  it('covers every code of the manifest, by an id of its own or as the same behaviour as another', () => {
    // Judge0 CE has none of these versions (its newest: Java 13, GCC 9.2, TypeScript 3.7, Kotlin 1.3,
    // Scala 2.13), so they have no Judge0 id: a Judge0 client keeps the ids it knows
    const notInJudge0 = ['CPP20', 'CPP23', 'JAVA21', 'KOTLIN2', 'SCALA3', 'TYPESCRIPT5']
    const covered = new Set([...JUDGE0_LANGUAGES.map((e) => e.code), ...Object.keys(SAME_AS), ...notInJudge0])
    for (const code of notInJudge0) expect(JUDGE0_LANGUAGES.some((e) => e.code === code)).toBe(false)
    expect([...manifest.keys()].filter((c) => !covered.has(c))).toEqual([])
    for (const e of JUDGE0_LANGUAGES) expect(manifest.has(e.code)).toBe(true)
  })

  it('names carry the installed version, sorted by name', () => {
    const list = offeredJudge0Languages([manifest.get('PYTHON3')!, manifest.get('C')!, manifest.get('CPP')!], { C: { version: '14.2.0' }, PYTHON3: { version: '3.13.5' } })
    expect(list.map((l) => [l.id, l.name])).toEqual([
      [50, 'C (GCC 14.2.0)'],
      [54, 'C++ (GCC 14)'],
      [71, 'Python (3.13.5)'],
    ])
    expect(list[0]).toMatchObject({ is_archived: false, source_file: 'main.c', run_cmd: './main' })
    expect(list[0]!.compile_cmd).toBe('gcc -std=gnu17 -O2 -pipe -fuse-ld=gold -o main %s main.c -lm')
    expect(list[2]!.compile_cmd).toBeNull()
  })
})
