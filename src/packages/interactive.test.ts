// Interactive and multi-pass Kattis/ICPC problems through the real worker and jail, with tiny packages
// written here: the validator and the submission at once, each in its own jail (the validator in the
// worker's second slot), wired stdout to stdin both ways; problemtools' rules for who decides (a
// validator's fault is JE/IE, an early rejection WA, then the submission's TLE and RTE); both hanging
// bounded; multi-pass with nextpass.in and past the pass limit.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { workerSettings } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { createJobRunner } from '../jobs/worker.ts'
import { makeTree } from '../testing/zips.ts'
import { withTestSandbox } from '../testing/sandbox-bin.ts'
import { DOUBLER, INTERACTIVE_MULTI, MULTI, SUB, VALIDATOR } from '../testing/interactive-programs.ts'
import { importPackage } from './import.ts'
import { readPackageDir } from './package-files.ts'
import { verifyPackage, type SubmissionRow } from './verify.ts'

const scratch = mkdtempSync(join(tmpdir(), 'arbiter-interactive-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: join(scratch, 'data') })
const settings = withTestSandbox({ ...workerSettings(config), checker: { timeSec: 2, memoryKb: 262144, judgeTimeSec: 10 }, compileCache: undefined })
const runner = createJobRunner(settings, `interactive-${process.pid}`)
afterAll(async () => {
  await runner.close()
  rmSync(scratch, { recursive: true, force: true })
})

const YAML = (extra = '') => `problem_format_version: 2023-07-draft\nname: Double\ntype: interactive\nlimits:\n  time_limit: 1\n${extra}`

async function verify(name: string, files: Record<string, string>): Promise<Map<string, SubmissionRow>> {
  const dir = makeTree(scratch, name, files)
  const pkg = readPackageDir(dir, { maxFiles: 500, fileBytes: 1 << 20, totalBytes: 4 << 20 })
  const imported = importPackage(pkg, { fallbackName: name, maxTests: 100, verifyOnly: true })
  const submissions = new Map([...pkg.files].filter(([p]) => p.startsWith('submissions/')))
  const report = await verifyPackage(imported, submissions, { canRun: () => true, run: (job) => runner.run(job), maxTimeSec: 4, memoryLimitKb: 262144 })
  return new Map(report.rows.map((r) => [r.file, r]))
}

const got = (rows: Map<string, SubmissionRow>) => Object.fromEntries([...rows].map(([f, r]) => [f, r.got]))

describe('interactive: the validator and the submission at once, wired to each other', () => {
  it('each submission gets problemtools\' verdict: the validator\'s, an early rejection WA, then TLE, then RTE', { timeout: 300_000 }, async () => {
    const rows = await verify('double', {
      'problem.yaml': YAML(),
      'data/secret/1.in': 'play 21\n',
      'data/secret/1.ans': '',
      'output_validator/validate.c': VALIDATOR,
      'submissions/accepted/good.c': SUB.good,
      'submissions/accepted/prober.c': SUB.prober,
      'submissions/wrong_answer/wrong.c': SUB.wrong,
      'submissions/wrong_answer/leaves.c': SUB.leaves,
      'submissions/wrong_answer/floods.c': SUB.floods,
      'submissions/run_time_error/crashes.c': SUB.crashes,
      'submissions/time_limit_exceeded/hangs.c': SUB.hangs,
      'submissions/time_limit_exceeded/spins.c': SUB.spins,
    })
    expect(got(rows)).toEqual({
      'accepted/good.c': 'AC',
      'accepted/prober.c': 'AC',
      'wrong_answer/wrong.c': 'WA',
      'wrong_answer/leaves.c': 'WA',
      'wrong_answer/floods.c': 'WA',
      'run_time_error/crashes.c': 'RTE',
      'time_limit_exceeded/hangs.c': 'TLE',
      'time_limit_exceeded/spins.c': 'TLE',
    })
    expect([...rows.values()].every((r) => r.outcome === 'pass')).toBe(true)
    expect(rows.get('wrong_answer/wrong.c')!.note).toBe('got 43, not 42')
    expect(rows.get('wrong_answer/leaves.c')!.note).toBe('no answer')
  })

  it('a validator that rejects before the submission ends decides (WA), whatever the submission does next', { timeout: 120_000 }, async () => {
    const rows = await verify('early', {
      'problem.yaml': YAML(),
      'data/secret/1.in': 'early 1\n',
      'data/secret/1.ans': '',
      'output_validator/validate.c': VALIDATOR,
      'submissions/wrong_answer/hangs.c': SUB.hangs,
      'submissions/wrong_answer/spins.c': SUB.spins,
      'submissions/wrong_answer/good.c': SUB.good,
    })
    expect(got(rows)).toEqual({ 'wrong_answer/good.c': 'WA', 'wrong_answer/hangs.c': 'WA', 'wrong_answer/spins.c': 'WA' })
    expect(rows.get('wrong_answer/hangs.c')!.note).toBe('rejected at once')
  })

  it('a validator that crashes, exits with neither 42 nor 43, or hangs is the grader\'s fault (IE), bounded in time', { timeout: 300_000 }, async () => {
    const job = (mode: string, source: string): Job => ({
      language: 'C',
      source,
      input: '',
      timeLimitSec: 1,
      memoryLimitKb: 262144,
      tests: [{ input: `${mode} 5\n`, expectedOutput: '' }],
      checker: { type: 'output_validator', lang: 'C', source: VALIDATOR, interactive: true },
    })
    for (const [mode, source, why] of [
      ['crash', SUB.good, /^output validator killed by SIGABRT/],
      ['exit7', SUB.good, /^output validator exited with 7 \(42 accepts, 43 rejects\)/],
      // the validator hangs, the submission ends
      ['hang', SUB.leaves, /^output validator exceeded its wall limit/],
      // both hang: the submission is stopped at its wall limit, the validator (which ignores end of file) at its own
      ['hang', SUB.hangs, /^output validator exceeded its wall limit/],
    ] as const) {
      const started = Date.now()
      const r = await runner.run(job(mode, source))
      const test = r.tests![0]
      expect(test.status, `${mode}: ${test.checkerMessage}`).toBe('IE')
      expect(test.checkerMessage).toMatch(why)
      // the validator's wall limit: its CPU limit × 2 + wall_extra_sec, or the submission's wall limit + 2 s
      expect(Date.now() - started).toBeLessThan(30_000)
    }
  })
})

describe('multi-pass', () => {
  it('nextpass.in starts the next pass with it as input, the feedback folder kept; past the pass limit is IE', { timeout: 300_000 }, async () => {
    const files = (input: string, passes = '') => ({
      'problem.yaml': `problem_format_version: 2023-07-draft\nname: Passes\ntype: multi-pass\nlimits:\n  time_limit: 1\n${passes}`,
      'data/secret/1.in': input,
      'data/secret/1.ans': '',
      'output_validator/validate.c': MULTI,
      'submissions/accepted/doubler.c': DOUBLER,
      // right on the first pass only: the second pass's input is another number
      'submissions/wrong_answer/once.c': '#include <stdio.h>\nint main(void){printf("10\\n");return 0;}\n',
    })
    const rows = await verify('passes', files('twice 5\n'))
    expect(got(rows)).toEqual({ 'accepted/doubler.c': 'AC', 'wrong_answer/once.c': 'WA' })
    // every pass's message is kept: the folder goes on from pass to pass
    const job = (input: string, passes: number): Job => ({
      language: 'C',
      source: DOUBLER,
      input: '',
      timeLimitSec: 1,
      memoryLimitKb: 262144,
      tests: [{ input, expectedOutput: '' }],
      checker: { type: 'output_validator', lang: 'C', source: MULTI, passes },
    })
    const two = (await runner.run(job('twice 5\n', 2))).tests![0]
    expect(two).toMatchObject({ status: 'AC', checkerMessage: 'pass 1 ok;pass 2 ok;' })
    const past = (await runner.run(job('always 5\n', 3))).tests![0]
    expect(past.status).toBe('IE')
    expect(past.checkerMessage).toMatch(/^output validator wrote nextpass\.in on pass 3, the last one the problem allows \(limits\.validation_passes: 3\)/)
  })

  it('interactive and multi-pass together: each pass is a wired run', { timeout: 120_000 }, async () => {
    const r = await runner.run({
      language: 'C',
      source: SUB.good,
      input: '',
      timeLimitSec: 1,
      memoryLimitKb: 262144,
      tests: [{ input: 'play 4\n', expectedOutput: '' }],
      checker: { type: 'output_validator', lang: 'C', source: INTERACTIVE_MULTI, interactive: true, passes: 3 },
    })
    expect(r.tests![0]).toMatchObject({ status: 'AC', checkerMessage: 'well played' })
  })
})
