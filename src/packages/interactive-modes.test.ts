// Interactive and multi-pass problems in each way a worker runs a step: in prepared jails (the
// default) and with one nsjail start per step (pool.prepared_jails = false), through the real worker
// and jail. The same who-decides rules in both (a validator's fault is IE, a rejection before the
// submission ends WA, then the submission's TLE, then its RTE; both hanging is a bounded IE;
// nextpass.in starts the next pass), with hostile programs on both ends of the wire: hanging,
// flooding, leaving early, and a submission looking for anything but its validator. This is the file
// scripts/check-cgroup-v2.sh runs for interactive problems on cgroup v2.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { workerSettings } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { createJobRunner, type JobRunner } from '../jobs/worker.ts'
import type { OutputValidatorChecker } from '../grading/checkers.ts'
import { DOUBLER, INTERACTIVE_MULTI, MULTI, prober, SUB, VALIDATOR } from '../testing/interactive-programs.ts'
import { withTestSandbox } from '../testing/sandbox-bin.ts'

const scratch = mkdtempSync(join(tmpdir(), 'arbiter-interactive-modes-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: join(scratch, 'data') })
const base = withTestSandbox({ ...workerSettings(config), checker: { timeSec: 2, memoryKb: 262144, judgeTimeSec: 10 }, compileCache: undefined })
const runners: JobRunner[] = []
afterAll(async () => {
  await Promise.all(runners.map((r) => r.close()))
  rmSync(scratch, { recursive: true, force: true })
})

const IE_WALL = /^output validator exceeded its wall limit/
/** Expected of one test: its status, and its checker message (exact text or a pattern) when it says something. */
type Want = [string, string | RegExp | undefined]

/** Which submission meets which validator mode, and what problemtools decides. Hanging rows are marked: they take a wall limit. */
const TABLE: { sub: string; source: string; timeLimitSec?: number; tests: [input: string, want: Want, hangs?: true][] }[] = [
  {
    sub: 'good',
    source: SUB.good,
    tests: [
      ['play 21', ['AC', 'well played']],
      // the validator leaves early, rejecting: WA
      ['early 1', ['WA', 'rejected at once']],
      // the validator's own faults: IE
      ['crash 5', ['IE', /^output validator killed by SIGABRT/]],
      ['exit7 5', ['IE', /^output validator exited with 7 \(42 accepts, 43 rejects\)/]],
      ['hang 5', ['IE', IE_WALL], true],
      // the validator floods a submission that reads two numbers and ends: it blocks on its full pipe
      // (never killed by SIGPIPE, as in problemtools) until its wall limit
      ['flood 5', ['IE', IE_WALL], true],
      ['spew 5', ['IE', IE_WALL], true],
    ],
  },
  { sub: 'wrong', source: SUB.wrong, tests: [['play 21', ['WA', 'got 43, not 42']]] },
  // ends without a word: the validator rejects after it, and a clean exit is no RTE
  { sub: 'leaves', source: SUB.leaves, tests: [['play 21', ['WA', 'no answer']], ['hang 5', ['IE', IE_WALL], true]] },
  // closes its wire and sleeps: the validator rejects before it ends (WA, not its TLE)
  { sub: 'closes', source: SUB.closes, tests: [['play 21', ['WA', 'no answer']]] },
  // exits 3 without reading: the validator's rejection comes after it ended, so its RTE decides
  { sub: 'crashes', source: SUB.crashes, tests: [['play 21', ['RE', undefined]]] },
  {
    sub: 'hangs',
    source: SUB.hangs,
    tests: [
      ['play 21', ['TLE', undefined], true],
      ['early 1', ['WA', 'rejected at once']],
      // both hang: the submission is stopped at its wall limit, the validator (which ignores end of file) at its own
      ['hang 5', ['IE', IE_WALL], true],
    ],
  },
  { sub: 'spins', source: SUB.spins, tests: [['play 21', ['TLE', undefined], true], ['early 1', ['WA', 'rejected at once']]] },
  // floods its answers: the validator rejects the first, and the flood ends
  { sub: 'floods', source: SUB.floods, tests: [['play 21', ['WA', 'got 1, not 42']]] },
  // 256 KiB through the wire (four pipe buffers), end of file, then the answer: nothing lost or stuck
  // (a roomier limit: 128 Ki numbers read, two jails started one nsjail each, a loaded or emulated machine)
  { sub: 'drains', source: SUB.drains, timeLimitSec: 4, tests: [['flood 5', ['AC', 'well played']]] },
  // waits for an end of file the validator never sends (it waits for the answer): its TLE, not the
  // validator's late rejection
  { sub: 'drains', source: SUB.drains, tests: [['play 21', ['TLE', undefined], true]] },
]

const job = (source: string, inputs: string[], checker: Partial<OutputValidatorChecker> = {}): Job => ({
  language: 'C',
  source,
  input: '',
  timeLimitSec: 1,
  memoryLimitKb: 262144,
  tests: inputs.map((input) => ({ input: `${input}\n`, expectedOutput: '' })),
  checker: { type: 'output_validator', lang: 'C', source: VALIDATOR, interactive: true, ...checker },
})

const wanted = ([status, message]: Want) => (message === undefined ? { status } : { status, checkerMessage: message instanceof RegExp ? expect.stringMatching(message) : message })

for (const prepared of [true, false]) {
  describe(`interactive and multi-pass problems, ${prepared ? 'in prepared jails' : 'one nsjail per step (pool.prepared_jails = false)'}`, () => {
    const runner = createJobRunner({ ...base, sandbox: { ...base.sandbox, prepared } }, `imodes-${prepared ? 'p' : 'n'}-${process.pid}`)
    runners.push(runner)

    for (const row of TABLE) {
      it(`${row.sub}: ${row.tests.map(([input, [status]]) => `${input.split(' ')[0]} → ${status}`).join(', ')}`, { timeout: 600_000 }, async () => {
        const started = Date.now()
        const r = await runner.run({ ...job(row.source, row.tests.map(([input]) => input)), ...(row.timeLimitSec && { timeLimitSec: row.timeLimitSec }) })
        expect(r.compile.ok, r.compile.message).toBe(true)
        expect(r.tests!.map((t) => ({ status: t.status, checkerMessage: t.checkerMessage }))).toEqual(row.tests.map(([, want]) => expect.objectContaining(wanted(want))))
        // bounded: a hanging test costs at most the validator's wall limit (the submission's wall limit
        // + 2 s, or the validator's CPU limit × 2 + wall_extra_sec) and the stop; the others little
        // (roomy: the compile and the jails' starts on a loaded host or under emulation)
        const hanging = row.tests.filter(([, , hangs]) => hangs).length
        expect(Date.now() - started).toBeLessThan(60_000 + hanging * 30_000)
      })
    }

    it('a submission looking for anything but its validator (loopback, sockets, host paths, processes, descriptors) finds nothing', { timeout: 300_000 }, async () => {
      const r = await runner.run(job(prober([], [scratch, base.sandbox.runs, base.toolchains]), ['play 21']))
      expect(r.tests![0], r.tests![0]!.stdout).toMatchObject({ status: 'AC', checkerMessage: 'well played' })
    })

    it('multi-pass: nextpass.in starts the next pass, the feedback folder kept; past the pass limit IE; a pass answered wrong WA', { timeout: 300_000 }, async () => {
      const multi = (source: string, input: string, passes: number): Job => ({ ...job(source, [input]), checker: { type: 'output_validator', lang: 'C', source: MULTI, passes } })
      // one at a time: a runner is one slot
      const two = (await runner.run(multi(DOUBLER, 'twice 5', 2))).tests![0]!
      const past = (await runner.run(multi(DOUBLER, 'always 5', 3))).tests![0]!
      const once = (await runner.run(multi('#include <stdio.h>\nint main(void){printf("10\\n");return 0;}\n', 'twice 5', 2))).tests![0]!
      expect(two).toMatchObject({ status: 'AC', checkerMessage: 'pass 1 ok;pass 2 ok;' })
      expect(past.status).toBe('IE')
      expect(past.checkerMessage).toMatch(/^output validator wrote nextpass\.in on pass 3, the last one the problem allows \(limits\.validation_passes: 3\)/)
      expect(once.status).toBe('WA')
    })

    it('interactive and multi-pass together: each pass a wired run; a pass too many is IE', { timeout: 300_000 }, async () => {
      const three = await runner.run(job(SUB.good, ['play 4'], { source: INTERACTIVE_MULTI, passes: 3 }))
      expect(three.tests![0]).toMatchObject({ status: 'AC', checkerMessage: 'well played' })
      const two = await runner.run(job(SUB.good, ['play 4'], { source: INTERACTIVE_MULTI, passes: 2 }))
      expect(two.tests![0]!.status).toBe('IE')
      expect(two.tests![0]!.checkerMessage).toMatch(/wrote nextpass\.in on pass 2, the last one the problem allows/)
    })

    it("the host's /dev/null is still the null device (a wired run's nsjail is given it as stdin and stdout)", () => {
      const st = statSync('/dev/null')
      expect(st.isCharacterDevice()).toBe(true)
      expect(st.rdev).toBe(0x103) // 1:3
    })
  })
}
