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
/**
 * Two slots, as a 2-core server's pool has: a row's loop keeps one core busy for its second of CPU, so two
 * rows at a time (each in a slot of its own: supervisor, cgroups, box) cut the file's time (from a cold
 * compile cache, 84 s one at a time, 53 s two at a time, on 2026-11-30) and judge as a loaded server does.
 */
const SLOTS = 2
const idle: JobRunner[] = []
const waiting: ((r: JobRunner) => void)[] = []
const take = () => new Promise<JobRunner>((resolve) => (idle.length ? resolve(idle.pop()!) : waiting.push(resolve)))
const give = (r: JobRunner) => (waiting.length ? waiting.shift()!(r) : idle.push(r))
const runners: JobRunner[] = []
beforeAll(() => {
  for (let i = 0; i < SLOTS; i++) runners.push(createJobRunner(settings, `tle-${process.pid}-${i}`))
  idle.push(...runners)
})
afterAll(async () => {
  await Promise.all(runners.map((r) => r.close()))
})

describe('an endless loop is TLE in every language', () => {
  it('has a loop for every code of the manifest but those whose output is their source (Plain Text)', () => {
    expect([...langs.values()].filter((l) => !l.endlessLoop && !l.sourceIsOutput).map((l) => l.code)).toEqual([])
  })

  // each language's endless_loop (the manifest), written so that no optimiser may remove it
  for (const [code, source] of [...langs.values()].filter((l) => !l.sourceIsOutput).map((l) => [l.code, l.endlessLoop!] as const)) {
    const lang = langs.get(code)
    it.concurrent(code, { timeout: 120_000 }, async ({ expect }) => {
      expect(!!lang && isProvisioned(config.paths.toolchains, lang), `${code} is not provisioned`).toBe(true)
      const job = { language: code, source, input: '', timeLimitSec: 1, memoryLimitKb: 262144 }
      const runner = await take()
      const result = await runner.run(job).finally(() => give(runner))
      const v = verdictOf(result, job)
      expect(v.verdict, `${v.compileStatus.slice(0, 400)} ${v.stderr.slice(0, 400)}`).toBe('TLE')
    })
  }
})
