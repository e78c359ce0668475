// Checks every provisioned language for real: its self-test compiles and echoes a line of stdin, and
// its syntax-error program fails with a message. In the jail (the worker, nsjail) when it is
// installed, else with a bare chroot into the toolchain root as nobody.
import { spawnSync } from 'node:child_process'
import {
  accessSync,
  chownSync,
  constants,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from './config.ts'
import { workerSettings } from './jobs/pool.ts'
import { createJobRunner, type JobRunner } from './jobs/worker.ts'
import {
  BASE_ENV,
  expandArgv,
  isProvisioned,
  loadLanguages,
  rootPath,
  type Language,
} from './languages.ts'
import { detectCgroups } from './sandbox/cgroups.ts'

const config = loadConfig()
const toolchains = config.paths.toolchains
const isRoot = process.getuid?.() === 0
const NOBODY = 65534
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

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
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

// ---------- a bare chroot, where the jail is not installed ----------

// A private mount namespace: the bind of the work dir, /proc and the /tmp tmpfs vanish with the
// process, so nothing is left mounted in the root and parallel test files do not see each other's.
const ENTER = [
  'set -e',
  'root=$1; work=$2; shift 2',
  'mount --bind "$work" "$root/work"',
  'mount -t proc proc "$root/proc"',
  'mount -t tmpfs -o size=256m,mode=1777 tmpfs "$root/tmp"',
  `exec chroot --userspec=${NOBODY}:${NOBODY} "$root" /usr/bin/env -i -C /work "$@"`,
].join('\n')

function inChroot(lang: Language, work: string, argv: string[], stdin: string) {
  const env = Object.entries({ ...BASE_ENV, ...lang.env }).map(([k, v]) => `${k}=${v}`)
  const args = expandArgv(argv, { memory_kb: MEMORY_KB, memory_mb: MEMORY_KB / 1024 })
  const t0 = performance.now()
  const r = spawnSync(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      ENTER,
      'enter',
      rootPath(toolchains, lang.root),
      work,
      ...env,
      ...args,
    ],
    { input: stdin, encoding: 'utf8', timeout: 120_000, maxBuffer: 16 << 20 }
  )
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    ms: Math.round(performance.now() - t0),
  }
}

function chrootBackend(): Backend {
  return {
    name: 'chroot',
    async check(lang, source, stdin) {
      const work = mkdtempSync(join(tmpdir(), `arbiter-${lang.code.toLowerCase()}-`))
      try {
        writeFileSync(join(work, lang.sourceFile), source)
        chownSync(work, NOBODY, NOBODY)
        chownSync(join(work, lang.sourceFile), NOBODY, NOBODY)
        const c = lang.compile ? inChroot(lang, work, lang.compile, '') : undefined
        const compiled = !c || c.code === 0
        // a failed compile must leave nothing to run
        if (!compiled) expect(readdirSync(work)).not.toContain('main')
        const r = compiled ? inChroot(lang, work, lang.run, stdin) : undefined
        return {
          compiled,
          compileMessage: c && !compiled ? `${c.stderr}${c.stdout}` : '',
          exitCode: r?.code ?? null,
          stdout: r?.stdout ?? '',
          stderr: r?.stderr ?? '',
          compileMs: c?.ms ?? 0,
          runMs: r?.ms ?? 0,
        }
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    },
    close: async () => {},
  }
}

const jailReady =
  executable(config.paths.nsjail) &&
  executable(config.paths.supervisor) &&
  !!detectCgroups().version
const backend = jailReady ? jailBackend() : chrootBackend()

const timings: string[] = []
afterAll(async () => {
  await backend.close()
  if (timings.length)
    console.log(`wall times in the ${backend.name} (compile / run):\n${timings.join('\n')}`)
})

const langs = [...loadLanguages().values()]

describe.each(langs.map((l) => [l.code, l] as const))(`%s (${backend.name})`, (code, lang) => {
  const why = !isRoot
    ? 'needs root (the jail or chroot)'
    : !isProvisioned(toolchains, lang)
      ? `toolchain ${lang.toolchain} is not provisioned in ${toolchains} (npm run provision -- --langs ${code})`
      : undefined

  if (why) {
    it.skip(`echoes a line of stdin: ${why}`, () => {})
    return
  }

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
