// `cli run`: compile and run one source file in the jail, printing the spec's run_status fields.
import { readFileSync } from 'node:fs'
import type { CliCommands } from '../cli-types.ts'
import { workerSettings } from '../jobs/pool.ts'
import { createJobRunner } from '../jobs/worker.ts'
import { isProvisioned, loadLanguages, resolveLanguage } from '../languages.ts'
import { verdictOf } from '../grading/verdict.ts'

export const runCommands: CliCommands = {
  run: {
    summary: 'run --lang LANG --source FILE [--input FILE] [--time-limit S] [--memory-limit KB]',
    options: {
      lang: { type: 'string' },
      source: { type: 'string' },
      input: { type: 'string' },
      'time-limit': { type: 'string' },
      'memory-limit': { type: 'string' },
    },
    async run({ values }, ctx) {
      const config = ctx.config()
      if (typeof values.lang !== 'string' || typeof values.source !== 'string') throw new Error('--lang and --source are required')
      const lang = resolveLanguage(loadLanguages(), values.lang)
      if (!lang) throw new Error(`unknown language code ${values.lang}`)
      // checked here, not left to the jail: an unprovisioned root would fail as a raw mount error
      if (!isProvisioned(config.paths.toolchains, lang))
        throw new Error(`lang '${values.lang}' is not provisioned on this server (${config.paths.toolchains}); provision it with: npm run provision -- --langs ${lang.code}`)
      const timeLimitSec = Math.min(Number(values['time-limit'] ?? config.limits.default_time_sec), config.limits.max_time_sec)
      const memoryLimitKb = Math.min(Number(values['memory-limit'] ?? config.limits.default_memory_kb), config.limits.max_memory_kb)
      if (!(timeLimitSec > 0) || !(memoryLimitKb > 0)) throw new Error('--time-limit and --memory-limit must be positive numbers')
      const source = readFileSync(values.source, 'utf8')
      const input = typeof values.input === 'string' ? readFileSync(values.input, 'utf8') : ''
      const runner = createJobRunner(workerSettings(config), `cli-${process.pid}`)
      try {
        const result = await runner.run({ language: lang.code, source, input, timeLimitSec, memoryLimitKb })
        const v = verdictOf(result, { timeLimitSec, memoryLimitKb })
        return {
          lang: lang.code,
          compile_status: v.verdict === 'CE' ? 'Compilation failed' : 'OK',
          compile_message: v.verdict === 'CE' ? v.compileStatus : '',
          status: v.verdict,
          status_detail: v.statusDetail,
          time_used: v.timeUsedSec.toFixed(3),
          memory_used: String(v.memoryUsedKb),
          exit_code: v.exitCode === null ? '' : String(v.exitCode),
          signal: v.signal,
          output: v.stdout,
          stderr: v.stderr,
          time_limit: timeLimitSec,
          memory_limit: memoryLimitKb,
        }
      } finally {
        await runner.close()
      }
    },
  },
}
