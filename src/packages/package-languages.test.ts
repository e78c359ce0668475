// Every extension problemtools' languages.yaml and DOMjudge's default languages know maps to a code
// the manifest has (except F#, which Arbiter does not offer); the majority and priority rule; the
// shebang rules (python2, perl) and DOMjudge's .pl.
import { describe, expect, it } from 'vitest'
import { loadLanguages, resolveLanguage } from '../languages.ts'
import { languageOfFiles, PACKAGE_LANGUAGES } from './package-languages.ts'

const named = (name: string, text = '') => ({ name, bytes: Buffer.from(text) })

describe('package languages', () => {
  it('every language but F# has a code of the manifest', () => {
    const languages = loadLanguages()
    const missing = PACKAGE_LANGUAGES.filter((l) => !l.code || !resolveLanguage(languages, l.code)).map((l) => l.name)
    expect(missing).toEqual(['F#'])
  })

  it.each([
    ['a.ml', 'OCAML'], ['a.lisp', 'LISP'], ['a.cl', 'LISP'], ['a.cob', 'COBOL'], ['a.pl', 'PROLOG_SWI'], ['a.plg', 'PROLOG_SWI'],
    ['a.adb', 'ADA'], ['a.f90', 'FORTRAN'], ['a.f95', 'FORTRAN'], ['a.lua', 'LUA'], ['a.sh', 'BASH'], ['a.bash', 'BASH'], ['a.awk', 'AWK'],
    ['a.R', 'R'], ['a.swift', 'SWIFT'], ['a.p', 'PASCAL'], ['a.lhs', 'HASKELL'], ['a.py3', 'PYTHON3'], ['a.py2', 'PYTHON'], ['a.sc', 'SCALA'],
    ['a.C', 'CPP17'], ['a.c++', 'CPP17'], ['a.c', 'C'], ['a.m', 'OBJECTIVEC'], ['a.cs', 'CSHARP'], ['a.kt', 'KOTLIN'],
  ])('%s is %s', (file, code) => {
    expect(languageOfFiles([named(file)])?.lang).toBe(code)
  })

  it('.pl: Prolog, Perl with a perl #! line or in a DOMjudge package', () => {
    expect(languageOfFiles([named('a.pl', ':- initialization(main).')])?.lang).toBe('PROLOG_SWI')
    expect(languageOfFiles([named('a.pl', '#!/usr/bin/perl\nprint 1;')])?.lang).toBe('PERL')
    expect(languageOfFiles([named('a.pl', 'print 1;')], { domjudge: true })?.lang).toBe('PERL')
  })

  it('.py: Python 3 unless every .py says python2 in its first line; the majority, then the priority', () => {
    expect(languageOfFiles([named('a.py', '#!/usr/bin/env python2\n'), named('b.py', '#!/usr/bin/python2\n')])?.lang).toBe('PYTHON')
    expect(languageOfFiles([named('a.py', '#!/usr/bin/env python2\n'), named('b.py', '')])?.lang).toBe('PYTHON3')
    expect(languageOfFiles(['a.c', 'b.c', 'c.cpp'])).toMatchObject({ lang: 'C', main: 'a.c', files: ['a.c', 'b.c'] })
    expect(languageOfFiles(['a.c', 'c.cpp'])?.lang).toBe('CPP17')
    expect(languageOfFiles(['x.hs', 'y.c'])?.lang).toBe('HASKELL')
    expect(languageOfFiles(['notes.txt'])).toBeUndefined()
  })
})
