// `cli grade`: a teacher's grader on the command line. Compiles once and runs each test of a folder in
// the jail (the same worker as graded v4 submissions), one line per test as it finishes, a summary with
// the score; exit code 0 only when every test passed. --json prints the API's `result` object (each
// test's `output` is its stdout itself: there is no server to link to).
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { CliExit, type CliCommands, type CliContext } from '../cli-types.ts'
import { eq } from 'drizzle-orm'
import type { Client } from '../clients/clients.ts'
import { loadProblemForGrading } from '../problems/problems.ts'
import { problems } from '../storage/schema.ts'
import { gradedVerdict } from './graded.ts'
import { CheckerSchema } from '../grading/checker-schema.ts'
import { workerSettings } from '../jobs/pool.ts'
import type { TestOutcome } from '../jobs/types.ts'
import { createJobRunner } from '../jobs/worker.ts'
import { isProvisioned, loadLanguages, resolveLanguage } from '../languages.ts'
import type { CheckerSpec } from '../grading/checkers.ts'
import { readTestDir } from '../grading/test-dir.ts'
import { gradeOutcomes, packageScore, STATUS_OF_GRADED, stopsOnFirstFailure } from '../packages/stored-grading.ts'
import type { JobSpec } from '../jobs/types.ts'
import { languageOfFiles } from '../packages/package-languages.ts'
import { planProgram, ProgramRefused, type ProgramFile } from '../packages/program-files.ts'
import type { Config } from '../config.ts'

/** A folder's files (a multi-file program): regular files only, no subfolders, within the job's caps. */
function readProgramDir(dir: string, limits: Config['limits']): ProgramFile[] {
  const files: ProgramFile[] = []
  let total = 0
  for (const name of readdirSync(dir).sort()) {
    const st = lstatSync(join(dir, name))
    if (!st.isFile()) throw new Error(`${join(dir, name)}: a program's folder holds regular files only (no subfolders, no links)`)
    if (files.length >= limits.files_max_count + 1) throw new Error(`${dir}: more than ${limits.files_max_count + 1} files (limits.files_max_count + the entry point)`)
    total += st.size
    if (total > limits.source_max_bytes + limits.files_max_bytes) throw new Error(`${dir}: larger than ${limits.source_max_bytes + limits.files_max_bytes} bytes in all`)
    files.push({ name, bytes: readFileSync(join(dir, name)) })
  }
  return files
}

/** A stored problem's tests and checker, read from this host's database and files. */
function storedProblem(ctx: CliContext, publicId: string) {
  return ctx.withDb((db, config) => {
    const row = db.select().from(problems).where(eq(problems.publicId, publicId)).get()
    if (!row) throw new Error(`no problem ${publicId}`)
    const p = loadProblemForGrading({ db, config }, { id: row.clientId } as Client, publicId)
    return { grading: p.grading, checker: p.checker, tests: p.tests.map((t) => ({ name: t.name, input: t.input, expectedOutput: t.expected_output, ...(t.time_limit !== undefined && { timeLimitSec: t.time_limit }) })) }
  })
}

/** --checker: a built-in name, or JSON such as {"type":"float","abs":1e-4}. */
function parseChecker(text: string | undefined): CheckerSpec {
  if (text === undefined) return 'lines'
  let value: unknown = text
  if (text.trim().startsWith('{')) {
    try {
      value = JSON.parse(text)
    } catch {
      throw new Error(`--checker is not valid JSON: ${text}`)
    }
  }
  const parsed = CheckerSchema.safeParse(value)
  if (!parsed.success) throw new Error(`--checker must be exact, lines, tokens, unordered, {"type":"float","abs":…,"rel":…} or {"type":"program","lang":…,"source":…}`)
  return parsed.data
}

const line = (name: string, o: TestOutcome) =>
  `test ${name.padEnd(8)} ${o.status.padEnd(7)} ${o.timeUsedSec.toFixed(3)} s ${String(o.memoryUsedKb).padStart(7)} KB${o.statusDetail !== 'NA' ? `  ${o.statusDetail}` : ''}${o.checkerMessage ? `  ${o.checkerMessage}` : ''}`

export const gradeCommands: CliCommands = {
  grade: {
    summary: 'grade --lang LANG --source FILE|DIR [--entry-point NAME] (--tests DIR | --problem ID) [--checker C] [--stop-on-first-failure] [--time-limit S] [--memory-limit KB] [--json]',
    options: {
      lang: { type: 'string' },
      source: { type: 'string' },
      'entry-point': { type: 'string' },
      tests: { type: 'string' },
      problem: { type: 'string' },
      checker: { type: 'string' },
      'stop-on-first-failure': { type: 'boolean' },
      'time-limit': { type: 'string' },
      'memory-limit': { type: 'string' },
      json: { type: 'boolean' },
    },
    async run({ values }, ctx) {
      const config = ctx.config()
      if (typeof values.source !== 'string' || (typeof values.tests === 'string') === (typeof values.problem === 'string'))
        throw new Error('--source and one of --tests DIR or --problem ID are required (and --lang, unless --source is a folder)')
      // a folder is a multi-file program: its language by its files' extensions unless --lang names it
      const folder = statSync(values.source).isDirectory() ? readProgramDir(values.source, config.limits) : undefined
      const code = typeof values.lang === 'string' ? values.lang : folder && languageOfFiles(folder)?.lang
      if (!code) throw new Error(folder ? `${values.source}: no file in a language Arbiter offers; give --lang` : '--lang is required')
      const lang = resolveLanguage(loadLanguages(), code)
      if (!lang) throw new Error(`unknown language code ${code}`)
      if (!isProvisioned(config.paths.toolchains, lang)) throw new Error(`lang '${code}' is not provisioned on this server; provision it with: npm run provision -- --langs ${lang.code}`)
      let program: { source: string } & Pick<JobSpec, 'files' | 'compileArgv'> | undefined
      if (folder) {
        try {
          const plan = planProgram(folder, lang, { entryPoint: typeof values['entry-point'] === 'string' ? values['entry-point'] : undefined })
          program = { source: plan.source, ...(plan.files && { files: plan.files }), ...(plan.compileArgv && { compileArgv: plan.compileArgv }) }
        } catch (err) {
          if (err instanceof ProgramRefused) throw new Error(`${values.source}: ${err.message}`)
          throw err
        }
      }
      const stored = typeof values.problem === 'string' ? storedProblem(ctx, values.problem) : undefined
      const checker = values.checker === undefined && stored ? stored.checker : parseChecker(values.checker as string | undefined)
      const grading = stored?.grading
      const tests = stored ? stored.tests : readTestDir(values.tests as string, config.grading.total_max_bytes)
      if (tests.length > config.grading.max_tests) throw new Error(`more than grading.max_tests (${config.grading.max_tests}) tests`)
      const timeLimitSec = Math.min(Number(values['time-limit'] ?? config.limits.default_time_sec), config.limits.max_time_sec)
      const memoryLimitKb = Math.min(Number(values['memory-limit'] ?? config.limits.default_memory_kb), config.limits.max_memory_kb)
      if (!(timeLimitSec > 0) || !(memoryLimitKb > 0)) throw new Error('--time-limit and --memory-limit must be positive numbers')
      const source = program?.source ?? readFileSync(values.source, 'utf8')
      const json = values.json === true
      // progress: one line per test on stdout, or with --json on stderr when that is a terminal
      const progress = json ? (process.stderr.isTTY ? (s: string) => process.stderr.write(`${s}\n`) : () => {}) : (s: string) => process.stdout.write(`${s}\n`)
      const runner = createJobRunner(workerSettings(config), `grade-${process.pid}`)
      try {
        const result = await runner.run(
          {
            language: lang.code, ...program, source, input: '', timeLimitSec, memoryLimitKb, tests, checker, stopOnFirstFailure: values['stop-on-first-failure'] === true,
            // a stored package's grading, as a v4 submission gets it: each test's group flags, score.txt's rule, its own stop rule
            ...(grading && {
              tests: tests.map((t, i) => (grading.testFlags[i] ? { ...t, checkerFlags: grading.testFlags[i]! } : t)),
              stopOnFirstFailure: stopsOnFirstFailure(grading),
              ...(grading.validatorScores && { validatorScores: grading.validatorScores }),
            }),
          },
          {
            onCompiled: (c) => progress(c.ok ? `compiled ${lang.code}` : `compile error`),
            onTest: (i, o) => progress(line(tests[i].name, o)),
          }
        )
        if (result.compile.step?.status === 'internal') throw new Error(`sandbox: ${result.compile.step.message}`)
        const outcomes = result.tests ?? []
        const passed = outcomes.filter((o) => o.status === 'AC').length
        const pkg = grading && outcomes.length ? packageScore(grading, gradeOutcomes(grading, outcomes)) : undefined
        const score = { passed, total: tests.length, points: passed, max_points: tests.length, ...(pkg && { package: pkg }) }
        const first = outcomes.length ? gradedVerdict(outcomes) : undefined
        const v = first && pkg ? { ...first, verdict: STATUS_OF_GRADED[pkg.verdict] } : first
        if (json) {
          process.stdout.write(
            JSON.stringify(
              {
                compile_status: result.compile.ok ? 'OK' : result.compile.message,
                run_status: v
                  ? { status: v.verdict, time_used: v.timeUsedSec.toFixed(6), memory_used: String(v.memoryUsedKb), signal: v.signal, exit_code: v.exitCode === null ? '' : String(v.exitCode), status_detail: v.statusDetail, output: v.stdout }
                  : { status: 'CE' },
                ...(v && {
                  tests: outcomes.map((o, i) => ({
                    id: tests[i].name, status: o.status, status_detail: o.statusDetail, time_used: o.timeUsedSec.toFixed(6), memory_used: String(o.memoryUsedKb),
                    exit_code: o.exitCode === null ? '' : String(o.exitCode), points: o.earned, checker_message: o.checkerMessage, output: o.stdout,
                  })),
                  score,
                }),
              },
              null,
              2
            ) + '\n'
          )
        } else if (!result.compile.ok) {
          process.stdout.write(`${result.compile.message}\n`)
        } else {
          progress(`score: ${passed} of ${tests.length} tests passed (${v!.verdict})`)
          if (pkg) progress(`package: ${pkg.verdict}${pkg.score !== null ? ` ${pkg.score}${pkg.max_score !== null ? ` of ${pkg.max_score}` : ''}` : ''}; ${pkg.groups.map((g) => `${g.group || 'data'} ${g.verdict}${g.score !== null ? ` ${g.score}` : ''}`).join(', ')}`)
        }
        return new CliExit(result.compile.ok && (pkg ? pkg.verdict === 'AC' : passed === tests.length) ? 0 : 1)
      } finally {
        await runner.close()
      }
    },
  },
}
