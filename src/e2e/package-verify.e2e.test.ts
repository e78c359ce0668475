// A package's verify through the v4 API on the real server and jail: a package of our own (accepted,
// wrong_answer, time_limit_exceeded and compiler_error submissions, and one in a language the server does
// not offer) imported, verified with its progress polled, and its table compared with what
// `cli problems verify` gives for the same zip; another client gets 404; the client's second verify
// waits behind the first and, killed mid-way with the server (SIGKILL), resumes after the restart and
// ends with the same table, no run made twice.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'
import { testSandboxToml } from '../testing/sandbox-bin.ts'
import { makeZip } from '../testing/zips.ts'

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-verify-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const SUM_PY = 'import sys\na, b = map(int, sys.stdin.read().split())\nprint(a + b)\n'
const SUM_C = '#include <stdio.h>\nint main(void){long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;printf("%ld\\n",a+b);return 0;}\n'
const PACKAGE: [string, string][] = [
  ['sum/problem.yaml', 'name: Sum\n'],
  ['sum/data/sample/1.in', '1 2\n'],
  ['sum/data/sample/1.ans', '3\n'],
  ['sum/data/secret/1.in', '40 2\n'],
  ['sum/data/secret/1.ans', '42\n'],
  ['sum/data/secret/2.in', '-5 5\n'],
  ['sum/data/secret/2.ans', '0\n'],
  ['sum/submissions/accepted/sum.py', SUM_PY],
  ['sum/submissions/accepted/sum.c', SUM_C],
  ['sum/submissions/wrong_answer/off_by_one.py', 'import sys\na, b = map(int, sys.stdin.read().split())\nprint(a + b + 1)\n'],
  ['sum/submissions/time_limit_exceeded/spin.py', 'while True:\n    pass\n'],
  ['sum/submissions/compiler_error/broken.c', 'int main(void) { return 0 }\n'],
  // C++ is not offered by this server (languages.enabled): listed as such, not failed, not hidden
  ['sum/submissions/accepted/sum.cpp', '#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n'],
]
const CONFIG = `${testSandboxToml()}\n[languages]\nenabled = ["C", "PYTHON3"]\n`
const PROBLEMS = '/v4/partner/code-evaluation/problems'

interface Row { file: string; expected: string[]; got: string | null; time: number | null; result: string; language: string | null }
interface Verify { verify_id: string; state: string; stage: string; done: number; total: number | null; passed: boolean | null; rows: Row[]; time_limit: { seconds: number } | null; status_url: string; started_at: string | null; completed_at: string | null }

describe('POST …/problems/<id>/verify on the real server', { timeout: 900_000 }, () => {
  let server: RunningServer
  afterAll(async () => {
    await server?.stop()
    server?.cleanup()
  })

  it('imports, verifies with progress, gives the CLI\'s table; 404 for another client; a second verify waits, survives a SIGKILL and ends the same', async () => {
    server = await startServer({ configToml: CONFIG })
    const http = api(server.url)
    const secret = await server.createClient('teacher')
    const other = await server.createClient('stranger')
    const zip = makeZip(PACKAGE)
    const zipPath = join(tmp, 'sum.zip')
    writeFileSync(zipPath, zip)

    const form = new FormData()
    form.set('package', new Blob([zip]), 'sum.zip')
    const imported = await fetch(`${server.url}${PROBLEMS}/`, { method: 'POST', headers: { 'client-secret': secret }, body: form })
    const problem = await json(imported)
    expect(imported.status, JSON.stringify(problem)).toBe(200)
    expect(problem.package).toMatchObject({ kept: true })

    // a table's rows without their times (runs differ in them)
    const shape = (rows: { file: string; expected: string[]; got?: string | null; result?: string; outcome?: string; language?: string | null; lang?: string }[]) =>
      rows.map((r) => ({ file: r.file, expected: r.expected, got: r.got ?? null, result: r.result ?? r.outcome, language: r.language ?? r.lang ?? null }))
    const verify = async (who = secret) => {
      const r = await http.post(`${PROBLEMS}/${problem.problem_id}/verify/`, '', { 'client-secret': who })
      return { status: r.status, body: await json(r) }
    }
    const poll = async (url: string, who = secret): Promise<{ status: number; body: Verify }> => {
      const r = await http.get(new URL(url).pathname, { 'client-secret': who })
      return { status: r.status, body: await json(r) }
    }

    const first = await verify()
    expect(first.status, JSON.stringify(first.body)).toBe(202)
    expect(first.body.status_url).toBe(`${server.url}${PROBLEMS}/${problem.problem_id}/verify/${first.body.verify_id}/`)
    // the same client's second verify waits behind the first (docs/api/problem-packages.md)
    const second = await verify()
    expect(second.status).toBe(202)
    expect(second.body.state).toBe('queued')

    // another client sees neither the problem nor its verifies
    expect((await poll(first.body.status_url, other)).status).toBe(404)
    expect((await verify(other)).status).toBe(404)

    // progress: done grows one run at a time up to total
    const seen = new Set<number>()
    let last: Verify | undefined
    await waitUntil(async () => {
      last = (await poll(first.body.status_url)).body
      if (last.state === 'running' && last.total !== null) seen.add(last.done)
      return last.state === 'done' || last.state === 'failed'
    }, 600_000, 'the first verify to end')
    expect(last!.state, JSON.stringify(last)).toBe('done')
    expect(last!.total).toBe(5)
    expect(last!.done).toBe(5)
    expect([...seen].some((d) => d > 0 && d < 5), `done values seen: ${[...seen]}`).toBe(true)
    expect(last!.passed).toBe(true)
    const table = Object.fromEntries(last!.rows.map((r) => [r.file, [r.got, r.result]]))
    expect(table).toEqual({
      'accepted/sum.py': ['AC', 'pass'],
      'accepted/sum.c': ['AC', 'pass'],
      'accepted/sum.cpp': [null, 'not offered'],
      'wrong_answer/off_by_one.py': ['WA', 'pass'],
      'time_limit_exceeded/spin.py': ['TLE', 'pass'],
      'compiler_error/broken.c': ['CE', 'pass'],
    })

    // the second started once the first ended; SIGKILL the server in its middle, and it resumes after the restart
    await waitUntil(async () => {
      const s = (await poll(second.body.status_url)).body
      expect(s.state === 'done', 'the second verify ended before it could be killed in its middle').toBe(false)
      return s.state === 'running' && s.done >= 1
    }, 600_000, 'the second verify to be under way')
    const mid = (await poll(second.body.status_url)).body
    expect(new Date(mid.started_at!).getTime()).toBeGreaterThanOrEqual(new Date(last!.completed_at!).getTime())
    await server.kill()
    await server.restart()
    let resumed: Verify | undefined
    await waitUntil(async () => {
      resumed = (await poll(second.body.status_url)).body
      return resumed.state === 'done' || resumed.state === 'failed'
    }, 600_000, 'the second verify to end after the restart')
    expect(resumed!.state, JSON.stringify(resumed)).toBe('done')
    expect(resumed!.done).toBe(5)
    expect(shape(resumed!.rows)).toEqual(shape(last!.rows))
    // the CLI's verify of the same zip, with the same config, gives the same table (times aside: runs differ)
    const cli = (await server.cli(['problems', 'verify', zipPath, '--json'])) as { timeLimitSec: number; ok: boolean; rows: { file: string; expected: string[]; got?: string; outcome: string; lang?: string }[] }
    expect(shape(last!.rows)).toEqual(shape(cli.rows))
    expect(last!.passed).toBe(cli.ok)
    expect(last!.time_limit!.seconds).toBe(cli.timeLimitSec)

    // each verify made exactly one submission per run: what ran before the kill was not run again
    const runs = server.query<{ n: number }>("select count(*) as n from submissions where api = 'package-verify'")[0].n
    expect(runs).toBe(10)
  })
})
