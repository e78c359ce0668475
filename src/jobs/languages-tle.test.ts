// Every language code, in the real jail: a program that loops forever ends TLE.
// The echo and syntax-error checks of each code are in src/languages.provisioned.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { verdictOf } from '../grading/verdict.ts'
import { isProvisioned, loadLanguages } from '../languages.ts'
import { workerSettings } from './pool.ts'
import { createJobRunner, type JobRunner } from './worker.ts'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' })
const settings = workerSettings(config)
settings.limits.wallExtraSec = 0.5

const langs = loadLanguages()
let runner: JobRunner
beforeAll(() => {
  runner = createJobRunner(settings, `tle-${process.pid}`)
})
afterAll(async () => {
  await runner?.close()
})

describe('an endless loop is TLE in every language', () => {
  it('has a loop for every code of the manifest but those whose output is their source (Plain Text)', () => {
    expect([...langs.values()].filter((l) => !l.endlessLoop && !l.sourceIsOutput).map((l) => l.code)).toEqual([])
  })

  // each language's endless_loop (the manifest), written so that no optimiser may remove it
  for (const [code, source] of [...langs.values()].filter((l) => !l.sourceIsOutput).map((l) => [l.code, l.endlessLoop!] as const)) {
    const lang = langs.get(code)
    it(code, { timeout: 120_000 }, async () => {
      expect(!!lang && isProvisioned(config.paths.toolchains, lang), `${code} is not provisioned`).toBe(true)
      const job = { language: code, source, input: '', timeLimitSec: 1, memoryLimitKb: 262144 }
      const v = verdictOf(await runner.run(job), job)
      expect(v.verdict, `${v.compileStatus.slice(0, 400)} ${v.stderr.slice(0, 400)}`).toBe('TLE')
    })
  }
})
