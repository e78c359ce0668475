// `cli doctor` and `cli run` for real (child processes on a temporary ARBITER_DATA): a failing report
// exits 1, languages that are not provisioned are listed (a failure only when languages.enabled names
// one), and `run` of an unprovisioned language says so instead of printing the jail's mount error.
// The provisioned cases use a toolchains directory holding only C's toolchain: a link to the real root
// and C's stamp, so that C is provisioned and RUBY is not.
import { execa } from 'execa'
import { spawn } from 'node:child_process'
import { chmodSync, copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from '../config.ts'
import { isProvisioned, loadLanguages, rootPath, stampPath } from '../languages.ts'
import { rootImagePath, rootMountPoint } from '../sandbox/root-image.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const real = loadConfig({ ARBITER_DATA: mkdtempSync(join(tmpdir(), 'arbiter-doctor-cfg-')) })
const C = loadLanguages().get('C')!
let tmp: string
let onlyC: string
let empty: string

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'arbiter-doctor-'))
  chmodSync(tmp, 0o755) // the jail's side traverses it to the linked root
  empty = join(tmp, 'empty')
  onlyC = join(tmp, 'only-c')
  mkdirSync(empty)
  mkdirSync(join(onlyC, 'stamps', C.root), { recursive: true })
  symlinkSync(rootPath(real.paths.toolchains, C.root), rootPath(onlyC, C.root))
  // a toolchains directory of its own mounts its own image (src/sandbox/root-image.ts): a hard link to the
  // real one (the supervisor opens an image with O_NOFOLLOW, so not a symbolic link)
  mkdirSync(join(onlyC, 'images'))
  for (const f of [`${C.root}.sqfs`, `${C.root}.sqfs.key`]) linkSync(join(real.paths.toolchains, 'images', f), join(onlyC, 'images', f))
  copyFileSync(stampPath(real.paths.toolchains, C.root, C.toolchain), stampPath(onlyC, C.root, C.toolchain))
  writeFileSync(join(tmp, 'hello.c'), '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n')
})
afterAll(async () => {
  // the fixture's image was mounted at a mount point of its own: leave no mount (nor loop device) behind
  await execa('umount', ['-l', rootMountPoint(C.root, rootImagePath(onlyC, C.root))], { reject: false })
  rmSync(tmp, { recursive: true, force: true })
  rmSync(real.dataDir, { recursive: true, force: true })
})

/** The CLI on a fresh data directory whose config.toml is `toml`. */
async function cli(toml: string, ...args: string[]) {
  const data = mkdtempSync(join(tmp, 'data-'))
  writeFileSync(join(data, 'config.toml'), toml)
  const r = await execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: { ARBITER_DATA: data }, reject: false })
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) }
}
const toolchains = (dir: string) => `[paths]\ntoolchains = "${dir}"\n`

describe('cli doctor', { timeout: 120_000 }, () => {
  test('the fixture: C provisioned, RUBY not', () => {
    expect(isProvisioned(onlyC, C)).toBe(true)
    expect(isProvisioned(onlyC, loadLanguages().get('RUBY')!)).toBe(false)
  })

  test('the jail works: ok, exit 0; a language not provisioned is listed, not a failure', async () => {
    const r = await cli(toolchains(onlyC), 'doctor', '--lang', 'C,RUBY')
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ ok: true, jail: { ok: true, tested_with: ['C'] }, languages: { C: { ok: true } }, not_provisioned: ['RUBY'], problems: [] })
  })

  test('languages.enabled naming a language that is not provisioned: ok false, exit 1', async () => {
    const r = await cli(`${toolchains(onlyC)}[languages]\nenabled = ["C", "RUBY"]\n`, 'doctor', '--lang', 'C')
    expect(r.code).toBe(1)
    expect(r.json()).toMatchObject({ ok: false, jail: { ok: true }, problems: ['languages.enabled names RUBY, whose toolchain is not provisioned'] })
  })

  test('the jail self-test fails (nsjail that does not run): ok false, exit 1, the report still printed', async () => {
    const r = await cli(`${toolchains(onlyC)}nsjail = "/bin/false"\n`, 'doctor', '--lang', 'C')
    expect(r.code).toBe(1)
    const report = r.json()
    expect(report).toMatchObject({ ok: false, jail: { ok: false, tested_with: [] }, languages: { C: { ok: false } } })
    expect(report.problems).toEqual([expect.stringMatching(/^C: /)])
  })

  test('nothing provisioned: every code listed, the jail untested, exit 1', async () => {
    const r = await cli(toolchains(empty), 'doctor')
    expect(r.code).toBe(1)
    const report = r.json()
    expect(report.not_provisioned).toEqual([...loadLanguages().keys()])
    expect(report).toMatchObject({ ok: false, jail: { ok: false }, languages: {} })
    expect(report.problems).toContain('the jail was not tested: no provisioned language to run its self-test in')
  })
})

describe('cli run', { timeout: 120_000 }, () => {
  test('a language that is not provisioned: a clear message, exit 1, no jail error', async () => {
    const r = await cli(toolchains(empty), 'run', '--lang', 'c', '--source', join(tmp, 'hello.c'))
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`error: lang 'c' is not provisioned on this server (${empty}); provision it with: npm run provision -- --langs C\n`.trimEnd())
  })

  test('a provisioned one runs, exit 0', async () => {
    const r = await cli(toolchains(onlyC), 'run', '--lang', 'C', '--source', join(tmp, 'hello.c'))
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ lang: 'C', status: 'AC', output: 'hi\n' })
  })
})

test('cli run writes its whole JSON into a pipe that reads slowly (nothing cut at exit)', { timeout: 120_000 }, async () => {
  // ~900 KB of output, under the 1 MB cap; the reader waits before reading, so the pipe fills and
  // node's writes go asynchronous: an exit right after write() used to cut the JSON at 64-438 KB
  writeFileSync(join(tmp, 'big.c'), '#include <stdio.h>\nint main(void) { for (int i = 0; i < 30000; i++) puts("0123456789012345678901234567890"); return 0; }\n')
  const data = mkdtempSync(join(tmp, 'data-'))
  writeFileSync(join(data, 'config.toml'), toolchains(onlyC))
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'run', '--lang', 'C', '--source', join(tmp, 'big.c')], { cwd: ROOT, env: { ...process.env, ARBITER_DATA: data }, stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<number | null>((r) => child.on('exit', r))
  child.stdout.pause()
  await new Promise((r) => setTimeout(r, 3000))
  const chunks: Buffer[] = []
  for await (const chunk of child.stdout) {
    chunks.push(chunk as Buffer)
    await new Promise((r) => setTimeout(r, 2))
  }
  expect(await exited).toBe(0)
  const out = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  expect(out.status).toBe('AC')
  expect(out.output.length).toBe(30000 * 32)
})
