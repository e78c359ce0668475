// The editor's highlighting comes from the language's manifest entry (editor_mode), not from its code:
// every mode name has its CodeMirror language, every manifest entry names one, and a language added by
// its entry alone gets the mode it names.
import { describe, expect, test } from 'vitest'
import { loadLanguages } from '../../languages.ts'
import { EDITOR_MODES } from './mode-names.ts'
import { modeExtension } from './modes.ts'

/** The CodeMirror language's own name (a LanguageSupport's language, or a legacy StreamLanguage). */
const languageOf = (name: string | undefined): string => {
  const e = modeExtension(name) as { language?: { name: string }; name?: string }
  return e.language?.name ?? e.name ?? '?'
}

// the name CodeMirror gives each mode's language; clike is its plain C
const CODEMIRROR_NAME: Record<(typeof EDITOR_MODES)[number], string> = {
  cpp: 'cpp',
  java: 'java',
  python: 'python',
  javascript: 'javascript',
  typescript: 'typescript',
  go: 'go',
  rust: 'rust',
  php: 'php',
  kotlin: 'kotlin',
  scala: 'scala',
  csharp: 'csharp',
  objectivec: 'objectivec',
  clojure: 'clojure',
  haskell: 'haskell',
  pascal: 'pascal',
  perl: 'perl',
  r: 'r',
  ruby: 'ruby',
  swift: 'swift',
  shell: 'shell',
  lua: 'lua',
  fortran: 'fortran',
  d: 'd',
  ocaml: 'ocaml',
  octave: 'octave',
  commonlisp: 'commonlisp',
  sql: 'sql',
  erlang: 'erlang',
  cobol: 'cobol',
  groovy: 'groovy',
  clike: 'c',
}

describe('editor modes', () => {
  test.each([...EDITOR_MODES])('%s highlights as its own language', (mode) => {
    expect(languageOf(mode)).toBe(CODEMIRROR_NAME[mode])
  })

  test('a name it does not know, or none, is plain C-like', () => {
    for (const name of [undefined, 'zig', 'constructor', '__proto__']) expect(languageOf(name), String(name)).toBe('c')
  })

  test('each manifest language gets the mode its entry names', () => {
    for (const l of loadLanguages().values()) expect(languageOf(l.editorMode), l.code).toBe(CODEMIRROR_NAME[l.editorMode as keyof typeof CODEMIRROR_NAME])
  })
})
