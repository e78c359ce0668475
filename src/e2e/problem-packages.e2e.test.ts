// problemtools' own example packages, imported unchanged and verified by `cli problems verify` (real
// CLI, real jail), and a package uploaded through the v4 API and graded by problem_id. The examples
// come from problemtools' source package (pip download, pinned by version and SHA-256) into a cache
// outside the checkout, never committed; PROBLEMTOOLS_SDIST may name a copy of that file instead.
// problemtools' default validator (its C++ source in the same package) is compiled on the host and
// run on random files beside Arbiter's: the answers must agree.
import { execa } from 'execa'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultValidator, parseValidatorFlags } from '../grading/default-validator.ts'
import type { V4Reply } from '../hackerearth/schemas.ts'
import { api, json, startServer, waitUntil } from '../testing/harness.ts'
import { makeZip } from '../testing/zips.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const VERSION = '1.20260907'
const SHA256 = '55f19b6a72ef5cb07daf0a4e612be963a15e7972891a3afb0fff89244b6228c6'
const cache = join(tmpdir(), `arbiter-problemtools-${VERSION}`)
const tmp = mkdtempSync(join(tmpdir(), 'arbiter-packages-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
let sdist = ''

beforeAll(async () => {
  const tarball = process.env.PROBLEMTOOLS_SDIST ?? join(cache, `problemtools-${VERSION}.tar.gz`)
  if (!existsSync(tarball)) {
    mkdirSync(cache, { recursive: true })
    await execa('pip', ['download', '--no-deps', '--no-binary', ':all:', `problemtools==${VERSION}`, '-d', cache], { timeout: 240_000 })
  }
  const hash = createHash('sha256').update(readFileSync(tarball)).digest('hex')
  if (hash !== SHA256) throw new Error(`${tarball}: sha256 ${hash}, not the pinned ${SHA256}`)
  await execa('tar', ['xzf', tarball, '-C', tmp])
  sdist = join(tmp, `problemtools-${VERSION}`)
}, 300_000)

const cli = async (...args: string[]) => {
  const r = await execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: { ARBITER_DATA: mkdtempSync(join(tmp, 'data-')) }, reject: false })
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr }
}

describe("problemtools' examples, verified", { timeout: 600_000 }, () => {
  for (const name of ['hello', 'different']) {
    it(`${name}: every submission in an offered language gets its folder's verdict`, async () => {
      const r = await cli('problems', 'verify', join(sdist, 'examples', name), '--json')
      const report = JSON.parse(r.stdout)
      const judged = report.rows.filter((row: { outcome: string }) => row.outcome === 'pass' || row.outcome === 'fail')
      expect(judged.length).toBeGreaterThan(2)
      expect(report.rows.filter((row: { outcome: string }) => row.outcome === 'fail')).toEqual([])
      expect(r.code, r.stderr).toBe(0)
      // the limit is computed from the slowest accepted submission as problemtools computes it (hello's
      // hello_alarm.c spins for 1 s of wall clock: its CPU time depends on the machine's load)
      const slowest = Math.max(...report.rows.filter((row: { folder: string; time?: number }) => row.folder === 'accepted' && row.time !== undefined).map((row: { time: number }) => row.time))
      expect(report.timeLimitSec).toBe(Math.min(5, Math.max(1, Math.ceil(slowest * 5))))
    })
  }
  it('guess (interactive) and oddecho (scoring) are refused by name, not judged wrongly', async () => {
    for (const [name, type] of [['guess', 'interactive'], ['oddecho', 'scoring']]) {
      const r = await cli('problems', 'verify', join(sdist, 'examples', name))
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(new RegExp(`problem\\.yaml: ${type} problems are not judged by Arbiter yet`))
    }
  })
})

describe("problemtools' default validator and Arbiter's agree", { timeout: 300_000 }, () => {
  it('on random answers and outputs under every flag', async () => {
    const binary = join(tmp, 'default_validator')
    await execa('g++', ['-O2', '-o', binary, join(sdist, 'support', 'default_validator', 'default_validator.cc')])
    const words = ['1', '1.0', '1.00001', '-0', '0x10', '16', 'inf', 'nan', 'abc', 'ABC', '2e2', '200', '1e400', '.5', '0.5', 'x']
    const spaces = [' ', '  ', '\n', '\t', '\r\n', '']
    let seed = 42
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n)
    const text = () => Array.from({ length: rand(4) }, () => words[rand(words.length)] + spaces[rand(spaces.length - 1)]).join('') + spaces[rand(spaces.length)]
    const flagSets = [[], ['case_sensitive'], ['space_change_sensitive'], ['float_tolerance', '1e-4'], ['float_absolute_tolerance', '0.1'], ['float_relative_tolerance', '1e-3', 'case_sensitive']]
    const dir = join(tmp, 'dv')
    mkdirSync(dir)
    let compared = 0
    for (let i = 0; i < 300; i++) {
      const flags = flagSets[i % flagSets.length]
      const answer = text()
      const output = rand(3) ? text() : answer
      writeFileSync(join(dir, 'in'), '')
      writeFileSync(join(dir, 'ans'), answer)
      const feedback = join(dir, `fb${i}`)
      mkdirSync(feedback)
      const theirs = await execa(binary, [join(dir, 'in'), join(dir, 'ans'), feedback, ...flags], { input: output, reject: false })
      const ours = defaultValidator(Buffer.from(answer), Buffer.from(output), parseValidatorFlags(flags))
      expect([theirs.exitCode, JSON.stringify([answer, output, flags])]).toEqual([ours.accepted ? 42 : 43, JSON.stringify([answer, output, flags])])
      if (!ours.accepted) expect(readFileSync(join(feedback, 'judgemessage.txt'), 'utf8').trimEnd()).toBe(ours.message)
      compared++
    }
    expect(compared).toBe(300)
    expect(readdirSync(dir).length).toBeGreaterThan(300)
  })
})

describe('a package through the v4 API', { timeout: 300_000 }, () => {
  it('different: imported with its validator and report, graded by problem_id; bad packages refused naming the file', async () => {
    const server = await startServer({})
    try {
      const http = api(server.url)
      const secret = await server.createClient('teacher')
      const dir = join(sdist, 'examples', 'different')
      const walk = (d: string, rel = ''): [string, string][] =>
        readdirSync(join(d, rel), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(d, `${rel}${e.name}/`) : [[`different/${rel}${e.name}`, readFileSync(join(d, rel, e.name), 'latin1')] as [string, string]]))
      const post = async (data: Buffer) => {
        const form = new FormData()
        form.set('package', new Blob([data]), 'different.zip')
        const send = () => fetch(`${server.url}/v4/partner/code-evaluation/problems/`, { method: 'POST', headers: { 'client-secret': secret }, body: form })
        // a kept-alive connection the server closed after its previous answer can fail the write
        // (EPIPE) before this request reached it: sent again once on a fresh connection
        const r = await send().catch(() => send())
        return { status: r.status, body: await json(r) }
      }
      const r = await post(makeZip(walk(dir).filter(([n]) => !n.includes('.tex'))))
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body).toMatchObject({ name: 'A Different Problem', test_count: 3, checker: { type: 'output_validator', lang: 'CPP17' } })
      expect(r.body.package.groups).toEqual([{ group: 'sample', cases: 1 }, { group: 'secret', cases: 2 }])
      expect(r.body.package.ignored.join('\n')).toMatch(/input_validators\/validate\.py/)
      const graded = async (file: string, lang: string) => {
        const q = await json(await http.post('/v4/partner/code-evaluation/submissions/', JSON.stringify({ lang, source: readFileSync(join(dir, 'submissions', file), 'utf8'), problem_id: r.body.problem_id }), { 'client-secret': secret, 'content-type': 'application/json' }))
        let done: V4Reply | undefined
        await waitUntil(async () => (done = (await json(await http.get(`/v4/partner/code-evaluation/submissions/${q.he_id}/`, { 'client-secret': secret }))) as V4Reply).request_status.code === 'REQUEST_COMPLETED', 120_000, 'completion')
        return done!
      }
      expect((await graded('accepted/different.c', 'C')).result.run_status.status).toBe('AC')
      const wa = await graded('wrong_answer/different_no_abs.cc', 'CPP17')
      expect(wa.result.run_status.status).toBe('WA')
      const bad = await post(makeZip([['problem.yaml', 'problem_format_version: 2023-07-draft\ntype: batch\n'], ['data/secret/1.in', ''], ['data/secret/1.ans', '']]))
      expect(bad.status).toBe(400)
      expect(bad.body.message ?? JSON.stringify(bad.body)).toMatch(/problem\.yaml: unknown type "batch"/)
      const bomb = await post(makeZip([['problem.yaml', ''], ['data/secret/1.in', { zeros: 300 << 20 }], ['data/secret/1.ans', '']]))
      expect(bomb.status).toBe(413)
      const traversal = await post(makeZip([['problem.yaml', ''], ['../../etc/x', 'x']]))
      expect(traversal.status).toBe(400)
      // the command line stores the same problem for that client, from the folder itself
      const imported = await execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'problems', 'import', dir, '--client', 'teacher'], { cwd: ROOT, env: { ARBITER_DATA: server.dataDir }, reject: false })
      expect(imported.exitCode, imported.stderr).toBe(0)
      const stored = JSON.parse(imported.stdout)
      expect(stored).toMatchObject({ name: 'A Different Problem', test_count: 3, checker: r.body.checker, package: { groups: r.body.package.groups } })
      const listed = await json(await http.get('/v4/partner/code-evaluation/problems/', { 'client-secret': secret }))
      expect(listed.problems.map((p: { problem_id: string }) => p.problem_id)).toContain(stored.problem_id)
    } finally {
      await server.stop()
      server.cleanup()
    }
  })
})
