// The room editor's browser bundle (src/room/editor/client.ts and CodeMirror, Yjs): built with esbuild
// once per process, at the first request (~1 s) or ahead by `npm run build` / the test command
// (scripts/build-editor.ts writes dist/room-editor.js, which is then served as it is).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..', '..')
export const PREBUILT = join(ROOT, 'dist', 'room-editor.js')
const ENTRY = join(ROOT, 'src', 'room', 'editor', 'client.ts')

export async function buildEditor(minify = true): Promise<string> {
  const { build } = await import('esbuild')
  const out = await build({ entryPoints: [ENTRY], bundle: true, write: false, format: 'iife', target: 'es2020', minify, legalComments: 'none', logLevel: 'silent' })
  return out.outputFiles[0].text
}

let cached: Promise<string> | undefined
/** The bundle's text: a built server's prebuilt file when there is one, else built once and kept (always, from the sources). */
export function editorBundle(): Promise<string> {
  const built = !import.meta.url.endsWith('.ts')
  cached ??= built && existsSync(PREBUILT) ? Promise.resolve(readFileSync(PREBUILT, 'utf8')) : buildEditor()
  cached.catch(() => (cached = undefined))
  return cached
}
