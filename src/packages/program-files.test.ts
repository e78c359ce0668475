// The entry point of a multi-file program and the job made of it, by the judges' rules, on the real
// language manifest: C++ and OCaml compiled together (OCaml's entry last), Java by its class with main,
// Python's main.py, an entry point given by name, and each refusal with its message.
import { describe, expect, it } from 'vitest'
import { loadLanguages, resolveLanguage } from '../languages.ts'
import { chooseMain, entryPointFile, planProgram, ProgramRefused } from './program-files.ts'
import { packageLanguageById } from './package-languages.ts'

const languages = loadLanguages()
const lang = (code: string) => resolveLanguage(languages, code)!
const files = (o: Record<string, string>) => Object.entries(o).map(([name, text]) => ({ name, bytes: Buffer.from(text) }))

describe('the entry point of a program', () => {
  it('Java: the one class with main, else Main.java among several; several without Main.java are ambiguous', () => {
    expect(chooseMain(files({ 'A.java': 'class A {}', 'Hello.java': 'public class Hello { public static void main(String[] a) {} }' }), lang('JAVA'))).toBe('Hello.java')
    const two = { 'B.java': 'class B { public static void main(String[] a) {} }', 'C.java': 'class C { static public void main(String... a) {} }' }
    expect(() => chooseMain(files({ ...two, 'C.java': 'class C { public static void main(String[] a) {} }' }), lang('JAVA'))).toThrow(/ambiguous entry point: B\.java, C\.java each declare main; name the entry point Main\.java or give its name/)
    expect(chooseMain(files({ ...two, 'Main.java': 'public class Main { public static void main(String[] a) {} }' }), lang('JAVA'))).toBe('Main.java')
  })

  it('Python: the only .py, else main.py; several without main.py are ambiguous; data files do not count', () => {
    expect(chooseMain(files({ 'sol.py': '', 'data.txt': '' }), lang('PYTHON3'))).toBe('sol.py')
    expect(chooseMain(files({ 'util.py': '', 'main.py': '' }), lang('PYTHON3'))).toBe('main.py')
    expect(() => chooseMain(files({ 'a.py': '', 'b.py': '' }), lang('PYTHON3'))).toThrow(ProgramRefused)
    expect(() => chooseMain(files({ 'notes.txt': '' }), lang('PYTHON3'))).toThrow(/no Python 3 source among the files \(notes\.txt\)/)
  })

  it('C and C++: main.*, else the file that declares main: the others are compiled with it anyway', () => {
    expect(chooseMain(files({ 'a.cpp': 'int f(){return 1;}', 'b.cpp': 'int main(){}' }), lang('CPP17'))).toBe('b.cpp')
    expect(chooseMain(files({ 'x.c': 'int main(void){}', 'main.c': 'int f;' }), lang('C'))).toBe('main.c')
  })

  it('an entry point given by name wins; one not among the files is refused', () => {
    expect(chooseMain(files({ 'a.py': '', 'b.py': '' }), lang('PYTHON3'), 'b.py')).toBe('b.py')
    expect(() => chooseMain(files({ 'a.py': '' }), lang('PYTHON3'), 'c.py')).toThrow(/entry_point 'c\.py' is not one of the files \(a\.py\)/)
  })
})

describe('a program as one job', () => {
  it('C++: every source on the compile command, headers beside, the entry point as main.cpp', () => {
    const plan = planProgram(files({ 'sol.cc': 'int main(){}', 'geo.cpp': 'int g;', 'geo.h': '' }), lang('CPP20'))
    expect(plan).toEqual({
      main: 'sol.cc',
      source: 'int main(){}',
      files: [{ name: 'geo.cpp', contentBase64: Buffer.from('int g;').toString('base64') }, { name: 'geo.h', contentBase64: '' }],
      compileArgv: ['g++', '-std=gnu++20', '-O2', '-pipe', '-fuse-ld=gold', '-o', 'main', 'main.cpp', 'geo.cpp'],
    })
  })

  it('a package\'s own compile command is extended, not replaced (C with -fpermissive)', () => {
    const argv = ['gcc', '-fpermissive', '-o', 'main', 'main.c', '-lm']
    expect(planProgram(files({ 'main.c': 'int main(){}', 'b.c': '' }), lang('C'), { compileArgv: argv }).compileArgv).toEqual(['gcc', '-fpermissive', '-o', 'main', 'main.c', 'b.c', '-lm'])
  })

  it('OCaml: the modules before the entry point; Java: the others before the wrapper appends the entry point', () => {
    expect(planProgram(files({ 'main.ml': 'let () = Util.f ()', 'util.ml': 'let f () = ()' }), lang('OCAML')).compileArgv).toEqual(['ocamlopt', '-o', 'main', 'util.ml', 'main.ml'])
    const java = planProgram(files({ 'Hello.java': 'public class Hello { public static void main(String[] a) {} }', 'Util.java': 'class Util {}' }), lang('JAVA'))
    expect(java.compileArgv?.[0]).toBe('/usr/local/lib/arbiter/java-compile')
    expect(java.compileArgv?.at(-1)).toBe('Util.java')
    expect(java.compileArgv?.at(-2)).toBe('/work')
  })

  it('Python: the others lie beside, the command is the language\'s', () => {
    const plan = planProgram(files({ 'main.py': 'import util', 'util.py': '' }), lang('PYTHON3'))
    expect(plan.compileArgv).toBeUndefined()
    expect(plan.files).toEqual([{ name: 'util.py', contentBase64: '' }])
  })

  it('refuses subfolders, a name twice, and another file under the name the entry point takes', () => {
    expect(() => planProgram(files({ 'main.py': '', 'lib/x.py': '' }), lang('PYTHON3'))).toThrow(/no subfolders/)
    expect(() => planProgram([...files({ 'main.py': '' }), ...files({ 'main.py': '' })], lang('PYTHON3'))).toThrow(/given twice/)
    expect(() => planProgram(files({ 'Main.java': 'class Main {}', 'Run.java': 'class Run { public static void main(String[] a) {} }' }), lang('JAVA'))).toThrow(/Main\.java is not the entry point \(Run\.java\), but JAVA names its entry point Main\.java: rename it/)
  })
})

describe("a package's declared entry point (submissions.yaml entrypoint, submissions.json entry_point)", () => {
  it('a file, Java\'s class, Kotlin\'s facade class, a name without its extension; none is undefined', () => {
    const by = (id: string) => packageLanguageById(id)
    expect(entryPointFile('solve.py', ['helper.py', 'solve.py'], by('python3'))).toBe('solve.py')
    expect(entryPointFile('solve', ['helper.py', 'solve.py'], by('python3'))).toBe('solve.py')
    expect(entryPointFile('Solver', ['Helper.java', 'Solver.java'], by('java'))).toBe('Solver.java')
    expect(entryPointFile('pkg.Solver', ['Helper.java', 'Solver.java'], by('java'))).toBe('Solver.java')
    expect(entryPointFile('SolverKt', ['solver.kt', 'util.kt'], by('kotlin'))).toBe('solver.kt')
    expect(entryPointFile('MainKt', ['Main.kt'], by('kotlin'))).toBe('Main.kt')
    expect(entryPointFile('Missing', ['Helper.java'], by('java'))).toBeUndefined()
    expect(entryPointFile('x.py', ['a.py'], by('python3'))).toBeUndefined()
  })

  it('the declared entry point is the job\'s source, even where the default rules refuse the folder', () => {
    const both = files({ 'helper.py': 'H = 1', 'solve.py': 'import helper' })
    expect(() => planProgram(both, lang('PYTHON3'))).toThrow(/ambiguous entry point/)
    const plan = planProgram(both, lang('PYTHON3'), { entryPoint: 'solve.py' })
    expect(plan).toMatchObject({ main: 'solve.py', source: 'import helper', files: [{ name: 'helper.py' }] })
  })
})
