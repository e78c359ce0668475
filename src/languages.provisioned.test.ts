// Checks every provisioned language for real: its self-test compiles and echoes a line of stdin, and
// its syntax-error program fails with a message, in the jail that serves real jobs. `npm test`
// provisions every toolchain first, so a missing one is a failure here, never a skip.
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from './config.ts'
import { workerSettings } from './jobs/pool.ts'
import { createJobRunner, type JobRunner } from './jobs/worker.ts'
import { isProvisioned, loadLanguages, type Language } from './languages.ts'

const config = loadConfig()
const toolchains = config.paths.toolchains
const isRoot = process.getuid?.() === 0
const MEMORY_KB = 262144
const LINE = 'hello arbiter 42 ✓'

/** What one source did: compiled or not, then what its run printed. */
interface Outcome {
  compiled: boolean
  compileMessage: string
  exitCode: number | null
  stdout: string
  stderr: string
  compileMs: number
  runMs: number
}

interface Backend {
  name: string
  check(lang: Language, source: string, stdin: string): Promise<Outcome>
  close(): Promise<void>
}

// ---------- the jail: the worker that serves real jobs ----------

function jailBackend(): Backend {
  let runner: JobRunner | undefined
  return {
    name: 'jail',
    async check(lang, source, stdin) {
      runner ??= createJobRunner(workerSettings(config), `languages-test-${process.pid}`)
      const r = await runner.run({
        language: lang.code,
        source,
        input: stdin,
        timeLimitSec: 5,
        memoryLimitKb: MEMORY_KB,
      })
      return {
        compiled: r.compile.ok,
        compileMessage: r.compile.message,
        exitCode: r.run?.exitCode ?? null,
        stdout: r.run?.stdout ?? '',
        stderr: r.run
          ? `${r.run.stderr}${r.run.status === 'ok' || r.run.status === 'exit' ? '' : ` [${r.run.status}]`}`
          : '',
        compileMs: Math.round((r.compile.step?.wallSec ?? 0) * 1000),
        runMs: Math.round((r.run?.wallSec ?? 0) * 1000),
      }
    },
    close: async () => runner?.close(),
  }
}

const backend = jailBackend()

const timings: string[] = []
afterAll(async () => {
  await backend.close()
  if (timings.length)
    console.log(`wall times in the ${backend.name} (compile / run):\n${timings.join('\n')}`)
})

const langs = [...loadLanguages().values()]

describe.each(langs.map((l) => [l.code, l] as const))(`%s (${backend.name})`, (code, lang) => {
  it('is provisioned', () => {
    expect(isRoot, 'the jail needs root').toBe(true)
    expect(isProvisioned(toolchains, lang), `npm run provision -- --langs ${code}`).toBe(true)
  })

  it('compiles its self-test, which echoes a line of stdin', { timeout: 180_000 }, async () => {
    const o = await backend.check(lang, lang.selftest, `${LINE}\nsecond line\n`)
    timings.push(
      `${code.padEnd(16)} ${String(o.compileMs).padStart(5)} ms  ${String(o.runMs).padStart(5)} ms`
    )
    expect(o.compiled, `compile failed:\n${o.compileMessage}`).toBe(true)
    expect(o.stderr).toBe('')
    expect(o.exitCode).toBe(0)
    expect(o.stdout).toBe(`${LINE}\n`)
  })

  it('reports a syntax error', { timeout: 120_000 }, async () => {
    const o = await backend.check(lang, lang.selftestError, '')
    if (lang.compile) {
      expect(o.compiled).toBe(false)
      expect(o.compileMessage.trim()).not.toBe('')
    } else {
      expect(o.exitCode).not.toBe(0)
      expect(o.stderr.trim()).not.toBe('')
    }
  })
})
