// Each editor mode name (mode-names.ts, a language's manifest editor_mode) → its CodeMirror language.
// A Record over the names: a name added there does not compile until it has its language here.
import { cpp } from '@codemirror/lang-cpp'
import { go } from '@codemirror/lang-go'
import { java } from '@codemirror/lang-java'
import { javascript } from '@codemirror/lang-javascript'
import { php } from '@codemirror/lang-php'
import { python } from '@codemirror/lang-python'
import { rust } from '@codemirror/lang-rust'
import { StreamLanguage, type StreamParser } from '@codemirror/language'
import { c as clikeC, csharp, kotlin, objectiveC, scala } from '@codemirror/legacy-modes/mode/clike'
import { clojure } from '@codemirror/legacy-modes/mode/clojure'
import { cobol } from '@codemirror/legacy-modes/mode/cobol'
import { commonLisp } from '@codemirror/legacy-modes/mode/commonlisp'
import { d } from '@codemirror/legacy-modes/mode/d'
import { erlang } from '@codemirror/legacy-modes/mode/erlang'
import { fortran } from '@codemirror/legacy-modes/mode/fortran'
import { groovy } from '@codemirror/legacy-modes/mode/groovy'
import { haskell } from '@codemirror/legacy-modes/mode/haskell'
import { lua } from '@codemirror/legacy-modes/mode/lua'
import { oCaml } from '@codemirror/legacy-modes/mode/mllike'
import { octave } from '@codemirror/legacy-modes/mode/octave'
import { pascal } from '@codemirror/legacy-modes/mode/pascal'
import { perl } from '@codemirror/legacy-modes/mode/perl'
import { r } from '@codemirror/legacy-modes/mode/r'
import { ruby } from '@codemirror/legacy-modes/mode/ruby'
import { shell } from '@codemirror/legacy-modes/mode/shell'
import { sqlite } from '@codemirror/legacy-modes/mode/sql'
import { swift } from '@codemirror/legacy-modes/mode/swift'
import type { Extension } from '@codemirror/state'
import type { EditorMode } from './mode-names.ts'

const legacy = (p: unknown): Extension => StreamLanguage.define(p as StreamParser<unknown>)

const MODES: Record<EditorMode, () => Extension> = {
  cpp: () => cpp(),
  java: () => java(),
  python: () => python(),
  javascript: () => javascript(),
  typescript: () => javascript({ typescript: true }),
  go: () => go(),
  rust: () => rust(),
  php: () => php({ plain: true }),
  kotlin: () => legacy(kotlin),
  scala: () => legacy(scala),
  csharp: () => legacy(csharp),
  objectivec: () => legacy(objectiveC),
  clojure: () => legacy(clojure),
  haskell: () => legacy(haskell),
  pascal: () => legacy(pascal),
  perl: () => legacy(perl),
  r: () => legacy(r),
  ruby: () => legacy(ruby),
  swift: () => legacy(swift),
  shell: () => legacy(shell),
  lua: () => legacy(lua),
  fortran: () => legacy(fortran),
  d: () => legacy(d),
  // the legacy OCaml parser has no name of its own
  ocaml: () => legacy({ ...oCaml, name: 'ocaml' }),
  octave: () => legacy(octave),
  commonlisp: () => legacy(commonLisp),
  sql: () => legacy(sqlite),
  erlang: () => legacy(erlang),
  cobol: () => legacy(cobol),
  groovy: () => legacy(groovy),
  clike: () => legacy(clikeC),
}

/** The CodeMirror language of an editor mode name; plain C-like highlighting for a name it does not know. */
export function modeExtension(name: string | undefined): Extension {
  return (name !== undefined && Object.hasOwn(MODES, name) ? MODES[name as EditorMode] : MODES.clike)()
}
