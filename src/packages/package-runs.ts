// How a package's submissions are run here, for `problems verify`, for the time limit an import
// computes, and for a stored package's verify: which languages can run, the compile commands the
// judges use for them, the memory limit. And the import's time-limit step: the accepted submissions
// run as verify runs them first, and the limit is problemtools' rule over their CPU times.
import type { Config } from '../config.ts'
import type { Job, JobResult } from '../jobs/types.ts'
import { isProvisioned, offeredLanguage, resolveLanguage, type Language } from '../languages.ts'
import type { ImportedPackage } from './import.ts'
import { verifyPackage, type VerifyOptions } from './verify.ts'

/**
 * A Python source's syntax check, as py_compile does it (compile() of the file), in Python 2.7 and 3;
 * on an error the exception's own line first (SyntaxError: …), then where it is, and exit 1. One line:
 * the supervisor's requests are line-based.
 */
export const PY_SYNTAX_CHECK =
  "import sys,traceback;f=sys.argv[1];sys.excepthook=lambda t,e,b:sys.stderr.write(''.join(traceback.format_exception_only(t,e)[-1:]+traceback.format_exception_only(t,e)[:-1]));compile(open(f,'rb').read(),f,'exec')"

/**
 * problemtools' syntax check of an interpreted submission (its languages.yaml `compile`), run as the
 * compile step: a syntax error is a compile error, not a run that fails on every test. Only when the
 * manifest's run command is that interpreter (a language Arbiter runs another way is left as it is).
 */
function syntaxCheck(code: string, lang: Language): string[] | undefined {
  const file = lang.sourceFile
  if (code === 'RUBY' && lang.run[0] === 'ruby') return ['ruby', '-c', file]
  if (code === 'PHP' && lang.run[0] === 'php') return ['php', '-n', '-d', 'display_errors=stderr', '-d', 'html_errors=0', '-l', file]
  if ((code === 'JAVASCRIPT_NODE' || code === 'JAVASCRIPT') && lang.run[0] === 'node') return ['node', '--check', file]
  // compile-file's first value is NIL when the file could not be compiled (a reader error, an unbalanced form)
  if (code === 'LISP' && lang.run[0] === 'sbcl') return ['sbcl', '--noinform', '--no-sysinit', '--no-userinit', '--non-interactive', '--eval', `(if (equal (compile-file "${file}") nil) (sb-ext:exit :code 43) ())`]
  return undefined
}

/** The options verifyPackage needs to run a package's submissions here (run: the worker, the pool or the queue). */
export function packageRunOptions(config: Config, languages: Map<string, Language>, imported: ImportedPackage, domjudge: boolean, run: (job: Job) => Promise<JobResult>): VerifyOptions {
  return {
    canRun: (code) => {
      const lang = resolveLanguage(languages, code)
      return !!lang && offeredLanguage(languages, config, code).ok && isProvisioned(config.paths.toolchains, lang)
    },
    language: (code) => resolveLanguage(languages, code),
    domjudge,
    run,
    maxTimeSec: config.limits.max_time_sec,
    memoryLimitKb: Math.min(imported.problem.memory_limit ?? config.limits.default_memory_kb, config.limits.max_memory_kb),
    // gcc 14 refuses what older gcc (problemtools' and the judges' Debian) only warned about, such as
    // an implicit declaration (hello's hello_alarm.c): a package's C is compiled as they compile it
    compileArgv: (code) => {
      const lang = resolveLanguage(languages, code)
      if (code === 'C' && lang?.compile?.[0] === 'gcc') return [lang.compile[0], '-fpermissive', ...lang.compile.slice(1)]
      // problemtools links OCaml with unix, str (and bigarray, part of OCaml 5's standard library)
      if (code === 'OCAML' && lang?.compile?.[0] === 'ocamlopt') return [lang.compile[0], '-I', '+unix', '-I', '+str', 'unix.cmxa', 'str.cmxa', ...lang.compile.slice(1)]
      // problemtools compiles Python with py_compile: a syntax error is a compile error, not a run's
      if ((code === 'PYTHON3' || code === 'PYTHON') && lang && !lang.compile?.length && /python/.test(lang.run[0])) return [lang.run[0], '-S', '-c', PY_SYNTAX_CHECK, lang.sourceFile]
      // the other interpreted languages problemtools syntax-checks (languages.yaml's compile), the same way
      return lang && !lang.compile?.length ? syntaxCheck(code, lang) : undefined
    },
    // problemtools runs Prolog as `swipl -c {files}` with the goal main: every file loaded, main called
    // (a package's Prolog has no initialization directive of its own)
    runArgv: (code, files) => {
      const lang = resolveLanguage(languages, code)
      if (code !== 'PROLOG_SWI' || lang?.run[0] !== 'swipl') return undefined
      const prologFiles = files.filter((f) => /\.(pl|plg)$/.test(f)).map((f) => `'${f.replace(/'/g, "''")}'`)
      return ['swipl', '-O', '-q', '-g', `consult([${prologFiles.join(',')}])`, '-g', 'main', '-t', 'halt']
    },
  }
}

/** A package's submissions/ files (path → bytes): what verify runs and what a stored package keeps. */
export const submissionFiles = (files: Map<string, Buffer>) => new Map([...files].filter(([p]) => p.startsWith('submissions/') && p.split('/').length >= 3))

/**
 * The time limit of a package that gives none, decided at import as problemtools decides it: its
 * accepted submissions (those Arbiter can run) run with limits.max_time_sec, and the limit is
 * max(1, ceil(slowest CPU × multiplier / resolution)) × resolution, capped at limits.max_time_sec.
 * Sets the problem's time_limit and the report's; without an accepted submission that ran and was
 * accepted, the problem keeps none and the report says why. A fixed limit is left as it is.
 */
export async function decideTimeLimit(imported: ImportedPackage, files: Map<string, Buffer>, opts: VerifyOptions): Promise<void> {
  if (imported.spec.timeLimitSec !== undefined) return
  const report = await verifyPackage(imported, submissionFiles(files), { ...opts, timeLimitOnly: true })
  const accepted = report.rows.filter((r) => r.folder === 'accepted')
  const ran = accepted.filter((r) => r.got === 'AC')
  if (!ran.length) {
    const why = !accepted.length
      ? 'the package has no submissions/accepted/'
      : `no accepted submission was accepted here (${accepted.map((r) => `${r.file}: ${r.got ?? r.outcome}${r.note ? ` (${r.note})` : ''}`).join('; ')})`
    imported.report.time_limit = { seconds: null, from: `none given, and none computed: ${why}; a submission's own time limit applies` }
    return
  }
  imported.problem.time_limit = report.timeLimitSec
  imported.report.time_limit = { seconds: report.timeLimitSec, from: `${report.timeLimitFrom}, at import (${ran.length} of ${accepted.length} accepted submissions ran: ${ran.map((r) => `${r.file} ${(r.time ?? 0).toFixed(2)} s`).join(', ')})` }
}
