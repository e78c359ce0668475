import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { loadLanguages, MANIFEST_DIR } from '../languages.ts'
import { JOBE_LANGUAGES, jobeLanguages, PY_SYNTAX_CHECK } from './languages.ts'

describe('Jobe language names', () => {
  const manifest = loadLanguages()
  const all = jobeLanguages(manifest)

  test("every language of the manifest has one name: Jobe's for its own, the lowercase code for the rest", () => {
    expect([...new Set(all.map((l) => l.code))].sort()).toEqual([...manifest.keys()].sort())
    expect(new Set(all.map((l) => l.name)).size).toBe(all.length)
    for (const l of all) {
      const jobe = JOBE_LANGUAGES.find((j) => j.code === l.code)
      expect(l.name).toBe(jobe ? jobe.name : l.code.toLowerCase())
    }
  })

  test('a code whose lowercase form is one of Jobe\'s names does not shadow Jobe\'s language', () => {
    const node = manifest.get('JAVASCRIPT_NODE')!
    const clash = new Map(manifest).set('NODEJS', { ...node, code: 'NODEJS', aliases: [] })
    expect(jobeLanguages(clash).filter((l) => l.name === 'nodejs').map((l) => l.code)).toEqual(['JAVASCRIPT_NODE'])
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
  // written): what a student sees in cmpinfo must be what Jobe's py_compile prints
  const sources: Record<string, string | Buffer> = {
    unclosed: 'print("a"\n',
    indentation: 'if 1:\nprint(2)\n',
    tabs: 'x = 1\n\tif x:\n  pass\n',
    'null byte': Buffer.from('print(1)\0\n'),
    'bad utf-8': Buffer.from([0x78, 0x3d, 0x22, 0xff, 0x22, 0x0a]),
    'nonlocal at top': 'nonlocal x\n',
    'too deep': '(' .repeat(300) + ')'.repeat(300) + '\n',
    'valid': 'import os\nprint(os.getcwd())\n',
  }
  test.each(Object.keys(sources))('%s: the same message and exit status as python3 -m py_compile, and no .pyc', (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-pycheck-'))
    try {
      writeFileSync(join(dir, 'prog.py'), sources[name])
      const run = (args: string[]) => spawnSync('python3', args, { cwd: dir, encoding: 'utf8' })
      const ours = run(['-I', '-S', '-c', PY_SYNTAX_CHECK, 'prog.py'])
      expect(existsSync(join(dir, '__pycache__'))).toBe(false)
      const theirs = run(['-m', 'py_compile', 'prog.py'])
      expect(ours.error).toBeUndefined()
      expect({ status: ours.status, stderr: ours.stderr, stdout: ours.stdout }).toEqual({ status: theirs.status, stderr: theirs.stderr, stdout: theirs.stdout })
      if (name !== 'valid') expect(ours.stderr).not.toBe('')
      else expect(ours.status).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
