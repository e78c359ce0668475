// Unit tests of the language manifest loader: the real manifest's coverage of the spec, lookups,
// placeholder expansion, file-level defaults, provisioning stamps and bad-manifest messages.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  compileOverridesByCode,
  expandArgv,
  isProvisioned,
  loadLanguages,
  offeredEverywhere,
  offeredLanguages,
  MANIFEST_DIR,
  recordedVersions,
  resolveLanguage,
  stampPath,
  type Language,
} from './languages.ts'
import { EDITOR_MODES } from './room/editor/mode-names.ts'

const V4 =
  'C CPP14 CPP17 CLOJURE CSHARP GO HASKELL JAVA8 JAVA14 JAVASCRIPT_NODE KOTLIN OBJECTIVEC PASCAL PERL PHP PYTHON PYTHON3 PYTHON3_8 R RUBY RUST SCALA SWIFT TYPESCRIPT'.split(
    ' '
  )
const V3 = 'C CPP CPP11 CLOJURE CSHARP JAVA JAVASCRIPT HASKELL PERL PHP PYTHON RUBY'.split(' ')
/** The languages Judge0, Piston and the contest judges offer beyond the spec's. */
const BEYOND_THE_SPEC =
  'ADA ASSEMBLY AWK BASH COBOL C_CLANG C_GCC9 C_GCC9_GNU17 C_GCC10 CPP_CLANG CPP_GCC9 CPP_GCC10 D ELIXIR ERLANG FORTRAN GROOVY LISP LUA OCAML OCTAVE PROLOG PROLOG_SWI SQL TEXT'.split(' ')
/** The modern versions beside the spec's codes (issue 34 point 3). */
const MODERN = 'CPP20 CPP23 JAVA21 KOTLIN2 SCALA3 TYPESCRIPT5'.split(' ')
/** Judge0's own forms, offered through Judge0 only (judge0_only): its Executable (44) and multi-file program (89). */
const JUDGE0_FORMS = 'EXECUTABLE MULTIFILE'.split(' ')

const langs = loadLanguages()

describe('the shipped manifest', () => {
  it('covers the 36 spec codes (28 distinct), the languages beyond the spec and the modern versions, nothing else', () => {
    expect(V4.length + V3.length).toBe(36)
    expect([...langs.keys()].sort()).toEqual([...new Set([...V4, ...V3, ...BEYOND_THE_SPEC, ...MODERN, ...JUDGE0_FORMS])].sort())
    expect([...langs.values()].filter((l) => l.judge0Only).map((l) => l.code).sort()).toEqual(JUDGE0_FORMS)
  })

  it.each([...langs.values()].map((l) => [l.code, l] as const))(
    '%s is complete and well-formed',
    (_, l) => {
      expect(['trixie', 'bullseye']).toContain(l.root)
      expect(l.packages.length).toBeGreaterThan(0)
      expect(l.run.length).toBeGreaterThan(0)
      expect(l.version.length).toBeGreaterThan(0)
      expect(l.selftest.trim()).not.toBe('')
      if (l.sourceIsOutput) {
        // Plain Text: no syntax error, no loop; what runs is the source itself
        expect([l.selftestError, l.selftestErrorMessage, l.endlessLoop, l.compile]).toEqual(['', undefined, undefined, undefined])
      } else {
        expect(l.selftestError.trim()).not.toBe('')
        // what the per-language tests and the room read from the entry (nothing else names a language)
        expect(l.selftestErrorMessage, 'selftest_error_message').toBeTruthy()
        expect(l.endlessLoop?.trim(), 'endless_loop').toBeTruthy()
      }
      expect(EDITOR_MODES, 'editor_mode').toContain(l.editorMode)
      expect(l.sourceFile).toMatch(/^[\w.-]+$/)
      // the compile command must name the source file unless a wrapper picks it (java-compile)
      if (l.compile && !l.compile[0].endsWith('java-compile'))
        expect(l.compile).toContain(l.sourceFile)
      // (or an argument ending in it: sqlite3's ".read main.sql")
      // (or the source itself, run as it is: Executable's ./a.out)
      if (!l.compile) expect(l.run.some((a) => a === l.sourceFile || a === `./${l.sourceFile}` || a.endsWith(` ${l.sourceFile}`)), l.run.join(' ')).toBe(true)
      // a manifest's own compile limits, where it sets any, are positive (the rest are the config's)
      for (const v of Object.values(l.compileLimits)) expect(v).toBeGreaterThan(0)
      expect(() => new RegExp(l.versionPattern)).not.toThrow()
    }
  )

  it.each([
    ['JAVA', '8'],
    ['JAVA8', '8'],
    ['JAVA14', '14'],
  ])('%s compiles with --release %s', (code, release) => {
    const c = langs.get(code)!.compile!
    expect(c[c.indexOf('--release') + 1]).toBe(release)
  })

  it.each([
    ['CPP', '-std=gnu++17'],
    ['CPP11', '-std=gnu++11'],
    ['CPP14', '-std=gnu++14'],
    ['CPP17', '-std=gnu++17'],
    ['C', '-std=gnu17'],
  ])('%s uses %s', (code, flag) => {
    expect(langs.get(code)!.compile).toContain(flag)
  })

  it.each([
    ['PYTHON', 'bullseye', '/usr/bin/python2.7'],
    ['PYTHON3_8', 'bullseye', '/usr/bin/python3.9'],
    ['PYTHON3', 'trixie', '/usr/bin/python3'],
  ])('%s runs in %s with %s', (code, root, interpreter) => {
    const l = langs.get(code)!
    expect(l.root).toBe(root)
    expect(l.run[0]).toBe(interpreter)
  })

  it.each(['PYTHON3_8', 'JAVA', 'JAVA8', 'JAVA14', 'CPP', 'JAVASCRIPT', 'KOTLIN', 'SCALA', 'OBJECTIVEC'])(
    '%s carries a note: the code is not literally the version (or runtime) it names',
    (code) => {
      expect(langs.get(code)!.note?.trim()).toBeTruthy()
    }
  )

  // the compiled languages whose compilers default to no optimisation are compiled with it
  it.each([
    ['HASKELL', '-O2'],
    ['RUST', '-O'],
    ['SWIFT', '-O'],
    ['PASCAL', '-O2'],
    ['OBJECTIVEC', '-O2'],
  ])('%s compiles with optimisation (%s)', (code, flag) => {
    expect(langs.get(code)!.compile).toContain(flag)
  })

  it('shows Swift errors in the llvm style, which keeps an error at the end of the file', () => {
    const c = langs.get('SWIFT')!.compile!
    expect(c[c.indexOf('-diagnostic-style') + 1]).toBe('llvm')
  })

  it('lets R open enough files to start', () => {
    expect(langs.get('R')!.runOpenFiles).toBeGreaterThanOrEqual(170)
  })

  it.each(['JAVA', 'JAVA8', 'JAVA14', 'KOTLIN', 'SCALA', 'CLOJURE', 'GROOVY'])(
    '%s maps a heap OutOfMemoryError to MLE',
    (code) => {
      const pattern = new RegExp(langs.get(code)!.memoryErrorPattern!)
      expect('Exception in thread "main" java.lang.OutOfMemoryError: Java heap space').toMatch(
        pattern
      )
    }
  )

  it("maps clojure.main's own wording of a heap OutOfMemoryError to MLE", () => {
    // what clojure.main prints (its message, without the class's package) for 300 MB under -Xmx64m
    const report = 'Execution error (OutOfMemoryError) at user/eval134 (main.clj:1).\nJava heap space\n'
    expect(report).toMatch(new RegExp(langs.get('CLOJURE')!.memoryErrorPattern!))
  })

  it('archives JVM compilers and Clojure with AppCDS at provisioning, under the name the argv uses', () => {
    for (const code of ['JAVA', 'KOTLIN', 'SCALA', 'CLOJURE', 'GROOVY']) {
      const l = langs.get(code)!
      const archive = l.prepare.find((p) => p[0].endsWith('/jvm-cds'))?.[1]
      expect(archive, code).toMatch(/\.jsa$/)
      expect([...(l.compile ?? l.run)].join(' '), code).toContain(`SharedArchiveFile=${archive}`)
    }
    // Groovy archives its runtime too: each archive is one its compile or run maps
    const groovy = langs.get('GROOVY')!
    const archives = groovy.prepare.filter((p) => p[0].endsWith('/jvm-cds')).map((p) => p[1])
    expect(archives).toEqual(['/usr/local/lib/arbiter/cds/groovyc.jsa', '/usr/local/lib/arbiter/cds/groovy.jsa'])
    expect(groovy.run).toContain('-XX:SharedArchiveFile=/usr/local/lib/arbiter/cds/groovy.jsa')
  })

  it("keeps JVM runtimes' whole allowance inside the limit: MaxRAM is the limit, the heap a share of it, no cgroup headroom", () => {
    for (const code of ['JAVA', 'JAVA8', 'JAVA14', 'KOTLIN', 'SCALA', 'CLOJURE', 'GROOVY']) {
      const l = langs.get(code)!
      expect(l.run, code).toContain('-XX:MaxRAM={memory_kb}k')
      expect(l.run, code).toContain('-XX:MaxRAMPercentage=85')
      expect(l.run.some((a) => a.startsWith('-Xmx')), code).toBe(false)
      expect(l.runMemoryHeadroomKb, code).toBe(0)
    }
    for (const l of langs.values()) expect(l.runMemoryHeadroomKb, l.code).toBe(0)
  })
})

describe('resolveLanguage', () => {
  it.each([
    ['CPP17', 'CPP17'],
    ['cpp17', 'CPP17'],
    ['  python3 ', 'PYTHON3'],
    ['C++', 'CPP'],
    ['c++11', 'CPP11'],
    ['C#', 'CSHARP'],
    ['PYTHON2', 'PYTHON'],
    ['python', 'PYTHON'],
    ['JavaScript', 'JAVASCRIPT'],
    ['GOLANG', 'GO'],
    // lang=C++ in a form body nobody encoded: the '+' signs arrive as spaces
    ['C  ', 'CPP'],
    ['c  11', 'CPP11'],
    ['C ', 'C'],
    ['python3  ', 'PYTHON3'],
  ])('%j → %s', (input, code) => {
    expect(resolveLanguage(langs, input)?.code).toBe(code)
  })

  it.each(['', '   ', 'FORTH', 'CPP26', 'PYTHON3.8'])('%j → undefined', (input) => {
    expect(resolveLanguage(langs, input)).toBeUndefined()
  })
})

describe('compileOverridesByCode', () => {
  it('keys the config by canonical code: codes and aliases in any case, like a request', () => {
    expect(compileOverridesByCode(langs, { c: { time_sec: 1 }, 'c++': { processes: 2 }, Golang: { memory_kb: 9 } })).toEqual({
      C: { time_sec: 1 },
      CPP: { processes: 2 },
      GO: { memory_kb: 9 },
    })
  })

  it('refuses a key that names no language, rather than ignoring it', () => {
    expect(() => compileOverridesByCode(langs, { C: {}, FORTH: {}, 'CPP 20': {} })).toThrow(/unknown language code\(s\) FORTH, CPP 20/)
  })
})

describe('expandArgv', () => {
  const vars = { memory_kb: 262144, memory_mb: 256 }
  it.each([
    [
      ['java', '-Xmx{memory_mb}m', 'Main'],
      ['java', '-Xmx256m', 'Main'],
    ],
    [
      ['x', '--kb={memory_kb}', '{memory_mb}/{memory_mb}'],
      ['x', '--kb=262144', '256/256'],
    ],
    [
      ['literal', '{other}', '{ memory_mb }'],
      ['literal', '{other}', '{ memory_mb }'],
    ],
    [[], []],
  ])('%j → %j', (argv, want) => {
    expect(expandArgv(argv, vars)).toEqual(want)
  })

  it('does not change its input', () => {
    const argv = ['-Xmx{memory_mb}m']
    expandArgv(argv, vars)
    expect(argv).toEqual(['-Xmx{memory_mb}m'])
  })
})

// ---------- temporary manifests ----------

let tmp: string | undefined
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
  tmp = undefined
})

function manifestDir(files: Record<string, string>): string {
  tmp = mkdtempSync(join(tmpdir(), 'arbiter-langs-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(tmp, name), text)
  return tmp
}

const GOOD = `
root = "trixie"
packages = ["gcc"]
version = ["gcc", "--version"]
run = ["./main"]
selftest_error = "x"
[env]
A = "1"
[compile_limits]
time_sec = 20
[[language]]
code = "C"
aliases = ["CC"]
name = "C"
source_file = "main.c"
compile = ["gcc", "main.c"]
selftest = "echo"
env = { B = "2" }
compile_limits = { memory_kb = 4096 }
`

describe('adding a language is its manifest entry', () => {
  it('a new toolchain file brings a code with everything the tests and the room need, and no code change', () => {
    const tcl = `
root = "trixie"
packages = ["tcl8.6"]
version = ["tclsh8.6"]
[[language]]
code = "TCL"
name = "Tcl 8.6"
source_file = "main.tcl"
run = ["tclsh8.6", "main.tcl"]
selftest = "puts [gets stdin]"
selftest_error = "puts \\"unclosed"
selftest_error_message = '''missing "'''
endless_loop = '''while 1 {}'''
editor_mode = "clike"
`
    const all = loadLanguages(manifestDir({ ...Object.fromEntries(readdirSync(MANIFEST_DIR).map((f) => [f, readFileSync(join(MANIFEST_DIR, f), 'utf8')])), 'tcl.toml': tcl }))
    const l = all.get('TCL')!
    expect(l).toMatchObject({ code: 'TCL', toolchain: 'tcl', endlessLoop: 'while 1 {}', editorMode: 'clike', selftestErrorMessage: 'missing "' })
    expect(all.size).toBe(langs.size + 1)
    expect(resolveLanguage(all, 'tcl')?.code).toBe('TCL')
  })

  it('refuses an editor mode or a message pattern that is not well-formed', () => {
    const bad = GOOD.replace('selftest = "echo"', 'selftest = "echo"\neditor_mode = "C++"')
    expect(() => loadLanguages(manifestDir({ 'bad.toml': bad }))).toThrow(/editor_mode/)
    const badRe = GOOD.replace('selftest = "echo"', "selftest = \"echo\"\nselftest_error_message = '''(unclosed'''")
    expect(() => loadLanguages(manifestDir({ 'bad.toml': badRe }))).toThrow(/selftest_error_message/)
  })
})

describe("judge0_only: Judge0's own forms", () => {
  it('needs a Judge0 id and takes no other face\'s name; top-level judge0_only is refused', () => {
    const entry = (extra: string) => GOOD.replace('selftest = "echo"', `selftest = "echo"\n${extra}`)
    const ok = loadLanguages(manifestDir({ 'ok.toml': entry('judge0 = [{ id = 44, name = "Executable" }]\njudge0_only = true') })).get('C')!
    expect(ok.judge0Only).toBe(true)
    expect(() => loadLanguages(manifestDir({ 'a.toml': entry('judge0_only = true') }))).toThrow(/judge0_only: needs a judge0 id/)
    expect(() => loadLanguages(manifestDir({ 'b.toml': entry('judge0 = [{ id = 44, name = "E" }]\njudge0_only = true\npiston = { name = "c" }') }))).toThrow(/judge0_only/)
    expect(() => loadLanguages(manifestDir({ 'c.toml': `judge0_only = true\n${GOOD}` }))).toThrow(/judge0_only/)
  })

  it('the shipped forms are left out of the lists every face shows, kept in what a sandbox host runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-offer-'))
    const config = { paths: { toolchains: dir }, languages: { enabled: [] }, queue: { redis_url: 'redis://x' } }
    expect(offeredLanguages(langs, config).map((l) => l.code)).toEqual(expect.arrayContaining(['EXECUTABLE', 'MULTIFILE']))
    expect(offeredEverywhere(langs, config).filter((l) => l.judge0Only)).toEqual([])
    expect(offeredEverywhere(langs, config).length).toBe(langs.size - 2)
  })
})

describe('loadLanguages on a given directory', () => {
  it('applies the top of the file as defaults, merging env and compile_limits', () => {
    const c = loadLanguages(manifestDir({ 'tiny.toml': GOOD })).get('C')!
    expect(c).toMatchObject<Partial<Language>>({
      toolchain: 'tiny',
      root: 'trixie',
      aliases: ['CC'],
      env: { A: '1', B: '2' },
      compileLimits: { timeSec: 20, memoryKb: 4096 }, // processes: the config's limits.compile_processes
      runMemoryHeadroomKb: 0,
      prepare: [],
      artifacts: [],
    })
    expect(c).not.toHaveProperty('runProcesses')
    expect(c).not.toHaveProperty('runOpenFiles')
    expect(c).not.toHaveProperty('memoryErrorPattern')
    expect(c).not.toHaveProperty('note')
    expect(c.versionPattern).toBe('(\\d+(?:\\.\\d+)+)')
  })

  it('reads the optional run and prepare keys', () => {
    const text = GOOD.replace(
      'root = "trixie"',
      'root = "trixie"\nrun_processes = 99\nrun_open_files = 256\nrun_memory_headroom_kb = 1024\nmemory_error_pattern = "OOM"\nnote = "n"\nprepare = [["/usr/local/lib/arbiter/x", "{not a placeholder here}"]]'
    )
    expect(loadLanguages(manifestDir({ 'tiny.toml': text })).get('C')).toMatchObject<
      Partial<Language>
    >({
      runProcesses: 99,
      runOpenFiles: 256,
      runMemoryHeadroomKb: 1024,
      memoryErrorPattern: 'OOM',
      note: 'n',
      prepare: [['/usr/local/lib/arbiter/x', '{not a placeholder here}']],
    })
  })

  it.each([
    ['not TOML', 'root = ', /bad\.toml: not valid TOML/],
    [
      'an unknown top key',
      GOOD.replace('root = "trixie"', 'root = "trixie"\nrot = 1'),
      /bad\.toml: invalid manifest\n {2}\(top\) \(rot\)/,
    ],
    [
      'an unknown entry key',
      GOOD.replace('code = "C"', 'code = "C"\nsorce = "x"'),
      /bad\.toml: invalid manifest\n {2}language\[0\] \(sorce\)/,
    ],
    [
      'a string for an argv',
      GOOD.replace('compile = ["gcc", "main.c"]', 'compile = "gcc main.c"'),
      /bad\.toml: invalid manifest\n {2}language\[0\]\.compile:/,
    ],
    [
      'an empty argv',
      GOOD.replace('run = ["./main"]', 'run = []'),
      /bad\.toml: invalid manifest\n {2}run:/,
    ],
    [
      'an unknown placeholder',
      GOOD.replace('"./main"', '"-m{memory_gb}"'),
      /run: unknown placeholder \{memory_gb\}/,
    ],
    [
      'a bad package name',
      GOOD.replace('["gcc"]', '["gcc; rm -rf /"]'),
      /packages\[0\]: not a Debian package name/,
    ],
    [
      'a lower-case code',
      GOOD.replace('code = "C"', 'code = "c"'),
      /language\[0\]\.code: spec codes are upper case/,
    ],
    [
      'a source path',
      GOOD.replace('"main.c"\n', '"../main.c"\n'),
      /language\[0\]\.source_file: a plain file name/,
    ],
    [
      'a bad regex',
      GOOD.replace('root = "trixie"', 'root = "trixie"\nversion_pattern = "("'),
      /version_pattern: not a valid regular expression/,
    ],
    [
      'a negative limit',
      GOOD.replace('time_sec = 20', 'time_sec = -1'),
      /compile_limits\.time_sec:/,
    ],
    [
      'a missing required key',
      GOOD.replace('selftest = "echo"', ''),
      /bad\.toml: language\[0\]\.selftest: missing/,
    ],
    ['no language', 'root = "trixie"', /bad\.toml: invalid manifest\n {2}language:/],
  ])('rejects %s, naming the file and the key', (_, text, message) => {
    expect(() => loadLanguages(manifestDir({ 'bad.toml': text }))).toThrow(message)
  })

  it('rejects a code or alias claimed by two files', () => {
    const other = GOOD.replace('code = "C"', 'code = "D"').replace('["CC"]', '["cc"]')
    expect(() => loadLanguages(manifestDir({ 'a.toml': GOOD, 'b.toml': other }))).toThrow(
      /b\.toml: D: code or alias cc is already taken by C in a\.toml/
    )
  })
})

describe("each API's name for a language (judge0, piston, jobe, similarity)", () => {
  const NAMED = GOOD.replace(
    'code = "C"',
    'code = "C"\njudge0 = [{ id = 50, name = "C (GCC {version})", version = "14" }, { id = 1050, name = "C (fixed)" }]\npiston = { name = "c", aliases = ["gcc"], runtime = "gcc" }\njobe = "c"\nsimilarity = "c"'
  )
  const load = (files: Record<string, string>) => loadLanguages(manifestDir(files))

  it('reads them from the entry; Jobe defaults to the code in lowercase, the others to not offered', () => {
    expect(load({ 'a.toml': NAMED }).get('C')).toMatchObject<Partial<Language>>({
      judge0: [
        { id: 50, name: 'C (GCC {version})', version: '14' },
        { id: 1050, name: 'C (fixed)' },
      ],
      piston: { name: 'c', aliases: ['gcc'], runtime: 'gcc' },
      jobe: 'c',
      similarity: 'c',
    })
    const bare = load({ 'a.toml': GOOD.replace('code = "C"', 'code = "C_LANG"') }).get('C_LANG')!
    expect(bare).toMatchObject({ judge0: [], jobe: 'c_lang' })
    expect(bare).not.toHaveProperty('piston')
    expect(bare).not.toHaveProperty('similarity')
  })

  it('gives every shipped entry a Jobe name and the names the protocol tests list', () => {
    expect(langs.get('PYTHON3')).toMatchObject({ judge0: [{ id: 71 }], piston: { name: 'python' }, jobe: 'python3', similarity: 'python' })
    expect(langs.get('JAVASCRIPT_NODE')).toMatchObject({ judge0: [{ id: 63 }], piston: { name: 'javascript', runtime: 'node' }, jobe: 'nodejs' })
  })

  it.each([
    ['an unknown key in a Judge0 id', NAMED.replace('id = 1050,', 'id = 1050, lang = 1,'), /language\[0\]\.judge0\[1\] \(lang\)/],
    ['an unknown key in the Piston name', NAMED.replace('runtime = "gcc"', 'runtime = "gcc", version = "1"'), /language\[0\]\.piston \(version\)/],
    ['{version} without the version to show when none is recorded', NAMED.replace(', version = "14"', ''), /judge0\[0\]\.version: a name with \{version\} needs version/],
    ['another placeholder in a Judge0 name', NAMED.replace('C (fixed)', 'C ({release})'), /judge0\[1\]\.name: the only placeholder/],
    ['a Judge0 id between Judge0 1.14 and our own', NAMED.replace('1050', '500'), /judge0\[1\]\.id: Judge0's own ids are 1-113/],
    ['a Piston name with a space', NAMED.replace('name = "c"', 'name = "c lang"'), /piston\.name: a Piston name/],
    ['an upper-case Jobe name', NAMED.replace('jobe = "c"', 'jobe = "C"'), /jobe: Jobe's language_id/],
    ['a Piston alias listed twice', NAMED.replace('aliases = ["gcc"]', 'aliases = ["gcc", "gcc"]'), /C: a Piston alias is listed twice/],
    ['an API name as a file default', `judge0 = [{ id = 1, name = "x" }]\n${GOOD}`, /\(top\) \(judge0\)/],
  ])('rejects %s', (_, text, message) => {
    expect(() => load({ 'bad.toml': text })).toThrow(message)
  })

  const twin = (from: string, to: string) => NAMED.replace('code = "C"', 'code = "D"').replace('["CC"]', '["DD"]').replace(from, to)
  it.each([
    ['a Judge0 id', twin('id = 1050', 'id = 1051').replace('jobe = "c"', 'jobe = "d"').replace('name = "c", aliases = ["gcc"]', 'name = "d", aliases = []'), /b\.toml: D: Judge0 id 50 is already taken by C in a\.toml/],
    ['a Jobe name', twin('id = 50,', 'id = 51,').replace('id = 1050', 'id = 1051').replace('name = "c", aliases = ["gcc"]', 'name = "d", aliases = []'), /b\.toml: D: Jobe name c is already taken by C in a\.toml/],
    ['a default Jobe name', GOOD.replace('code = "C"', 'code = "D"\njobe = "c"').replace('["CC"]', '["DD"]'), /b\.toml: D: Jobe name c is already taken by C in a\.toml/],
    [
      'a Piston alias that means another Piston language',
      twin('id = 50,', 'id = 51,').replace('id = 1050', 'id = 1051').replace('jobe = "c"', 'jobe = "d"').replace('name = "c", aliases = ["gcc"]', 'name = "d", aliases = ["gcc"]'),
      /b\.toml: D: Piston name or alias gcc already means Piston's c \(C in a\.toml\)/,
    ],
  ])('rejects %s claimed by two entries', (_, other, message) => {
    expect(() => load({ 'a.toml': NAMED, 'b.toml': other })).toThrow(message)
  })

  it('lets two entries share a Piston name with the same aliases meaning it (versions of one language)', () => {
    const other = NAMED.replace('code = "C"', 'code = "D"').replace('["CC"]', '["DD"]').replace('id = 50,', 'id = 51,').replace('id = 1050', 'id = 1051').replace('jobe = "c"', 'jobe = "d"').replace('aliases = ["gcc"]', 'aliases = ["c99"]')
    const all = load({ 'a.toml': NAMED, 'b.toml': other })
    expect([all.get('C')!.piston!.name, all.get('D')!.piston!.name]).toEqual(['c', 'c'])
  })
})

describe('isProvisioned', () => {
  const lang = {
    code: 'C',
    root: 'trixie',
    toolchain: 'gcc',
    packages: ['gcc', 'libc6-dev'],
  } as Language

  function toolchains(stamp?: object, withRoot = true): string {
    tmp = mkdtempSync(join(tmpdir(), 'arbiter-tc-'))
    if (withRoot) mkdirSync(join(tmp, 'trixie', 'usr', 'bin'), { recursive: true })
    if (stamp) {
      mkdirSync(join(tmp, 'stamps', 'trixie'), { recursive: true })
      writeFileSync(stampPath(tmp, 'trixie', 'gcc'), JSON.stringify(stamp))
    }
    return tmp
  }

  it.each([
    ['no stamp', undefined, true, false],
    ['a stamp with every package', { packages: ['gcc', 'libc6-dev', 'g++'] }, true, true],
    ['a stamp missing a package', { packages: ['gcc'] }, true, false],
    ['a stamp but no root', { packages: ['gcc', 'libc6-dev'] }, false, false],
  ])('%s → %s', (_, stamp, withRoot, want) => {
    expect(isProvisioned(toolchains(stamp, withRoot), lang)).toBe(want)
  })
})

describe('recordedVersions (versions.json, one reader for every listing)', () => {
  it('{} without a file or with a broken one; a rewrite is read again, an unchanged file is not', () => {
    tmp = mkdtempSync(join(tmpdir(), 'arbiter-versions-'))
    const file = join(tmp, 'versions.json')
    expect(recordedVersions(tmp)).toEqual({})
    const record = (version: string) => ({ name: 'C', toolchain: 'gcc', root: 'trixie', version, reported: `gcc ${version}` })
    writeFileSync(file, JSON.stringify({ languages: { C: record('14.2.0') } }))
    utimesSync(file, 1000, 1000)
    expect(recordedVersions(tmp).C?.version).toBe('14.2.0')
    // the same mtime: the remembered record (listings ask on every request)
    writeFileSync(file, JSON.stringify({ languages: { C: record('99') } }))
    utimesSync(file, 1000, 1000)
    expect(recordedVersions(tmp).C?.version).toBe('14.2.0')
    utimesSync(file, 2000, 2000)
    expect(recordedVersions(tmp).C?.version).toBe('99')
    writeFileSync(file, '{broken')
    utimesSync(file, 3000, 3000)
    expect(recordedVersions(tmp)).toEqual({})
  })
})
