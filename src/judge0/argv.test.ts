import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileArgvWith, JVM_RUN, runArgvWith, splitWords } from './argv.ts'

describe('splitWords: argv items, never a shell', () => {
  it.each([
    ['-O2 -Wall', ['-O2', '-Wall']],
    ['  -DNAME="a b"   -x ', ['-DNAME=a b', '-x']],
    ["'$(rm -rf /)' `id` ; | & > <", ['$(rm -rf /)', '`id`', ';', '|', '&', '>', '<']],
    ['a\\ b "c\\"d" \'e\\f\'', ['a b', 'c"d', 'e\\f']],
    ['$HOME *.c ~', ['$HOME', '*.c', '~']],
    ['""', ['']],
    ['', []],
  ])('%j', (text, words) => {
    expect(splitWords(text)).toEqual({ ok: true, words })
  })
  it('refuses unbalanced quotes', () => {
    expect(splitWords('"abc')).toEqual({ ok: false, error: 'has an unterminated double quote' })
    expect(splitWords("it's")).toEqual({ ok: false, error: 'has an unterminated single quote' })
  })
})

describe('argv composition', () => {
  it("puts compiler options where Judge0's %s is: before the source file", () => {
    expect(compileArgvWith(['gcc', '-O2', '-o', 'main', 'main.c', '-lm'], 'main.c', ['-DX', '-Wall'])).toEqual(['gcc', '-O2', '-o', 'main', '-DX', '-Wall', 'main.c', '-lm'])
    expect(compileArgvWith(['javac', '-d', '/work'], 'Main.java', ['-g'])).toEqual(['javac', '-d', '/work', '-g'])
  })
  it('appends arguments after the run argv; the JVM wrapper gets them after --', () => {
    expect(runArgvWith(['./main'], ['a', 'b c'])).toEqual(['./main', 'a', 'b c'])
    expect(runArgvWith([JVM_RUN, 'java', '-cp', '/work'], ['x'])).toEqual([JVM_RUN, 'java', '-cp', '/work', '--', 'x'])
    expect(runArgvWith(['./main'], [])).toEqual(['./main'])
  })
})

describe('the JVM wrapper (toolchains/bin/jvm-run) places the arguments after the main class', () => {
  const run = (args: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'jvm-run-'))
    writeFileSync(join(dir, '.arbiter-main-class'), 'Hello\n')
    return execFileSync('sh', [join(import.meta.dirname, '..', '..', 'toolchains', 'bin', 'jvm-run'), 'printf', '[%s]', ...args], { cwd: dir, encoding: 'utf8' })
  }
  it('without arguments the main class goes last', () => expect(run(['java', '-cp', '/work'])).toBe('[java][-cp][/work][Hello]'))
  it('the first lone -- becomes the main class', () => expect(run(['java', '--', 'a b', '--', '$x'])).toBe('[java][Hello][a b][--][$x]'))
})
