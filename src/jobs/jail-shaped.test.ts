// What a compile step leaves, when the compile step is the submission's own code (a language that runs
// code while it compiles: Template Haskell today). A test language whose compile step is a shell script
// plays that part here, for a program and for a checker program: links, hard links, FIFOs, folders,
// sparse files and deep chains where root later copies, reads and writes. Real jail, real worker.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { workerSettings } from './pool.ts'
import type { Job } from './types.ts'
import { createJobRunner } from './worker.ts'

const scratch = mkdtempSync(join(tmpdir(), 'arbiter-shaped-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: join(scratch, 'data') })
// the gcc toolchain's stamp makes the language provisioned: its root (trixie) has /bin/sh and coreutils
const manifests = join(scratch, 'languages')
mkdirSync(manifests)
writeFileSync(
  join(manifests, 'gcc.toml'),
  `root = "trixie"
packages = ["gcc"]
version = ["sh", "-c", "echo 1"]
selftest_error = "exit 1"
[[language]]
code = "SHC"
name = "a shell script run at compile time"
source_file = "main.sh"
compile = ["/bin/sh", "main.sh"]
run = ["/bin/sh", "main.sh", "run"]
selftest = "cat"
`
)
// where a link placed by a jail points: root must never write, create or read here
const victim = join(scratch, 'victim')
mkdirSync(victim, { mode: 0o755 })
writeFileSync(join(victim, 'file'), 'untouched')

const settings = { ...workerSettings(config), manifestDir: manifests, compileCache: { dir: join(scratch, 'cache'), maxBytes: 1 << 30 } }
const runner = createJobRunner(settings, `shaped-${process.pid}`)
afterAll(async () => {
  await runner.close()
  rmSync(scratch, { recursive: true, force: true })
})

/** A script: `compile` runs in the compile step, `run` in each run (argv after "run" are the checker's files). */
const script = (compile: string, run: string) => `if [ "$1" = run ]; then shift\n${run}\nexit $?\nfi\n${compile}\n`
const echoProgram = script('true', 'cat')
const fairChecker = script('true', '[ "$(cat "$2")" = "$(cat "$3")" ]')
const job = (over: Partial<Job>): Job => ({ language: 'SHC', source: echoProgram, input: '', timeLimitSec: 2, memoryLimitKb: 262144, ...over })
const graded = (checkerSource: string, over: Partial<Job> = {}) =>
  runner.run(job({ tests: [{ input: 'hello\n', expectedOutput: 'hello\n' }], checker: { type: 'program', lang: 'SHC', source: checkerSource }, ...over }))
const victimUntouched = () => {
  expect(readFileSync(join(victim, 'file'), 'utf8')).toBe('untouched')
  expect(readdirSync(victim)).toEqual(['file'])
}

describe("a checker whose compile step shapes the folder root writes the test's files into", () => {
  it('a fair checker judges (the set-up works)', { timeout: 60_000 }, async () => {
    const r = await graded(fairChecker)
    expect(r.tests?.[0]?.status, JSON.stringify(r)).toBe('AC')
  })

  it.each([
    ['links to a host file, a host folder and a host path not yet there', `ln -s ${victim}/file input; ln -s ${victim} expected; ln -s ${victim}/new output`],
    ['a hard link to a file it wrote', 'echo mine > mine; ln mine input'],
    ['a folder', 'mkdir expected'],
    ['a link to /proc/self/fd/1 and one to a device', 'ln -s /proc/self/fd/1 input; ln -s /dev/null output'],
  ])('%s under the names input/expected/output: refused (IE), nothing written through them', { timeout: 60_000 }, async (_, plant) => {
    const r = await graded(script(`${plant}\ntrue`, 'exit 0'))
    const t = r.tests?.[0]
    expect(t?.status, JSON.stringify(r)).toBe('IE')
    expect(t?.checkerMessage).toMatch(/left a file named (input|expected|output)/)
    victimUntouched()
  })

  it('a FIFO under those names is not kept (special files are left out): the checker runs on the real files', { timeout: 60_000 }, async () => {
    const r = await graded(script('mkfifo input output', '[ -f "$1" ] && [ -f "$2" ] && [ "$(cat "$2")" = "$(cat "$3")" ]'))
    expect(r.tests?.[0]?.status, JSON.stringify(r)).toBe('AC')
  })
})

describe('what a compile step leaves is bounded before root copies it', () => {
  it('a 200 MB sparse file: the compile fails, nothing is copied or cached', { timeout: 60_000 }, async () => {
    const r = await graded(fairChecker, { source: script('truncate -s 200M big', 'cat') })
    expect(r.compile.ok, JSON.stringify(r.compile)).toBe(false)
    expect(r.compile.message).toMatch(/cannot be kept: files with holes/)
    expect(r.tests).toBeUndefined()
  })

  it('a 100-deep folder chain: the compile fails, with the bound', { timeout: 60_000 }, async () => {
    const r = await runner.run(job({ source: script('i=0; while [ $i -lt 100 ]; do mkdir d && cd d || exit 1; i=$((i+1)); done', 'echo ran') }))
    expect(r.compile.ok, JSON.stringify(r.compile)).toBe(false)
    expect(r.compile.message).toMatch(/deeper than 32/)
  })

  it("a program's links to host paths, a FIFO and a folder link are copied as they are: root reads nothing through them, and never blocks", { timeout: 60_000 }, async () => {
    const plant = `ln -s ${victim}/file leak; ln -s ${victim} dir; mkfifo pipe; ln -s /proc/self/fd/0 fd`
    const r = await runner.run(job({ source: script(plant, 'cat leak dir/file 2>/dev/null; echo "[$(ls -A | sort | tr "\\n" " ")]"'), tests: [{ input: '', expectedOutput: 'x' }, { input: '', expectedOutput: 'x' }], checker: 'tokens' }))
    expect(r.compile.ok, JSON.stringify(r.compile)).toBe(true)
    // the links are there, pointing where they did (nothing under victim exists in the jail); the FIFO is left out
    for (const t of r.tests ?? []) expect(t.stdout).toBe('[dir fd leak main.sh ]\n')
    expect(r.tests).toHaveLength(2)
    victimUntouched()
  })

  it('60 hard links to one 1 MB file are copied as one file with 61 names into every test', { timeout: 60_000 }, async () => {
    const source = script('head -c 1048576 /dev/zero > one; i=0; while [ $i -lt 60 ]; do ln one l$i; i=$((i+1)); done', 'stat -c %h one; du -sk . | cut -f1')
    const r = await runner.run(job({ source, tests: [{ input: '', expectedOutput: 'x' }, { input: '', expectedOutput: 'x' }], checker: 'tokens' }))
    for (const t of r.tests ?? []) {
      const [links, kb] = t.stdout.trim().split('\n').map(Number)
      expect(links, t.stdout).toBe(61)
      expect(kb, t.stdout).toBeLessThan(2048) // 1 MB once, not 61 MB
    }
    expect(r.tests).toHaveLength(2)
  })
})

describe('the compile cache is per scope (client)', () => {
  it("a compile is found again by its own scope only: compile_cached tells nothing of another client's source", { timeout: 60_000 }, async () => {
    const source = script(`echo ${Date.now()} > stamp`, 'cat stamp')
    const a1 = await runner.run(job({ source, cacheScope: 'client:1' }))
    const a2 = await runner.run(job({ source, cacheScope: 'client:1' }))
    const b1 = await runner.run(job({ source, cacheScope: 'client:2' }))
    expect([a1.compile.cached, a2.compile.cached, b1.compile.cached]).toEqual([undefined, true, undefined])
    expect(a2.run?.stdout).toBe(a1.run?.stdout)
  })

  it('no temporary folder is left in the cache', () => {
    expect(readdirSync(settings.compileCache.dir).filter((n) => n.startsWith('.new-'))).toEqual([])
  })
})

describe('exact compares the bytes the program wrote', () => {
  it('FE is not U+FFFD (the old decode made every invalid byte the same)', { timeout: 60_000 }, async () => {
    const run = (bytes: string, expectedOutput: string) => runner.run(job({ source: script('true', `printf '${bytes}'`), tests: [{ input: '', expectedOutput }], checker: 'exact' }))
    expect((await run('\\376', '\uFFFD')).tests?.[0]?.status).toBe('WA')
    expect((await run('\\377', '\uFFFD')).tests?.[0]?.status).toBe('WA')
    expect((await run('\\303\\251', 'é')).tests?.[0]?.status).toBe('AC')
  })
})

it('the slot keeps nothing of a job after it', () => {
  for (const name of ['compiled', 'checker']) expect(() => lstatSync(join(config.paths.runs, `shaped-${process.pid}`, name))).toThrow(/ENOENT/)
})
