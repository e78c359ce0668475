// CLI commands of the sandbox side: `doctor` (does the jail work, with which cgroups, and does each
// provisioned language pass its self-test; exit code 1 when not) and `languages` (every code, its real version).
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CliCommands } from '../cli-types.ts'
import { isProvisioned, loadLanguages, recordedVersions, resolveLanguage, type Language } from '../languages.ts'
import { detectCgroups } from '../sandbox/cgroups.ts'
import { workerSettings } from './pool.ts'
import { createJobRunner } from './worker.ts'

/** The self-test results the last `cli doctor` recorded, for the admin's dashboard. */
export interface SelfTests {
  at: string
  languages: Record<string, { ok: boolean; ms?: number; error?: string }>
}

export const selfTestFile = (dataDir: string) => join(dataDir, 'selftest.json')

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export function languageListing(toolchains: string, langs: Map<string, Language>) {
  const versions = recordedVersions(toolchains)
  return [...langs.values()].map((l) => ({
    code: l.code,
    aliases: l.aliases,
    name: l.name,
    version: versions[l.code]?.version ?? null,
    provisioned: isProvisioned(toolchains, l),
    ...(l.note ? { note: l.note } : {}),
  }))
}

const codesOption = { lang: { type: 'string' as const } }
const pick = (langs: Map<string, Language>, csv: unknown) =>
  typeof csv === 'string' ? csv.split(',').map((c) => c.trim().toUpperCase()).filter(Boolean) : [...langs.keys()]

export const jobCommands: CliCommands = {
  languages: {
    summary: 'every language code with its real compiler/interpreter version and whether it is provisioned',
    async run(_, ctx) {
      const config = ctx.config()
      return languageListing(config.paths.toolchains, loadLanguages())
    },
  },
  doctor: {
    summary: 'check nsjail, cgroups and each provisioned language (self-test in the jail); --lang C,PYTHON3 to narrow; exit 1 unless ok',
    options: codesOption,
    async run({ values }, ctx) {
      const config = ctx.config()
      const langs = loadLanguages()
      const cgroups = detectCgroups()
      const toolchains = config.paths.toolchains
      // (the nsjail build installed here has no --version, so none is reported)
      const nsjail = { path: config.paths.nsjail, installed: executable(config.paths.nsjail) }
      const supervisor = { path: config.paths.supervisor, installed: executable(config.paths.supervisor) }
      const codes = pick(langs, values.lang)
      const problems: string[] = []
      const unknown = codes.filter((c) => !resolveLanguage(langs, c))
      for (const c of unknown) problems.push(`${c}: unknown language code`)
      const chosen = [...new Set(codes.map((c) => resolveLanguage(langs, c)).filter((l): l is Language => !!l))]
      // informational: a language may well be left unprovisioned on purpose (ARBITER_LANGS)
      const notProvisioned = chosen.filter((l) => !isProvisioned(toolchains, l)).map((l) => l.code)
      // …unless the admin enabled it: then the API and the room refuse a language the config promises
      for (const e of config.languages.enabled) {
        const lang = resolveLanguage(langs, e)
        if (!lang) problems.push(`languages.enabled names ${e}, which is not a language code`)
        else if (!isProvisioned(toolchains, lang)) problems.push(`languages.enabled names ${e}, whose toolchain is not provisioned`)
      }
      if (!nsjail.installed) problems.push(`nsjail is not installed at ${nsjail.path}`)
      if (!supervisor.installed) problems.push(`the jail supervisor is not installed at ${supervisor.path}`)
      if (!cgroups.version) problems.push(`no usable cgroup memory controller (${cgroups.detail})`)
      const report = {
        ok: false,
        nsjail,
        supervisor,
        cgroups: { version: cgroups.version, detail: cgroups.detail },
        toolchains: { path: toolchains, exists: existsSync(toolchains) },
        /** Whether a program ran in the jail: some language's self-test echoed its input. */
        jail: { ok: false, tested_with: [] as string[] },
        /**
         * The prepared jails the self-tests ran in (one per toolchain root; each pool worker keeps its
         * own set, pool.size of them), how often each served and was built, and how long a build took.
         */
        prepared_jails: { enabled: config.pool.prepared_jails, per_worker: [] as { root: string; ready: boolean; runs: number; builds: number; build_ms: number }[] },
        languages: {} as Record<string, unknown>,
        not_provisioned: notProvisioned,
        problems,
      }
      for (const c of unknown) report.languages[c] = { ok: false, error: 'unknown language code' }
      const testable = chosen.filter((l) => !notProvisioned.includes(l.code))
      if (!nsjail.installed || !supervisor.installed || !cgroups.version) return report
      if (!testable.length) problems.push('the jail was not tested: no provisioned language to run its self-test in')
      const versions = recordedVersions(toolchains)
      const runner = createJobRunner(workerSettings(config), `doctor-${process.pid}`)
      try {
        for (const lang of testable) {
          const code = lang.code
          const input = 'arbiter doctor\n'
          const started = performance.now()
          try {
            const r = await runner.run({ language: code, source: lang.selftest, input, timeLimitSec: 5, memoryLimitKb: 262144 })
            // Plain Text's self-test is a text, printed as it is
            const expected = lang.sourceIsOutput ? lang.selftest : input
            const ok = r.compile.ok && r.run?.status === 'ok' && r.run.stdout.trim() === expected.trim()
            if (ok) report.jail.tested_with.push(code)
            else problems.push(`${code}: self-test failed`)
            report.languages[code] = {
              ok,
              version: versions[code]?.version ?? null,
              ms: Math.round(performance.now() - started),
              ...(ok ? {} : { compile: r.compile.message || undefined, status: r.run?.status, stdout: r.run?.stdout, stderr: r.run?.stderr }),
            }
          } catch (err) {
            problems.push(`${code}: ${(err as Error).message}`)
            report.languages[code] = { ok: false, error: (err as Error).message }
          }
        }
        const pool = await runner.pool()
        report.prepared_jails.per_worker = pool.map((j) => ({ root: j.root, ready: j.ready, runs: j.runs, builds: j.builds, build_ms: Math.round(j.buildUs / 100) / 10 }))
        // every self-test that ran did so in a prepared jail that stayed up: a jail rebuilt for each run is a fault
        if (config.pool.prepared_jails && report.jail.tested_with.length > 0) {
          if (pool.length === 0) problems.push('prepared jails are enabled but none was built')
          for (const j of pool) if (!j.ready) problems.push(`the prepared jail of ${j.root} is not up (see the slot's prepared-*.log)`)
          for (const j of pool) if (j.builds > 1) problems.push(`the prepared jail of ${j.root} was built ${j.builds} times for ${j.runs} runs (each rebuild follows a doubt about it)`)
        }
      } finally {
        await runner.close()
      }
      report.jail.ok = report.jail.tested_with.length > 0
      report.ok = problems.length === 0
      recordSelfTests(config.dataDir, report.languages as SelfTests['languages'])
      return report
    },
  },
}

/** Merges this run's results into selftest.json (a doctor run may test only some languages). */
function recordSelfTests(dataDir: string, results: SelfTests['languages']): void {
  const file = selfTestFile(dataDir)
  let known: SelfTests['languages'] = {}
  try {
    known = (JSON.parse(readFileSync(file, 'utf8')) as SelfTests).languages ?? {}
  } catch {
    // first run
  }
  const languages = { ...known }
  for (const [code, r] of Object.entries(results)) languages[code] = { ok: r.ok, ...(r.ms !== undefined && { ms: r.ms }), ...(r.error && { error: r.error }) }
  try {
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), languages } satisfies SelfTests, null, 2))
  } catch {
    // a read-only data directory: the report is still printed
  }
}
