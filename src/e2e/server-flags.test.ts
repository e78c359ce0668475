// The end-to-end tests and scripts/bench-api start the server the way `npm start` does: same node flags.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { SERVER_NODE_FLAGS } from './harness.ts'

test('the harness gives node the flags of `npm start`', () => {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { scripts: { start: string } }
  const start = pkg.scripts.start.split(/\s+/)
  expect(start.filter((w) => w.startsWith('--'))).toEqual(SERVER_NODE_FLAGS)
})
