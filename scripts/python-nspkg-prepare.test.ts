// toolchains/bin/python-nspkg-prepare on a site folder of its own, run by the host's python3: a hook
// whose namespace is a plain folder goes (and the namespace still imports), any other stays, and one
// whose namespace does not import without it is put back and fails the step.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const HELPER = join(import.meta.dirname, '..', 'toolchains', 'bin', 'python-nspkg-prepare')
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

/** A hook as setuptools writes it for namespace parts (the line python3-logilab-common ships, its name swapped). */
const hook = (...parts: string[]) =>
  `import sys, types, os;p = os.path.join(sys._getframe(1).f_locals['sitedir'], *(${parts.map((x) => `'${x}'`).join(', ')},));importlib = __import__('importlib.util');__import__('importlib.machinery');m = sys.modules.setdefault('${parts.join('.')}', importlib.util.module_from_spec(importlib.machinery.PathFinder.find_spec('${parts.join('.')}', [os.path.dirname(p)])));m = m or sys.modules.setdefault('${parts.join('.')}', types.ModuleType('${parts.join('.')}'));mp = (m or []) and m.__dict__.setdefault('__path__',[]);(p not in mp) and mp.append(p)\n`

function site(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'nspkg-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}
const prepare = (dir: string) => spawnSync(PYTHON, [HELPER, dir], { encoding: 'utf8' })
const imports = (dir: string, name: string) => spawnSync(PYTHON, ['-S', '-c', `import ${name}`], { env: { ...process.env, PYTHONPATH: dir } }).status === 0

describe('python-nspkg-prepare', () => {
  it('removes a hook whose namespace is a plain folder, and the namespace still imports', () => {
    const dir = site({ 'ns_one-1.0-nspkg.pth': hook('nsone'), 'nsone/common/__init__.py': 'X = 1\n' })
    const r = prepare(dir)
    expect(r.status, r.stderr).toBe(0)
    expect(existsSync(join(dir, 'ns_one-1.0-nspkg.pth'))).toBe(false)
    expect(imports(dir, 'nsone.common')).toBe(true)
  })

  it('keeps a hook whose namespace has an __init__.py, or names no folder there', () => {
    const dir = site({ 'a-1-nspkg.pth': hook('nsa'), 'nsa/__init__.py': '', 'b-1-nspkg.pth': hook('nsb') })
    const r = prepare(dir)
    expect(r.status, r.stderr).toBe(0)
    expect(existsSync(join(dir, 'a-1-nspkg.pth'))).toBe(true)
    expect(existsSync(join(dir, 'b-1-nspkg.pth'))).toBe(true)
  })

  it('puts back a hook whose namespace does not import without it, and fails', () => {
    // a module of the same name shadows the folder and cannot be imported
    const dir = site({ 'c-1-nspkg.pth': hook('nsc'), 'nsc/part/__init__.py': '', 'nsc.py': 'raise ImportError("shadowed")\n' })
    const r = prepare(dir)
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('nsc does not import')
    expect(readFileSync(join(dir, 'c-1-nspkg.pth'), 'utf8')).toBe(hook('nsc'))
  })
})
