// CLI of problem packages: `problems import DIR|ZIP --client NAME` stores a Kattis/ICPC package as a
// problem of that client and prints the problem with the import's report (the API's reply);
// `problems verify DIR|ZIP` runs its submissions in the jail (the worker graded submissions use) and
// prints the table, exit code 0 only when every submission got its folder's verdict.
import { readFileSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import { CliExit, type CliCommands } from '../cli-types.ts'
import type { Config } from '../config.ts'
import { isProvisioned, loadLanguages, offeredLanguage, resolveLanguage } from '../languages.ts'
import { workerSettings } from '../jobs/pool.ts'
import { createJobRunner } from '../jobs/worker.ts'
import { verifyPackage, verifyTable } from './verify.ts'
import { clientNamed } from '../problems/cli-commands.ts'
import { createProblem, problemReply } from '../problems/problems.ts'
import { checkValidatorCompiles, importPackage } from './import.ts'
import { readPackageDir, readPackageZip, type PackageFiles } from './package-files.ts'

/** A package from a folder or a zip, under the problems' caps. */
export async function readPackage(path: string, config: Config): Promise<PackageFiles> {
  const g = config.grading
  const caps = { maxFiles: 4 * g.max_tests + 4096, fileBytes: g.test_max_bytes, totalBytes: g.total_max_bytes }
  return statSync(path).isDirectory() ? readPackageDir(path, caps) : readPackageZip(readFileSync(path), caps)
}

export const packageCommands: CliCommands = {
  'problems import': {
    summary: 'problems import DIR|ZIP --client NAME: store a Kattis/ICPC problem package; prints its problem_id and what was imported and ignored',
    options: { client: { type: 'string' }, json: { type: 'boolean' } },
    async run({ values, positionals }, ctx) {
      const path = positionals[0]
      if (!path || typeof values.client !== 'string') throw new Error('usage: problems import DIR|ZIP --client NAME')
      const config = ctx.config()
      const pkg = await readPackage(path, config)
      const imported = importPackage(pkg, { fallbackName: basename(path).replace(/\.zip$/i, ''), maxTests: config.grading.max_tests })
      const clientId = ctx.withDb((db) => clientNamed(db, values.client as string).id)
      const runner = createJobRunner(workerSettings(config), `import-${process.pid}`)
      try {
        await checkValidatorCompiles(imported, (job) => runner.run(job), `client:${clientId}`)
      } finally {
        await runner.close()
      }
      return ctx.withDb((db) => {
        const client = clientNamed(db, values.client as string)
        const { problem } = createProblem({ config, db, languages: loadLanguages(), now: () => new Date() }, client, imported.problem)
        return { ...problemReply(problem), package: imported.report }
      })
    },
  },
}

/**
 * A Python source's syntax check, as py_compile does it (compile() of the file), in Python 2.7 and 3;
 * on an error the exception's own line first (SyntaxError: …), then where it is, and exit 1. One line:
 * the supervisor's requests are line-based.
 */
export const PY_SYNTAX_CHECK =
  "import sys,traceback;f=sys.argv[1];sys.excepthook=lambda t,e,b:sys.stderr.write(''.join(traceback.format_exception_only(t,e)[-1:]+traceback.format_exception_only(t,e)[:-1]));compile(open(f,'rb').read(),f,'exec')"

/** A progress bar on a terminal (stderr), nothing otherwise. */
function progressBar(done: number, total: number, label: string) {
  if (!process.stderr.isTTY) return
  const width = 30
  const filled = total ? Math.round((done / total) * width) : width
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label.slice(0, 40).padEnd(40)}${done === total ? '\n' : ''}`)
}

packageCommands['problems verify'] = {
  summary: 'problems verify DIR|ZIP [--json]: run every submission of a Kattis/ICPC package and check its verdict against its folder (exit 0 only when all do)',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, ctx) {
    const path = positionals[0]
    if (!path) throw new Error('usage: problems verify DIR|ZIP [--json]')
    const config = ctx.config()
    const pkg = await readPackage(path, config)
    const imported = importPackage(pkg, { fallbackName: basename(path).replace(/\.zip$/i, ''), maxTests: config.grading.max_tests, verifyOnly: true })
    const submissions = new Map([...pkg.files].filter(([p]) => p.startsWith('submissions/') && p.split('/').length >= 3))
    const languages = loadLanguages()
    const canRun = (code: string) => {
      const lang = resolveLanguage(languages, code)
      return !!lang && offeredLanguage(languages, config, code).ok && isProvisioned(config.paths.toolchains, lang)
    }
    const memoryLimitKb = Math.min(imported.problem.memory_limit ?? config.limits.default_memory_kb, config.limits.max_memory_kb)
    const runner = createJobRunner(workerSettings(config), `verify-${process.pid}`)
    try {
      const report = await verifyPackage(imported, submissions, {
        canRun,
        language: (code) => resolveLanguage(languages, code),
        domjudge: pkg.files.has('domjudge-problem.ini'),
        run: (job) => runner.run(job),
        maxTimeSec: config.limits.max_time_sec,
        memoryLimitKb,
        // gcc 14 refuses what older gcc (problemtools' and the judges' Debian) only warned about, such as
        // an implicit declaration (hello's hello_alarm.c): a package's C is compiled as they compile it
        compileArgv: (code) => {
          const lang = resolveLanguage(languages, code)
          if (code === 'C' && lang?.compile?.[0] === 'gcc') return [lang.compile[0], '-fpermissive', ...lang.compile.slice(1)]
          // problemtools links OCaml with unix, str (and bigarray, part of OCaml 5's standard library)
          if (code === 'OCAML' && lang?.compile?.[0] === 'ocamlopt') return [lang.compile[0], '-I', '+unix', '-I', '+str', 'unix.cmxa', 'str.cmxa', ...lang.compile.slice(1)]
          // problemtools compiles Python with py_compile: a syntax error is a compile error, not a run's
          if ((code === 'PYTHON3' || code === 'PYTHON') && lang && !lang.compile?.length && /python/.test(lang.run[0])) return [lang.run[0], '-S', '-c', PY_SYNTAX_CHECK, lang.sourceFile]
          return undefined
        },
        // problemtools runs Prolog as `swipl -c {files}` with the goal main: every file loaded, main called
        // (a package's Prolog has no initialization directive of its own)
        runArgv: (code, files) => {
          const lang = resolveLanguage(languages, code)
          if (code !== 'PROLOG_SWI' || lang?.run[0] !== 'swipl') return undefined
          const prologFiles = files.filter((f) => /\.(pl|plg)$/.test(f)).map((f) => `'${f.replace(/'/g, "''")}'`)
          return ['swipl', '-O', '-q', '-g', `consult([${prologFiles.join(',')}])`, '-g', 'main', '-t', 'halt']
        },
        onRow: (row, done, total) => progressBar(done, total, row.file),
      })
      process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${verifyTable(report)}\n`)
      return new CliExit(report.ok ? 0 : 1)
    } finally {
      await runner.close()
    }
  },
}
