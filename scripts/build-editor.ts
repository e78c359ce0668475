// Writes the room editor's browser bundle to dist/room-editor.js (part of `npm run build`), so a
// built server serves it as it is instead of bundling it at its first request.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { buildEditor, PREBUILT } from '../src/room/editor/bundle.ts'

const js = await buildEditor()
mkdirSync(dirname(PREBUILT), { recursive: true })
writeFileSync(PREBUILT, js)
console.log(`build-editor: ${PREBUILT} (${(js.length / 1024).toFixed(0)} KiB)`)
