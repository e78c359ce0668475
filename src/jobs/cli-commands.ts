// CLI commands of the sandbox side: `doctor` (does the jail work, with which cgroups, and does each
// provisioned language pass its self-test) and `languages` (every code, its real version).
import { accessSync, constants, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CliCommands } from '../cli.ts'
import { loadConfig } from '../config.ts'
import { isProvisioned, loadLanguages, type Language } from '../languages.ts'
import { detectCgroups } from '../sandbox/cgroups.ts'
import { workerSettings } from './pool.ts'
import { createJobRunner } from './worker.ts'

interface VersionRecord {
  version: string
  reported: string
}

function recordedVersions(toolchains: string): Record<string, VersionRecord> {
  try {
    return JSON.parse(readFileSync(join(toolchains, 'versions.json'), 'utf8')).languages ?? {}
  } catch {
    return {}
  }
}

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
    async run() {
      const config = loadConfig()
      return languageListing(config.paths.toolchains, loadLanguages())
    },
  },
  doctor: {
    summary: 'check nsjail, cgroups and each provisioned language (self-test in the jail); --lang C,PYTHON3 to narrow',
    options: codesOption,
    async run({ values }) {
      const config = loadConfig()
      const langs = loadLanguages()
      const cgroups = detectCgroups()
      const nsjail = { path: config.paths.nsjail, installed: executable(config.paths.nsjail) }
      const supervisor = { path: config.paths.supervisor, installed: executable(config.paths.supervisor) }
      const report = {
        ok: false,
        nsjail,
        supervisor,
        cgroups: { version: cgroups.version, detail: cgroups.detail },
        toolchains: { path: config.paths.toolchains, exists: existsSync(config.paths.toolchains) },
        languages: {} as Record<string, unknown>,
      }
      if (!nsjail.installed || !supervisor.installed || !cgroups.version) return report
      const versions = recordedVersions(config.paths.toolchains)
      const runner = createJobRunner(workerSettings(config), `doctor-${process.pid}`)
      let allOk = true
      try {
        for (const code of pick(langs, values.lang)) {
          const lang = langs.get(code)
          if (!lang) {
            report.languages[code] = { ok: false, error: 'unknown language code' }
            allOk = false
            continue
          }
          if (!isProvisioned(config.paths.toolchains, lang)) {
            report.languages[code] = { ok: false, provisioned: false }
            continue
          }
          const input = 'arbiter doctor\n'
          const started = performance.now()
          try {
            const r = await runner.run({ language: code, source: lang.selftest, input, timeLimitSec: 5, memoryLimitKb: 262144 })
            const ok = r.compile.ok && r.run?.status === 'ok' && r.run.stdout.trim() === input.trim()
            allOk &&= ok
            report.languages[code] = {
              ok,
              version: versions[code]?.version ?? null,
              ms: Math.round(performance.now() - started),
              ...(ok ? {} : { compile: r.compile.message || undefined, status: r.run?.status, stdout: r.run?.stdout, stderr: r.run?.stderr }),
            }
          } catch (err) {
            allOk = false
            report.languages[code] = { ok: false, error: (err as Error).message }
          }
        }
      } finally {
        await runner.close()
      }
      report.ok = allOk
      return report
    },
  },
}
