// The time limit an import decides (a fake runner): the accepted submissions alone run, with
// limits.max_time_sec; problemtools' rule over the accepted ones' CPU; a fixed limit runs nothing;
// without an accepted submission that ran and was accepted the problem keeps none, and says why.
import { describe, expect, it } from 'vitest'
import type { Job, JobResult, TestOutcome } from '../jobs/types.ts'
import { loadLanguages, resolveLanguage } from '../languages.ts'
import { importPackage } from './import.ts'
import { decideTimeLimit } from './package-runs.ts'
import type { VerifyOptions } from './verify.ts'

const outcome = (status: TestOutcome['status'], timeUsedSec: number): TestOutcome => ({ status, statusDetail: 'NA', timeUsedSec, memoryUsedKb: 1, exitCode: 0, signal: 'OTHER', checkerMessage: '', earned: status === 'AC' ? 1 : 0, stdout: '' })
const languages = loadLanguages()

/** Each source says what its run gives: "AC 0.3" (status, CPU seconds). */
async function imported(subs: Record<string, string>, yaml = 'name: P\n') {
  const files = new Map(Object.entries({ 'problem.yaml': yaml, 'data/secret/1.in': '1', 'data/secret/1.ans': '1', ...subs }).map(([k, v]) => [k, Buffer.from(v)]))
  const pkg = importPackage({ files, skipped: [] }, { fallbackName: 'p', maxTests: 100 })
  const jobs: Job[] = []
  const opts: VerifyOptions = {
    canRun: (code) => code !== 'RUST',
    language: (code) => resolveLanguage(languages, code),
    maxTimeSec: 10,
    memoryLimitKb: 1 << 20,
    run: async (job): Promise<JobResult> => {
      jobs.push(job)
      const [status, time] = job.source.trim().split(' ')
      return { compile: { ok: true, message: '' }, tests: [outcome(status as TestOutcome['status'], Number(time))] }
    },
  }
  await decideTimeLimit(pkg, files, opts)
  return { pkg, jobs }
}

describe('the time limit decided at import', () => {
  it('legacy: slowest accepted 0.5 s × 5 → 3 s, stored with the problem; only the accepted ran, at limits.max_time_sec', async () => {
    const { pkg, jobs } = await imported({ 'submissions/accepted/a.c': 'AC 0.3', 'submissions/accepted/b.py': 'AC 0.5', 'submissions/wrong_answer/w.py': 'WA 0.1', 'submissions/time_limit_exceeded/t.py': 'TLE 9' })
    expect(pkg.problem.time_limit).toBe(3)
    expect(pkg.report.time_limit.seconds).toBe(3)
    expect(pkg.report.time_limit.from).toMatch(/^computed: slowest accepted 0\.50 s CPU × 5, .* at import \(2 of 2 accepted submissions ran: accepted\/a\.c 0\.30 s, accepted\/b\.py 0\.50 s\)/)
    expect(jobs.map((j) => j.timeLimitSec)).toEqual([10, 10])
  })
  it('2023-07: × 2 and at least 1 s; a fixed limit runs nothing', async () => {
    const draft = await imported({ 'submissions/accepted/a.py': 'AC 0.2' }, 'problem_format_version: 2023-07-draft\nname: P\n')
    expect(draft.pkg.problem.time_limit).toBe(1)
    const fixed = await imported({ 'submissions/accepted/a.py': 'AC 0.2' }, 'problem_format_version: 2023-07-draft\nname: P\nlimits:\n  time_limit: 4\n')
    expect([fixed.pkg.problem.time_limit, fixed.jobs.length]).toEqual([4, 0])
  })
  it('no accepted submission, or none accepted here: no limit kept, and the report says why', async () => {
    const none = await imported({ 'submissions/wrong_answer/w.py': 'WA 0.1' })
    expect(none.pkg.problem.time_limit).toBeUndefined()
    expect(none.pkg.report.time_limit).toEqual({ seconds: null, from: "none given, and none computed: the package has no submissions/accepted/; a submission's own time limit applies" })
    const failing = await imported({ 'submissions/accepted/a.py': 'WA 0.1', 'submissions/accepted/b.rs': 'AC 0.1' })
    expect(failing.pkg.problem.time_limit).toBeUndefined()
    expect(failing.pkg.report.time_limit.from).toMatch(/no accepted submission was accepted here \(accepted\/a\.py: WA; accepted\/b\.rs: not offered \(Rust is not offered here\)\)/)
  })
})
