// The room editor's syntax modes, by the name a language's manifest entry gives as editor_mode
// (modes.ts maps each to its CodeMirror language). Plain data, so the manifest can be checked
// against it without loading CodeMirror.
export const EDITOR_MODES = [
  'cpp',
  'java',
  'python',
  'javascript',
  'typescript',
  'go',
  'rust',
  'php',
  'kotlin',
  'scala',
  'csharp',
  'objectivec',
  'clojure',
  'haskell',
  'pascal',
  'perl',
  'r',
  'ruby',
  'swift',
  'clike',
] as const
export type EditorMode = (typeof EDITOR_MODES)[number]
