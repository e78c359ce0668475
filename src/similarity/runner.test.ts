// The analysis child fed its sources in many batches: every source arrives, in order; a batch that
// cannot be read fails the run with the reason. While the sandbox has work the child is stopped, and its
// deadline counts only the time it ran.
import { readdirSync, readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { until } from '../testing/evaluation.ts'
import { generateSubmissions } from '../testing/similarity-submissions.ts'
import { AnalysisFailed, cpuMeter, CPU_WINDOW_MS, inBatches, MAX_STOPPED_MS, runAnalysis, WAITING_STAGE, YIELD_IDLE_MS } from './runner.ts'

const settings = { language: 'python', minSimilarity: 0, maxPairs: 100 }
const limits = { timeSec: 120, memoryMb: 512 }

test('sources sent in many small batches all reach the analysis, in order', { timeout: 150_000 }, async () => {
  const { files, planted } = generateSubmissions({ count: 8, seed: 5, copyShare: 0.25 })
  const batches = [...inBatches(files, 3000)]
  expect(batches.length).toBeGreaterThanOrEqual(3)
  expect(batches.flat()).toEqual(files)
  const pulled: number[] = []
  function* lazily() {
    for (const [k, b] of batches.entries()) {
      pulled.push(k)
      yield b
    }
  }
  const { result } = await runAnalysis({ ...settings, batches: lazily() }, limits)
  expect(pulled).toEqual(batches.map((_, k) => k))
  expect(result.files.map((f) => f.id)).toEqual(files.map((f) => f.id))
  const key = (a: string, b: string) => [a, b].sort().join('|')
  expect(result.pairs.map((p) => key(p.left, p.right))).toContain(key(...planted[0]!))
})

test('a batch that cannot be read fails the analysis with the reason', { timeout: 60_000 }, async () => {
  const { files } = generateSubmissions({ count: 4, seed: 5, copyShare: 0 })
  function* broken() {
    yield files.slice(0, 2)
    throw new Error('disk on fire')
  }
  await expect(runAnalysis({ ...settings, batches: broken() }, limits)).rejects.toThrow(AnalysisFailed)
  await expect(runAnalysis({ ...settings, batches: broken() }, limits)).rejects.toThrow(/the sources could not be read: disk on fire/)
})

/** The analysis children of this process and their states (R, S, T = stopped …), from /proc. */
function analysisChildren(): { pid: number; state: string }[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8')
        return Number(ppid) === process.pid && cmd.includes('analyse-child') ? [{ pid: Number(d), state: state! }] : []
      } catch {
        return []
      }
    })
}

test('while the sandbox has work the analysis is stopped, its deadline not running, and it goes on once the sandbox is idle', { timeout: 120_000 }, async () => {
  // its own run (the child's start and the analysis, after the release) must fit in a deadline shorter
  // than the 3.2 s or more it is stopped: 8 sources at nice 0, as the jobs beside it (1.4-2.0 s with a
  // CI run's tests on the 2 cores). At the runner's default nice 19 there, 120 sources passed a 2 s
  // deadline in 2 of 3 runs and 40 a 2.5 s one in 5 of 5 (2 of 5 at nice 0): it counts the wall time run
  const { files } = generateSubmissions({ count: 8, seed: 7, copyShare: 0.05 })
  let busy = true
  const stages: string[] = []
  let releasedAt = 0
  // the jobs use the CPU (othersBusy): the rule stops the analysis
  const run = runAnalysis({ ...settings, batches: inBatches(files) }, { timeSec: 2.8, memoryMb: 512, nice: 0, yieldTo: () => busy, othersBusy: () => true }, (_, stage) => stages.push(stage))
  // stopped at once, and kept stopped past its 2.8 s deadline (stopped time is not run time)
  await until(() => analysisChildren().some((c) => c.state === 'T'), 5_000)
  await new Promise((r) => setTimeout(r, 3_000))
  expect(analysisChildren().map((c) => c.state)).toEqual(['T'])
  expect(stages.at(-1)).toBe(WAITING_STAGE)
  busy = false
  releasedAt = performance.now()
  const { result } = await run
  // before: it ran beside the jobs (nice 19 gives them nothing when they run in cgroups of their own)
  expect(performance.now() - releasedAt).toBeGreaterThanOrEqual(YIELD_IDLE_MS)
  expect(result.files).toHaveLength(8)
  expect(stages.filter((s) => s !== WAITING_STAGE).length).toBeGreaterThan(0)
})

test('an analysis that runs past its deadline is still stopped by it', { timeout: 60_000 }, async () => {
  const { files } = generateSubmissions({ count: 600, seed: 7, copyShare: 0.05 })
  await expect(runAnalysis({ ...settings, batches: inBatches(files) }, { timeSec: 0.5, memoryMb: 512, yieldTo: () => false })).rejects.toThrow(/took longer than 0.5 s/)
})

test('work in the sandbox that does not use the CPU (a program that sleeps) does not stop the analysis', { timeout: 120_000 }, async () => {
  const { files } = generateSubmissions({ count: 60, seed: 7, copyShare: 0.05 })
  const stages: string[] = []
  const { result } = await runAnalysis({ ...settings, batches: inBatches(files) }, { timeSec: 60, memoryMb: 512, yieldTo: () => true, othersBusy: () => false }, (_, stage) => stages.push(stage))
  expect(result.files).toHaveLength(60)
  expect(stages).not.toContain(WAITING_STAGE)
})

test('the floor: a sandbox that is busy for ever (using the CPU) still lets the analysis finish, a second in every five', { timeout: 120_000 }, async () => {
  const { files } = generateSubmissions({ count: 60, seed: 7, copyShare: 0.05 })
  const stages: string[] = []
  const started = performance.now()
  const { result } = await runAnalysis({ ...settings, batches: inBatches(files) }, { timeSec: 60, memoryMb: 512, yieldTo: () => true, othersBusy: () => true }, (_, stage) => stages.push(stage))
  expect(result.files).toHaveLength(60)
  expect(stages).toContain(WAITING_STAGE)
  // it was stopped at first, for MAX_STOPPED_MS, before the floor let it run
  expect(performance.now() - started).toBeGreaterThanOrEqual(MAX_STOPPED_MS)
})

test('cpuMeter: a process spinning beside the measured one counts as others using the CPU', { timeout: 30_000 }, async () => {
  const { spawn } = await import('node:child_process')
  const sleeper = spawn('sleep', ['5'])
  const spinner = spawn(process.execPath, ['-e', 'for(;;){}'])
  try {
    const meter = cpuMeter(() => sleeper.pid)
    meter()
    await new Promise((r) => setTimeout(r, CPU_WINDOW_MS * 3))
    expect(meter()).toBe(true)
  } finally {
    sleeper.kill()
    spinner.kill()
  }
})
