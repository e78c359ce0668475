// A job's progress through the real pool: a pool thread's messages reach the run they belong to (by its
// number, no port per job), and a compile step's report is held COMPILED_REPORT_DELAY_MS, so a job whose
// run ends sooner sends none (its result carries the step) while a longer run is told of it as it runs.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { isProvisioned, loadLanguages, resolveLanguage } from '../languages.ts'
import { createPool, workerSettings } from './pool.ts'
import type { Pool } from './pool-types.ts'
import { COMPILED_REPORT_DELAY_MS } from './progress.ts'
import type { CompileOutcome, Job } from './types.ts'

const data = mkdtempSync(join(tmpdir(), 'pool-progress-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: data })
config.pool.size = 2
const c = resolveLanguage(loadLanguages(), 'C')
const ready = !!c && isProvisioned(workerSettings(config).toolchains, c)

const job = (source: string): Job => ({ language: 'C', source, input: '', timeLimitSec: 5, memoryLimitKb: 262144 })
const sleeper = (ms: number, says: string) =>
  `#include <stdio.h>\n#include <unistd.h>\nint main(void){ usleep(${ms * 1000}); puts("${says}"); return 0; }\n`

/** Runs a job, noting when each compile report came and when the result did. */
async function watched(pool: Pool, source: string) {
  const reports: { outcome: CompileOutcome; at: number }[] = []
  const result = await pool.run(job(source), { onCompiled: (outcome) => reports.push({ outcome, at: performance.now() }) })
  return { result, reports, doneAt: performance.now() }
}

let pool: Pool
beforeAll(() => void (pool = createPool(config)))
afterAll(async () => {
  await pool?.close()
  rmSync(data, { recursive: true, force: true })
})

describe.skipIf(!ready)('progress from the pool threads', () => {
  it('a run that ends within the delay sends no compile report: its result carries the step, also a failed one', async () => {
    const quick = await watched(pool, '#include <stdio.h>\nint main(void){ puts("hi"); return 0; }\n')
    expect(quick.result.run?.stdout).toBe('hi\n')
    expect(quick.result.compile.ok).toBe(true)
    expect(quick.reports).toEqual([])
    const failed = await watched(pool, 'int main(void){ return 0 }\n')
    expect(failed.result.compile.ok).toBe(false)
    expect(failed.result.compile.message).toMatch(/error/)
    expect(failed.reports).toEqual([])
  })

  it('a longer run hears of its compile step while it runs, once; two at once each hear their own', async () => {
    const runMs = COMPILED_REPORT_DELAY_MS * 6
    const [a, b] = await Promise.all([watched(pool, sleeper(runMs, 'a')), watched(pool, sleeper(runMs, 'b'))])
    for (const [w, says] of [[a, 'a\n'], [b, 'b\n']] as const) {
      expect(w.result.run?.stdout).toBe(says)
      expect(w.result.compile.ok).toBe(true)
      expect(w.reports.map((r) => r.outcome)).toEqual([w.result.compile])
      // told during the run: well before its result came back
      expect(w.doneAt - w.reports[0]!.at).toBeGreaterThan(runMs / 3)
    }
  })
})
