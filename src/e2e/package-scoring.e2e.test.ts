// Scoring packages stored and graded through the real server: problemtools' oddecho (taken from its
// source package at test time, pinned by SHA-256, as in problem-packages.e2e.test.ts) and a package of
// our own whose validator writes score.txt with per-group flags are uploaded through the v4 API; their
// submissions graded by problem_id get problemtools' verdicts and scores with each group's.
import { execa } from 'execa'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { V4Reply } from '../hackerearth/schemas.ts'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'
import { makeZip } from '../testing/zips.ts'
import { unpackProblemtools } from '../testing/problemtools.ts'

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-scoring-'))
let sdist = ''
let server: RunningServer
let secret = ''

beforeAll(async () => {
  sdist = await unpackProblemtools(tmp)
  server = await startServer({})
  secret = await server.createClient('teacher')
}, 300_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
  rmSync(tmp, { recursive: true, force: true })
})

async function postPackage(url: string, clientSecret: string, data: Buffer, name = 'package.zip') {
  const form = new FormData()
  form.set('package', new Blob([data]), name)
  const send = () => fetch(`${url}/v4/partner/code-evaluation/problems/`, { method: 'POST', headers: { 'client-secret': clientSecret }, body: form })
  // a kept-alive connection the server closed after its previous answer can fail the write (EPIPE)
  const r = await send().catch(() => send())
  return { status: r.status, body: await json(r) }
}

async function graded(problemId: string, lang: string, source: string): Promise<V4Reply> {
  const http = api(server.url)
  const q = await json(await http.post('/v4/partner/code-evaluation/submissions/', JSON.stringify({ lang, source, problem_id: problemId }), { 'client-secret': secret, 'content-type': 'application/json' }))
  expect(q.he_id, JSON.stringify(q)).toBeTruthy()
  let done: V4Reply | undefined
  await waitUntil(async () => (done = (await json(await http.get(`/v4/partner/code-evaluation/submissions/${q.he_id}/`, { 'client-secret': secret }))) as V4Reply).request_status.code === 'REQUEST_COMPLETED', 180_000, 'completion')
  return done!
}

describe('scoring packages stored and graded by problem_id', { timeout: 600_000 }, () => {
  it("oddecho: imported whole, sol.py AC (50) and echo.cpp AC (100) with each group's score, as problemtools gives them", async () => {
    const dir = join(sdist, 'examples', 'oddecho')
    // its inputs are too large for makeZip's argv: zipped by Python from the folder (the path as an argument)
    const zipped = join(tmp, 'oddecho.zip')
    await execa('python3', ['-c', 'import shutil,sys; shutil.make_archive(sys.argv[1][:-4], "zip", sys.argv[2])', zipped, dir])
    const r = await postPackage(server.url, secret, readFileSync(zipped), 'oddecho.zip')
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toMatchObject({ name: 'Odd Echo', test_count: 18, checker: { type: 'kattis' }, package: { type: ['scoring'] } })
    // no limit in the package: its accepted submissions ran at import, and problemtools' rule (2023-07:
    // slowest CPU × 2, whole seconds, at least 1 s) is kept with the problem
    const ran = [...r.body.package.time_limit.from.matchAll(/accepted\/\S+ ([\d.]+) s/g)].map((m: RegExpMatchArray) => Number(m[1]))
    expect(r.body.package.time_limit.from).toMatch(/^computed: slowest accepted [\d.]+ s CPU × 2, .* at import \(2 of 2 accepted submissions ran: accepted\/echo\.cpp [\d.]+ s, accepted\/js\.py [\d.]+ s\)$/)
    expect(r.body.time_limit).toBe(Math.max(1, Math.ceil(Math.max(...ran) * 2)))
    expect(r.body.package.time_limit.seconds).toBe(r.body.time_limit)
    const partial = await graded(r.body.problem_id, 'PYTHON3', readFileSync(join(dir, 'submissions/partially_accepted/sol.py'), 'utf8'))
    expect(partial.result.run_status.status).toBe('AC')
    expect(partial.result.score?.package).toEqual({
      verdict: 'AC',
      score: 50,
      max_score: 100,
      groups: [
        // it reads five words: a sample of another length is wrong, a shorter input of subtask2 ends it by EOFError
        { group: 'sample', verdict: 'WA', score: 0 },
        { group: 'secret/subtask1', verdict: 'AC', score: 50 },
        { group: 'secret/subtask2', verdict: 'RTE', score: 0 },
        { group: 'secret', verdict: 'AC', score: 50 },
        { group: '', verdict: 'AC', score: 50 },
      ],
    })
    // the groups continue past a rejection, so every case runs (as in verify); subtask2's grading reads
    // only up to its first rejection (on_reject: break), which its later REs cannot change
    expect(partial.result.tests?.length).toBe(18)
    expect(partial.result.tests?.filter((t) => t.status === 'SKIPPED')).toEqual([])
    const full = await graded(r.body.problem_id, 'CPP17', readFileSync(join(dir, 'submissions/accepted/echo.cpp'), 'utf8'))
    expect(full.result.run_status.status).toBe('AC')
    expect(full.result.score?.package).toMatchObject({ verdict: 'AC', score: 100, max_score: 100 })
    // a program that prints nothing: WA everywhere, sample first_error, secret's first group decides
    const wrong = await graded(r.body.problem_id, 'PYTHON3', 'pass\n')
    expect(wrong.result.run_status.status).toBe('WA')
    expect(wrong.result.score?.package).toMatchObject({ verdict: 'WA', score: 0 })
  })

  it("a validator's score.txt with per-group flags, summed and min'd as problemtools does", async () => {
    const files: [string, string][] = [
      ['problem.yaml', 'name: Group scores\ntype: scoring\nvalidation: custom score\n'],
      [
        'output_validators/check/check.py',
        [
          'import sys',
          'ans = int(open(sys.argv[2]).read())',
          'try:',
          '    out = int(sys.stdin.read().split()[0])',
          'except Exception:',
          '    sys.exit(43)',
          'lenient = "lenient" in sys.argv[4:]',
          'score = 10 if out == ans else 5 if lenient and abs(out - ans) == 1 else None',
          'if score is None:',
          '    sys.exit(43)',
          'open(sys.argv[3] + "score.txt", "w").write(str(score))',
          'sys.exit(42)',
          '',
        ].join('\n'),
      ],
      ['data/testdata.yaml', 'on_reject: continue\nrange: 0 30\ngrader_flags: ignore_sample\n'],
      ['data/sample/1.in', '4\n'], ['data/sample/1.ans', '4\n'],
      ['data/secret/testdata.yaml', 'on_reject: continue\nrange: 0 30\ngrader_flags: sum accept_if_any_accepted\n'],
      ['data/secret/exact/testdata.yaml', 'on_reject: break\ngrader_flags: min\n'],
      ['data/secret/exact/1.in', '7\n'], ['data/secret/exact/1.ans', '7\n'],
      ['data/secret/exact/2.in', '8\n'], ['data/secret/exact/2.ans', '8\n'],
      ['data/secret/loose/testdata.yaml', 'on_reject: continue\ngrader_flags: sum\noutput_validator_flags: lenient\n'],
      ['data/secret/loose/1.in', '1\n'], ['data/secret/loose/1.ans', '1\n'],
      ['data/secret/loose/2.in', '2\n'], ['data/secret/loose/2.ans', '2\n'],
    ]
    const r = await postPackage(server.url, secret, makeZip(files), 'groupscores.zip')
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    // the same verdicts and scores as problemtools' verifyproblem (problem-packages.e2e.test.ts)
    const exact = await graded(r.body.problem_id, 'PYTHON3', 'print(int(input()))\n')
    expect(exact.result.score?.package).toMatchObject({ verdict: 'AC', score: 30, max_score: 30 })
    const offByOne = await graded(r.body.problem_id, 'PYTHON3', 'print(int(input()) + 1)\n')
    expect([offByOne.result.run_status.status, offByOne.result.score?.package?.score]).toEqual(['AC', 10])
    expect(offByOne.result.score?.package?.groups).toEqual([
      { group: 'sample', verdict: 'WA', score: 0 },
      { group: 'secret/exact', verdict: 'WA', score: 0 },
      { group: 'secret/loose', verdict: 'AC', score: 10 },
      { group: 'secret', verdict: 'AC', score: 10 },
      { group: '', verdict: 'AC', score: 10 },
    ])
    const odd = await graded(r.body.problem_id, 'CPP17', '#include <cstdio>\nint main(){int n;scanf("%d",&n);printf("%d\\n",n%2?n:n+1);}\n')
    expect(odd.result.score?.package?.score).toBe(15)
    const crash = await graded(r.body.problem_id, 'PYTHON3', 'raise SystemExit(3)\n')
    expect([crash.result.run_status.status, crash.result.score?.package?.verdict, crash.result.score?.package?.score]).toEqual(['RE', 'RTE', 0])
  })

  it('a pass-fail package stored as before: no package score in the reply', async () => {
    const r = await postPackage(server.url, secret, makeZip([['problem.yaml', 'name: Plain\n'], ['data/secret/1.in', '1\n'], ['data/secret/1.ans', '1\n'], ['data/secret/2.in', '2\n'], ['data/secret/2.ans', '2\n']]), 'plain.zip')
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const wa = await graded(r.body.problem_id, 'PYTHON3', 'print(1)\n')
    expect(wa.result.run_status.status).toBe('WA')
    expect(wa.result.score).toEqual({ passed: 1, total: 2, points: 1, max_points: 2 })
    expect(wa.result.tests?.map((t) => t.status)).toEqual(['AC', 'WA'])
  })
})
