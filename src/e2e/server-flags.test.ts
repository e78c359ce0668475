// The end-to-end tests and scripts/bench-api start the server the way `npm start` does: same node flags.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { SERVER_NODE_FLAGS } from '../testing/harness.ts'

test('the harness gives node the flags of `npm start` (scripts/arbiter-exec.sh, which the service runs)', () => {
  const exec = readFileSync(join(import.meta.dirname, '..', '..', 'scripts', 'arbiter-exec.sh'), 'utf8')
  const lines = [...exec.matchAll(/^\s*flags=\(([^)]*)\)/gm)].map((m) => m[1].trim().split(/\s+/))
  expect(lines.length).toBeGreaterThan(0)
  for (const flags of lines) expect(flags).toEqual(SERVER_NODE_FLAGS)
})
