// toolchains/bin/python-sitecustomize-prepare on site folders of its own: the interpreter it is given is
// the host's python3 behind a wrapper whose path is only those folders (the host's own sitecustomize
// out of sight). Debian's apport hook goes when apport is not there, with its symlink; any other file
// stays; and a removal after which another sitecustomize would run is put back and fails the step.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const HELPER = join(import.meta.dirname, '..', 'toolchains', 'bin', 'python-sitecustomize-prepare')
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

/** Debian's /etc/pythonX.Y/sitecustomize.py, as libpython3.13-minimal ships it. */
const APPORT = `# install the apport exception handler if available
try:
    import apport_python_hook
except ImportError:
    pass
else:
    apport_python_hook.install()
`

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sitecustomize-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}

/** An interpreter whose module path is `path` alone: the host's python3 without site, `-c CODE ARGS` as given. */
function interpreter(path: string[], needs?: string): string {
  const dir = folder({})
  const boot = `import sys, importlib.util; code = sys.argv[2]; sys.argv = ['-c'] + sys.argv[3:]; sys.path[:] = ${JSON.stringify(path)}; exec(code)`
  const file = join(dir, 'python')
  // needs: a file without which it does not start
  writeFileSync(file, `#!/bin/sh\n${needs ? `[ -e '${needs}' ] || exit 1\n` : ''}exec ${PYTHON} -S -c '${boot.replaceAll("'", `'"'"'`)}' "$@"\n`)
  chmodSync(file, 0o755)
  return file
}
const prepare = (python: string) => spawnSync(PYTHON, [HELPER, python], { encoding: 'utf8' })

describe('python-sitecustomize-prepare', () => {
  it("removes Debian's apport hook and the symlink to it when apport is not there", () => {
    const dir = folder({ 'etc/sitecustomize.py': APPORT })
    symlinkSync(join(dir, 'etc', 'sitecustomize.py'), join(dir, 'sitecustomize.py'))
    const r = prepare(interpreter([dir]))
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('removed')
    expect(() => lstatSync(join(dir, 'sitecustomize.py'))).toThrow()
    expect(existsSync(join(dir, 'etc', 'sitecustomize.py'))).toBe(false)
  })

  it('keeps any other sitecustomize, and the hook when apport is there', () => {
    const other = folder({ 'sitecustomize.py': APPORT.replace('pass', 'print("no apport")') })
    const withApport = folder({ 'sitecustomize.py': APPORT, 'apport_python_hook.py': 'def install(): pass\n' })
    for (const dir of [other, withApport]) {
      const r = prepare(interpreter([dir]))
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain('kept')
      expect(existsSync(join(dir, 'sitecustomize.py'))).toBe(true)
    }
  })

  it('puts the hook back, symlink and all, and fails when another sitecustomize would run without it', () => {
    const dir = folder({ 'etc/sitecustomize.py': APPORT })
    symlinkSync(join(dir, 'etc', 'sitecustomize.py'), join(dir, 'sitecustomize.py'))
    const later = folder({ 'sitecustomize.py': 'import os\n' })
    const r = prepare(interpreter([dir, later]))
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('put back')
    expect(readlinkSync(join(dir, 'sitecustomize.py'))).toBe(join(dir, 'etc', 'sitecustomize.py'))
    expect(readFileSync(join(dir, 'etc', 'sitecustomize.py'), 'utf8')).toBe(APPORT)
  })

  it('puts the hook back and fails when the interpreter does not start without it', () => {
    const dir = folder({ 'etc/sitecustomize.py': APPORT })
    symlinkSync(join(dir, 'etc', 'sitecustomize.py'), join(dir, 'sitecustomize.py'))
    const r = prepare(interpreter([dir], join(dir, 'etc', 'sitecustomize.py')))
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('put back')
    expect(readlinkSync(join(dir, 'sitecustomize.py'))).toBe(join(dir, 'etc', 'sitecustomize.py'))
    expect(readFileSync(join(dir, 'etc', 'sitecustomize.py'), 'utf8')).toBe(APPORT)
  })
})
