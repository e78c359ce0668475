import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { resolveInRoot } from './run.ts'

describe('resolveInRoot: the PATH search nsjail does not do, in the root', () => {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-root-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, 'usr/bin'), { recursive: true })
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true })
  writeFileSync(join(root, 'usr/bin/gcc'), '')
  // a link into the root's own /etc/alternatives: dangling on the host, fine in the jail
  symlinkSync('/etc/alternatives/java', join(root, 'usr/bin/java'))

  it.each([
    ['gcc', '/usr/local/bin:/usr/bin', '/usr/bin/gcc'],
    ['java', '/usr/bin', '/usr/bin/java'],
    ['./main', '/usr/bin', './main'],
    ['/usr/bin/python3', '/usr/bin', '/usr/bin/python3'],
    ['nothere', '/usr/bin', 'nothere'],
    ['gcc', 'relative:/usr/bin', '/usr/bin/gcc'],
  ])('%s with PATH=%s → %s', (cmd, path, want) => {
    expect(resolveInRoot(root, cmd, path)).toBe(want)
  })
})
