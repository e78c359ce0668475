import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadLanguages, MANIFEST_DIR } from '../languages.ts'
import { JOBE_OWN, jobeLanguages, PY_CHECK_AND_RUN_PYC, PY_SYNTAX_CHECK } from './languages.ts'

describe('Jobe language names', () => {
  const manifest = loadLanguages()
  const all = jobeLanguages(manifest)

  test("every language of the manifest has one name, its entry's: Jobe's own names first, in Jobe's order, with Jobe's rules", () => {
    // but Judge0's own forms (judge0_only: its Executable, its multi-file program)
    expect([...new Set(all.map((l) => l.code))].sort()).toEqual([...manifest.values()].filter((l) => !l.judge0Only).map((l) => l.code).sort())
    expect(new Set(all.map((l) => l.name)).size).toBe(all.length)
    for (const l of all) expect(l.name).toBe(manifest.get(l.code)!.jobe)
    const own = JOBE_OWN.map((j) => j.name)
    expect(all.slice(0, own.length).map((l) => l.name)).toEqual(own)
    expect(all.slice(0, own.length).map((l) => l.code)).toEqual(['C', 'CPP', 'PYTHON3', 'JAVA', 'JAVASCRIPT_NODE', 'PYTHON', 'PHP', 'PASCAL'])
    expect(all.slice(own.length).every((l) => l.fixedFileName)).toBe(true)
  })

  test("Jobe's rules follow the name: an entry that takes one of Jobe's names gets Jobe's commands for it", () => {
    const { JAVASCRIPT_NODE: _, ...rest } = Object.fromEntries(manifest)
    const moved = new Map(Object.entries(rest)).set('NODE22', { ...manifest.get('JAVASCRIPT_NODE')!, code: 'NODE22', aliases: [] })
    const node = jobeLanguages(moved).find((l) => l.name === 'nodejs')!
    expect(node.code).toBe('NODE22')
    expect(node.run('prog.js', { compileargs: [], linkargs: [], interpreterargs: ['--use_strict'], runargs: [] })).toEqual(['node', '--use_strict', 'prog.js'])
  })

  test('the API page lists every name, with the manifest file each language is written to', () => {
    const doc = readFileSync(join(MANIFEST_DIR, '..', '..', 'docs', 'api', 'jobe.md'), 'utf8')
    for (const l of all) {
      if (l.fixedFileName) expect(doc, l.name).toContain(`| \`${l.name}\` | \`${l.code}\` | ${manifest.get(l.code)!.name} | \`${manifest.get(l.code)!.sourceFile}\` |`)
      else expect(doc, l.name).toContain(`| \`${l.name}\` | \`${l.code}\``)
    }
  })
})

describe("python3's syntax check", () => {
  // the host's python3 stands in for the root's (the same check ran against trixie's 3.13 when it was
  // written): what a student sees in cmpinfo must be what Jobe's py_compile prints. The check-and-run
  // driver compiled by the host's python3 as provisioning compiles it for the root (python.toml)
  const helpers = join(MANIFEST_DIR, '..', 'bin')
  let driverDir = ''
  let pyc = ''
  /** The driver loaded by -c after an audit hook (the .pyc's 16-byte header skipped). */
  let hooked = ''
  beforeAll(() => {
    driverDir = mkdtempSync(join(tmpdir(), 'arbiter-pydriver-'))
    pyc = join(driverDir, 'driver.pyc')
    const made = spawnSync('python3', [join(helpers, 'python-precompile'), join(helpers, 'jobe-python3-check-and-run.py'), pyc], { encoding: 'utf8' })
    expect(made.status, made.stderr).toBe(0)
    hooked = `_f=open(${JSON.stringify(pyc)},'rb');_c=_f.read();_f.close();exec(__import__('marshal').loads(_c[16:]))`
  })
  afterAll(() => rmSync(driverDir, { recursive: true, force: true }))
  const sources: Record<string, string | Buffer> = {
    unclosed: 'print("a"\n',
    indentation: 'if 1:\nprint(2)\n',
    tabs: 'x = 1\n\tif x:\n  pass\n',
    'null byte': Buffer.from('print(1)\0\n'),
    'bad utf-8': Buffer.from([0x78, 0x3d, 0x22, 0xff, 0x22, 0x0a]),
    'nonlocal at top': 'nonlocal x\n',
    'too deep': '(' .repeat(300) + ')'.repeat(300) + '\n',
    'a warning only': 'x = 1\nprint(x is 1)\n',
    'a warning, then an error': 'x = 1\nprint(x is 1)\nprint(\n',
    'valid': 'import os\nprint(os.getcwd())\n',
    // the driver's quick compile (exec of the bytes) must decode as compile() does, and hand on
    // nested code under the script's name: tracebacks as the plain run prints them
    'valid, latin-1 declared': Buffer.from('# -*- coding: latin-1 -*-\nimport sys\nsys.stdout.buffer.write("\xe9\\n".encode("utf-8"))\n', 'latin1'),
    'valid, raises in nested code': 'class A:\n    def f(self):\n        return [1 / 0 for _ in "x"]\nprint("before")\nA().f()\n',
  }
  // five python3 starts a row: 5 s was too little on a loaded machine
  test.each(Object.keys(sources))('%s: the same message and exit status as python3 -m py_compile, and no .pyc', { timeout: 60_000 }, (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-pycheck-'))
    try {
      writeFileSync(join(dir, 'prog.py'), sources[name])
      const run = (args: string[]) => spawnSync('python3', args, { cwd: dir, encoding: 'utf8' })
      const ours = run(['-I', '-S', '-c', PY_SYNTAX_CHECK, 'prog.py'])
      expect(existsSync(join(dir, '__pycache__'))).toBe(false)
      const theirs = run(['-m', 'py_compile', 'prog.py'])
      expect(ours.error).toBeUndefined()
      expect({ status: ours.status, stderr: ours.stderr, stdout: ours.stdout }).toEqual({ status: theirs.status, stderr: theirs.stderr, stdout: theirs.stdout })
      if (!name.startsWith('valid')) expect(ours.stderr).not.toBe('')
      else expect(ours.status).toBe(0)
      // the check and the run in one interpreter: the same text after the marker line, the same exit
      // status, and for a valid program what a plain run prints
      const marker = 'M0123456789abcdefM'
      const merged = run(['-BE', pyc, marker, 'prog.py'])
      const plain = run(['-BE', 'prog.py'])
      if (!name.startsWith('valid')) expect({ status: merged.status, stderr: merged.stderr, stdout: merged.stdout }).toEqual({ status: theirs.status, stderr: `${marker}\n${theirs.stderr}`, stdout: '' })
      else expect({ status: merged.status, stderr: merged.stderr, stdout: merged.stdout }).toEqual({ status: plain.status, stderr: plain.stderr, stdout: plain.stdout })
      // compile() under the script's name (its audit event) only where the quick compile did not end
      // clean, for the check's exact text: a program that compiles without a word is compiled once,
      // by exec() (whose event names '<string>')
      const audited = run(['-BE', '-c', `__import__('sys').addaudithook(lambda e, a: e == 'compile' and a[1] == 'prog.py' and __import__('os').write(2, b'<compile()>'));${hooked}`, marker, 'prog.py'])
      if (name.startsWith('valid') || name.startsWith('a warning')) expect(audited.stderr.includes('<compile()>'), audited.stderr).toBe(!name.startsWith('valid'))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("python3's check and run in one process: only with flags that leave the script in place", () => {
  const python3 = JOBE_OWN.find((l) => l.name === 'python3')!
  const argv = (interpreterargs: string[]) => python3.checkAndRun!('prog.py', { compileargs: [], linkargs: [], interpreterargs, runargs: ['r'] }, 'M0123456789abcdefM')
  test.each([[['-BE']], [['-B', '-E']], [['-Werror']], [['-Xdev', '-u']], [[]]])('%j: one process', (flags) => {
    expect(argv(flags)).toEqual(['python3', ...flags, PY_CHECK_AND_RUN_PYC, 'M0123456789abcdefM', 'prog.py', 'r'])
  })
  // -c and -m take the rest of the line, -W and -X the next item, -x skips the script's first line
  // (the driver's, and Jobe's check reads the whole file), anything else is not a flag cluster
  test.each([[['-c', 'print(1)']], [['-Bc', 'x']], [['-m', 'http.server']], [['-W', 'error']], [['-BX', 'dev']], [['-x']], [['-Bx']], [['--version']], [['-']], [['x.py']]])('%j: the two steps', (flags) => {
    expect(argv(flags)).toBeUndefined()
  })
})
