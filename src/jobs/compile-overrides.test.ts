// Compile limits per language, overridable in the config: languages.compile_overrides is
// read from config.toml, handed to the worker by workerSettings, and replaces the manifest's limit of
// that code (and only that code, and only the keys it names) when the compiler runs in the real jail.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, parseConfig, type Config } from '../config.ts'
import { verdictOf } from '../grading/verdict.ts'
import { isProvisioned, loadLanguages } from '../languages.ts'
import { workerSettings } from './pool.ts'
import type { Job } from './types.ts'
import { createJobRunner, type JobRunner } from './worker.ts'

const env = { ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' }
const base = loadConfig(env)
const langs = loadLanguages()

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** loadConfig over a data directory whose config.toml is `toml`, the way an admin writes it. */
function configFrom(toml: string): Config {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-overrides-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'config.toml'), toml)
  return loadConfig({ ...env, ARBITER_DATA: dir })
}

// the jail's paths as the other jailed tests have them, so only the overrides differ
const paths = Object.entries(base.paths)
  .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
  .join('\n')

const OVERRIDES = `
[paths]
${paths}

[languages.compile_overrides]
C = { time_sec = 0.25 }
RUST = { memory_kb = 24576 }
CPP11 = { processes = 2 }
`

describe('languages.compile_overrides in the config', () => {
  it('is empty by default: the manifest decides', () => {
    const config = parseConfig({}, {}, '/nonexistent')
    expect(config.languages.compile_overrides).toEqual({})
    expect(workerSettings(config).compileOverrides).toEqual({})
  })

  it('is read from config.toml and handed to the worker', () => {
    const config = configFrom(`${OVERRIDES}\n[languages.compile_overrides.GO]\ntime_sec = 30\nprocesses = 64\n`)
    const want = {
      C: { time_sec: 0.25 },
      RUST: { memory_kb: 24576 },
      CPP11: { processes: 2 },
      GO: { time_sec: 30, processes: 64 },
    }
    expect(config.languages.compile_overrides).toEqual(want)
    expect(workerSettings(config).compileOverrides).toEqual(want)
  })

  it.each([
    ['an unknown limit', 'C = { cpu = 3 }', /languages\.compile_overrides\.C: .*cpu/i],
    ['a zero time', 'C = { time_sec = 0 }', /languages\.compile_overrides\.C\.time_sec/],
    ['a fractional memory', 'C = { memory_kb = 1.5 }', /languages\.compile_overrides\.C\.memory_kb/],
    ['a negative process count', 'C = { processes = -1 }', /languages\.compile_overrides\.C\.processes/],
    ['a string', 'C = { time_sec = "10" }', /languages\.compile_overrides\.C\.time_sec/],
    ['a bare number', 'C = 10', /languages\.compile_overrides\.C/],
  ])('rejects %s, naming the key', (_, line, message) => {
    const text = `[languages.compile_overrides]\n${line}\n`
    expect(() => configFrom(text)).toThrow(ConfigError)
    expect(() => configFrom(text)).toThrow(message)
  })
})

// A C file that takes gcc -O2 about a second of CPU (~0.06 s for a hello world): 200 small functions
const heavyC =
  Array.from({ length: 200 }, (_, i) => `int f${i}(int x){int s=0;for(int j=0;j<x;j++)s+=j*${i}^(s>>3);return s;}`).join('\n') +
  '\n#include <stdio.h>\nint main(void){puts("compiled");return 0;}\n'

describe('compile limits overridden in the config, in the jail', () => {
  let plain: JobRunner
  let overridden: JobRunner
  beforeAll(() => {
    const settings = workerSettings(base)
    settings.compileOverrides = {} // whatever the shared test config says: the manifest's limits
    plain = createJobRunner(settings, `overrides-plain-${process.pid}`)
    overridden = createJobRunner(workerSettings(configFrom(OVERRIDES)), `overrides-${process.pid}`)
  })
  afterAll(async () => {
    await plain?.close()
    await overridden?.close()
  })

  async function judge(runner: JobRunner, language: string, source: string) {
    const lang = langs.get(language)
    expect(!!lang && isProvisioned(base.paths.toolchains, lang), `${language} is not provisioned`).toBe(true)
    const job: Job = { language, source, input: 'x\n', timeLimitSec: 2, memoryLimitKb: 262144 }
    const result = await runner.run(job)
    const v = verdictOf(result, job)
    return { step: result.compile.step!, v, summary: JSON.stringify({ verdict: v.verdict, status: result.compile.step?.status, compile: v.compileStatus.slice(0, 300) }) }
  }

  it('C compiles its heavy source under the manifest limit (15 s)', { timeout: 120_000 }, async () => {
    const { v, summary } = await judge(plain, 'C', heavyC)
    expect(v.verdict, summary).toBe('AC')
    expect(v.stdout).toBe('compiled\n')
  })

  it('C with time_sec = 0.25: the same source exceeds the compile time limit', { timeout: 120_000 }, async () => {
    const { step, v, summary } = await judge(overridden, 'C', heavyC)
    expect(v.verdict, summary).toBe('CE')
    expect(step.status, summary).toBe('time')
    expect(v.compileStatus).toContain('compilation exceeded its time limit (0.25 s)')
  })

  it('the override names one code: CPP14 compiles the same source under its own limit', { timeout: 120_000 }, async () => {
    const { v, summary } = await judge(overridden, 'CPP14', heavyC)
    expect(v.verdict, summary).toBe('AC')
    expect(v.stdout).toBe('compiled\n')
  })

  it('RUST compiles its self-test under the manifest limit (2 GiB)', { timeout: 120_000 }, async () => {
    const { v, summary } = await judge(plain, 'RUST', langs.get('RUST')!.selftest)
    expect(v.verdict, summary).toBe('AC')
    expect(v.stdout).toBe('x\n')
  })

  it('RUST with memory_kb = 24576: rustc exceeds the compile memory limit', { timeout: 120_000 }, async () => {
    const { step, v, summary } = await judge(overridden, 'RUST', langs.get('RUST')!.selftest)
    expect(v.verdict, summary).toBe('CE')
    expect(step.status, summary).toBe('memory')
    expect(v.compileStatus).toContain('compilation exceeded its memory limit (24576 KB)')
  })

  it('CPP11 compiles its self-test under the manifest process limit', { timeout: 120_000 }, async () => {
    const { v, summary } = await judge(plain, 'CPP11', langs.get('CPP11')!.selftest)
    expect(v.verdict, summary).toBe('AC')
  })

  it('CPP11 with processes = 2: g++ cannot start its compiler proper', { timeout: 120_000 }, async () => {
    const { v, summary } = await judge(overridden, 'CPP11', langs.get('CPP11')!.selftest)
    expect(v.verdict, summary).toBe('CE')
    expect(v.compileStatus, summary).toMatch(/cc1plus.*Resource temporarily unavailable/)
  })

  it("the config's limits.compile_* are the defaults of a language whose manifest sets none (C: 0.25 s)", { timeout: 120_000 }, async () => {
    expect(langs.get('C')!.compileLimits).toEqual({})
    const runner = createJobRunner(workerSettings(configFrom('[limits]\ncompile_time_sec = 0.25\n')), `compile-defaults-${process.pid}`)
    const small = createJobRunner(workerSettings(configFrom('[limits]\ncompile_memory_kb = 8192\n')), `compile-defaults-r-${process.pid}`)
    try {
      const { step, v, summary } = await judge(runner, 'C', heavyC)
      expect(v.verdict, summary).toBe('CE')
      expect(step.status, summary).toBe('time')
      expect(v.compileStatus).toContain('compilation exceeded its time limit (0.25 s)')
      // a manifest's own limit wins over the config's default: RUST sets 2 GiB, so 8 MB of default does not apply
      const rust = await judge(small, 'RUST', langs.get('RUST')!.selftest)
      expect(rust.v.verdict, rust.summary).toBe('AC')
    } finally {
      await runner.close()
      await small.close()
    }
  })
})
