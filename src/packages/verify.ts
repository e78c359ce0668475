// Verifying a package as problemtools' verifyproblem does: every submission in submissions/<folder>/
// is graded against the package's tests (the same job the worker runs for a graded submission), and
// its verdict is compared with the one its folder (or DOMjudge's @EXPECTED_RESULTS@ comment) expects.
// When the package gives no time limit, the accepted submissions run first and the limit is
// max(1, ceil(slowest CPU × multiplier / resolution)) × resolution; the others run at that limit
// with the safety margin as extra CPU time, as problemtools' check "OK with extra time" allows.
import type { Job, JobResult, JobTest, TestOutcome } from '../jobs/types.ts'
import type { GradedVerdict, GroupResult } from './group-grading.ts'
import type { ImportedPackage } from './import.ts'
import type { Language } from '../languages.ts'
import { languageOfFiles, packageLanguageById, type PackageLanguage } from './package-languages.ts'
import { entryPointFile, packageLanguageOf, planProgram, ProgramRefused, type ProgramPlan } from './program-files.ts'
import { submissionMeta } from './submission-meta.ts'
import { BUILD_ARGV, BUILD_FILE, BUILD_RUN_LANG, RUN_ARGV } from '../grading/build-run.ts'
import { gradeOutcomes, packageGrading, stopsOnFirstFailure, type PackageGrading } from './stored-grading.ts'
import { casesOf } from './test-data.ts'

export type PackageVerdict = 'AC' | 'WA' | 'TLE' | 'RTE' | 'CE' | 'JE'

/** The verdicts each folder expects (problemtools' five, DOMjudge's compiler_error). */
export const FOLDER_VERDICTS: Record<string, PackageVerdict[]> = {
  accepted: ['AC'],
  // problemtools: AC with a score, not the full one (a full score only warns)
  partially_accepted: ['AC'],
  wrong_answer: ['WA'],
  time_limit_exceeded: ['TLE'],
  run_time_error: ['RTE'],
  compiler_error: ['CE'],
}

/** DOMjudge's @EXPECTED_RESULTS@ names → verdicts. */
const DOMJUDGE_RESULTS: Record<string, PackageVerdict> = {
  CORRECT: 'AC',
  'WRONG-ANSWER': 'WA',
  WRONG_ANSWER: 'WA',
  'NO-OUTPUT': 'WA',
  TIMELIMIT: 'TLE',
  'RUN-ERROR': 'RTE',
  RUN_TIME_ERROR: 'RTE',
  'OUTPUT-LIMIT': 'RTE',
  'COMPILER-ERROR': 'CE',
}

/** The verdicts a DOMjudge submission's @EXPECTED_RESULTS@: comment allows, if it has one. */
export function expectedResults(source: string): PackageVerdict[] | undefined {
  const m = /@EXPECTED_RESULTS@:\s*([A-Za-z_, -]+)/.exec(source.slice(0, 64 * 1024))
  if (!m) return undefined
  const list = m[1].split(/[\s,]+/).filter(Boolean).map((r) => DOMJUDGE_RESULTS[r.toUpperCase()])
  return list.every(Boolean) && list.length ? list : undefined
}

/** A test's status as problemtools names it: a memory overrun crashes the program there (RTE). */
const verdictOfTest = (o: TestOutcome): PackageVerdict => ({ AC: 'AC', WA: 'WA', TLE: 'TLE', MLE: 'RTE', RE: 'RTE', IE: 'JE', SKIPPED: 'AC' } as const)[o.status]

/** Pass-fail with problemtools' defaults: the first case that is not accepted decides; all accepted is AC. */
export function verdictOf(result: JobResult): PackageVerdict {
  if (!result.compile.ok) return 'CE'
  const failed = (result.tests ?? []).find((t) => t.status !== 'AC' && t.status !== 'SKIPPED')
  return failed ? verdictOfTest(failed) : 'AC'
}

/** The package's verdict of a graded job: its groups graded as problemtools grades them (stored-grading.ts, as a stored problem's). */
export function gradedVerdict(grading: PackageGrading, result: JobResult): { verdict: PackageVerdict; score?: number; groups: GroupResult[]; decidedBy?: number } {
  if (!result.compile.ok) return { verdict: 'CE', groups: [] }
  const graded = gradeOutcomes(grading, result.tests ?? [], (o) => verdictOfTest(o) as GradedVerdict)
  // a grader's MLE/OLE/PE/IF: no folder expects them; RTE, WA, JE are the nearest names
  const verdict = (({ MLE: 'RTE', OLE: 'RTE', PE: 'WA', IF: 'JE' }) as Record<string, PackageVerdict>)[graded.verdict] ?? (graded.verdict as PackageVerdict)
  return { ...graded, verdict }
}

export interface SubmissionRow {
  file: string
  folder: string
  expected: PackageVerdict[]
  lang?: string
  /** A multi-file submission's entry point (its folder's file), and how many files lie beside it. */
  main?: string
  others?: number
  got?: PackageVerdict
  /** A scoring problem's score (the root group's). */
  score?: number
  /** Slowest test's CPU seconds. */
  time?: number
  /** 'pass' | 'fail' | why it was not run. */
  outcome: 'pass' | 'fail' | 'not offered' | 'not judged'
  note?: string
}

export interface VerifyReport {
  problem: string
  /** A scoring problem's best score (the root group's range; objective min: its bottom). */
  maxScore?: number
  timeLimitSec: number
  timeLimitFrom: string
  rows: SubmissionRow[]
  ok: boolean
}

/** What a verify is doing: its accepted submissions first when the package gives no time limit, then the rest. */
export type VerifyStage = 'accepted submissions, for the time limit' | 'submissions'

export interface VerifyOptions {
  /** Whether Arbiter can run this language code here (offered and provisioned). */
  canRun(code: string): boolean
  /** Runs one graded job (the worker's run). */
  run(job: Job): Promise<JobResult>
  /** CPU seconds the accepted submissions may take when the limit is to be computed (limits.max_time_sec). */
  maxTimeSec: number
  memoryLimitKb: number
  /** The manifest's language of a code (a multi-file submission's commands are made from it). */
  language?(code: string): Language | undefined
  /** A DOMjudge package (domjudge-problem.ini): `.pl` is Perl, as DOMjudge reads it. */
  domjudge?: boolean
  /** A run command other than the language's, for a package's submission of these files (the entry point first, as written). */
  runArgv?(code: string, files: string[]): string[] | undefined
  /** A compile command other than the language's, for a package's submissions (see the CLI). */
  compileArgv?(code: string): string[] | undefined
  onRow?: (row: SubmissionRow, done: number, total: number) => void
  /** A stage starts: every row (filled in as runs end) and how many runs there are in all. */
  onStage?: (stage: VerifyStage, rows: SubmissionRow[], total: number) => void
  /** Only the accepted submissions run, for the time limit (an import's), when the package gives none. */
  timeLimitOnly?: boolean
  /**
   * How many submissions run at once (default 1): opts.run must take that many jobs at a time. Runs
   * still start in the table's order, and the rows keep it.
   */
  parallel?: number
}

/** fn over items, at most `limit` at once, started in the items' order. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane))
}

/**
 * A language a package names for a submission: a code of the format's table or DOMjudge's id
 * (package-languages.ts), else Arbiter's own code; its main file among the files of that language
 * (main.* first), else the first.
 */
function declaredLanguage(word: string, names: string[], opts: VerifyOptions): { lang: string; language: PackageLanguage; main: string } | undefined {
  const manifest = opts.language?.(word)
  const language = packageLanguageById(word) ?? (manifest && packageLanguageOf(manifest))
  if (!language) return undefined
  const ours = names.filter((n) => language.extensions.includes(n.slice(n.lastIndexOf('.') + 1))).sort()
  const main = ours.find((n) => /^main\./i.test(n)) ?? ours[0] ?? [...names].sort()[0]
  // Arbiter's own code names its language exactly (CPP20 rather than the table's C++ code)
  return { lang: manifest && !packageLanguageById(word) ? manifest.code : (language.code ?? ''), language, main }
}

export async function verifyPackage(pkg: ImportedPackage, submissions: Map<string, Buffer>, opts: VerifyOptions): Promise<VerifyReport> {
  const { spec, problem } = pkg
  const grading = packageGrading(spec, pkg.data)
  // each case with its group's output_validator_flags after problem.yaml's (problemtools' order: a flag given twice, the last counts)
  const tests: JobTest[] = casesOf(pkg.data).map(({ test }, i) => ({
    input: test.input.toString('utf8'),
    expectedOutput: test.answer.toString('utf8'),
    ...(grading.testFlags[i] && { checkerFlags: grading.testFlags[i] }),
  }))
  const scoring = grading.scoring
  const [low, high] = pkg.data.settings.range
  const maxScore = scoring ? (spec.objective === 'min' ? low : high) : undefined
  const stopOnFirstFailure = stopsOnFirstFailure(grading)
  const rows: SubmissionRow[] = []
  const runnable: { row: SubmissionRow; source: string; plan?: ProgramPlan }[] = []
  // a submission is a file of a folder, or a folder of files (a multi-file submission)
  const programs = new Map<string, [string, Buffer][]>()
  for (const [path, bytes] of [...submissions].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [, folder, first, ...rest] = path.split('/')
    // submissions/submissions.yaml is the submissions' settings, not one of them
    if (first === undefined) continue
    const key = `${folder}/${first}${rest.length ? '/' : ''}`
    programs.set(key, [...(programs.get(key) ?? []), [rest.join('/') || first, bytes]])
  }
  for (const [key, files] of programs) {
    const folder = key.split('/')[0]
    // the package's own word (submissions.yaml, submissions.json) over the files' extensions
    const meta = submissionMeta(pkg.submissionRules ?? [], key)
    const declared = meta?.language !== undefined ? declaredLanguage(meta.language, files.map(([n]) => n), opts) : undefined
    const chosen = declared ?? languageOfFiles(files.map(([name, bytes]) => ({ name, bytes })), { domjudge: opts.domjudge })
    const main = files.find(([n]) => n === chosen?.main) ?? files[0]
    const source = main[1].toString('utf8')
    // DOMjudge's comment may be in any of a folder's sources
    const expected = expectedResults(source) ?? files.map(([, b]) => expectedResults(b.toString('utf8'))).find(Boolean) ?? FOLDER_VERDICTS[folder]
    const row: SubmissionRow = { file: key, folder, expected: expected ?? [], outcome: 'not judged' }
    rows.push(row)
    if (!expected) {
      row.note = `folder ${folder} is not one of ${Object.keys(FOLDER_VERDICTS).join(', ')}`
      continue
    }
    // problemtools' get_program: a submission folder with a build script is a build/run program
    if (key.endsWith('/') && files.some(([n]) => n === BUILD_FILE)) {
      row.lang = BUILD_RUN_LANG
      const deep = files.find(([n]) => n.includes('/'))
      if (deep) {
        row.outcome = 'fail'
        row.note = `${deep[0]}: a program's files lie in one folder (no subfolders)`
      } else if (!opts.canRun(BUILD_RUN_LANG)) {
        row.outcome = 'not offered'
        row.note = `build/run programs (${BUILD_RUN_LANG}) are not offered here`
      } else {
        const build = files.find(([n]) => n === BUILD_FILE)!
        const others = files.filter(([n]) => n !== BUILD_FILE)
        const plan: ProgramPlan = { main: BUILD_FILE, source: build[1].toString('utf8'), sourceFileName: BUILD_FILE, compileArgv: BUILD_ARGV, runArgv: RUN_ARGV }
        if (others.length) plan.files = others.map(([name, b]) => ({ name, contentBase64: b.toString('base64') }))
        row.main = BUILD_FILE
        row.others = others.length
        runnable.push({ row, source: plan.source, plan })
      }
      continue
    }
    if (meta?.language !== undefined && !declared) {
      row.outcome = 'fail'
      row.note = `${meta.from}: language "${meta.language}" is not a code of the format's languages table, DOMjudge's or Arbiter's`
      continue
    }
    row.lang = chosen?.lang || chosen?.language.name
    if (!chosen?.lang || !opts.canRun(chosen.lang)) {
      row.outcome = 'not offered'
      row.note = chosen ? `${chosen.language.name} is not offered here` : 'no known language'
      continue
    }
    if (files.length === 1 && !key.endsWith('/')) {
      runnable.push({ row, source })
      continue
    }
    // a folder: its entry point and the files beside it, as the judges choose them (program-files.ts)
    const lang = opts.language?.(chosen.lang)
    if (!lang) {
      row.outcome = 'not offered'
      row.note = `${chosen.language.name} is not offered here`
      continue
    }
    let entryPoint: string | undefined
    if (meta?.entryPoint !== undefined) {
      entryPoint = entryPointFile(meta.entryPoint, files.map(([n]) => n), chosen.language)
      if (!entryPoint) {
        row.outcome = 'fail'
        row.note = `${meta.from}: entrypoint "${meta.entryPoint}" names none of the files (${files.map(([n]) => n).join(', ')})`
        continue
      }
    }
    try {
      const plan = planProgram(files.map(([name, bytes]) => ({ name, bytes })), lang, { compileArgv: opts.compileArgv?.(chosen.lang), ...(entryPoint !== undefined && { entryPoint }) })
      row.main = plan.main
      row.others = files.length - 1
      runnable.push({ row, source: plan.source, plan })
    } catch (err) {
      if (!(err instanceof ProgramRefused)) throw err
      // the package's own fault, as problemtools' compile error of a submission is
      row.outcome = 'fail'
      row.note = err.message
    }
  }
  let done = 0
  const total = runnable.length
  const judge = async ({ row, source, plan }: (typeof runnable)[number], timeLimitSec: number, extra: number) => {
    const compileArgv = plan ? plan.compileArgv : opts.compileArgv?.(row.lang!)
    const language = opts.language?.(row.lang!)
    const runArgv = plan?.runArgv ?? (language && opts.runArgv?.(row.lang!, [language.sourceFile, ...(plan?.files ?? []).map((f) => f.name)]))
    const result = await opts.run({
      language: row.lang!,
      source,
      input: '',
      timeLimitSec,
      memoryLimitKb: opts.memoryLimitKb,
      tests,
      checker: problem.checker,
      stopOnFirstFailure,
      ...(grading.validatorScores && { validatorScores: grading.validatorScores }),
      ...(extra > 0 && { cpuExtraSec: extra }),
      ...(compileArgv && { compileArgv }),
      ...(plan?.files && { files: plan.files }),
      ...(runArgv && { runArgv }),
      ...(plan?.sourceFileName && { sourceFileName: plan.sourceFileName }),
    })
    const graded = gradedVerdict(grading, result)
    row.got = graded.verdict
    if (graded.score !== undefined) row.score = graded.score
    row.time = Math.max(0, ...(result.tests ?? []).filter((t) => t.status !== 'SKIPPED').map((t) => t.timeUsedSec))
    row.outcome = row.expected.includes(row.got) ? 'pass' : 'fail'
    const failed = graded.decidedBy !== undefined ? result.tests?.[graded.decidedBy] : undefined
    if (!result.compile.ok) row.note = result.compile.message.split('\n')[0]
    else if (failed?.checkerMessage) row.note = failed.checkerMessage.split('\n').slice(-1)[0]
    // problemtools only warns about these: a partial submission with the full score, an accepted one without it
    const full = row.got === 'AC' && (!scoring || row.score === maxScore)
    if (row.got === 'AC' && scoring && row.folder === 'partially_accepted' && full) row.note = 'fully accepted (problemtools warns: not partial)'
    if (row.got === 'AC' && scoring && row.folder === 'accepted' && !full && Number.isFinite(maxScore)) row.note = `score ${row.score} of ${maxScore} (problemtools warns: not the full score)`
    opts.onRow?.(row, ++done, total)
    return result
  }
  // the time limit: fixed by the package, or from the accepted submissions (problemtools' rule)
  let timeLimitSec = spec.timeLimitSec
  let timeLimitFrom = spec.timeLimitFrom ?? ''
  const accepted = runnable.filter((r) => r.row.folder === 'accepted')
  const first = timeLimitSec === undefined ? accepted : []
  if (first.length) opts.onStage?.('accepted submissions, for the time limit', rows, opts.timeLimitOnly ? first.length : total)
  const parallel = Math.max(1, opts.parallel ?? 1)
  await eachLimited(first, parallel, (r) => judge(r, opts.maxTimeSec, 0))
  if (timeLimitSec === undefined) {
    const slowest = Math.max(0, ...first.filter((r) => r.row.got === 'AC').map((r) => r.row.time ?? 0))
    const res = spec.timeResolution
    timeLimitSec = Math.min(opts.maxTimeSec, Math.max(1, Math.ceil((slowest * spec.acToTimeLimit) / res)) * res)
    timeLimitFrom = `computed: slowest accepted ${slowest.toFixed(2)} s CPU × ${spec.acToTimeLimit}, rounded up to ${res} s, at least 1 s${timeLimitSec === opts.maxTimeSec ? ` (capped at limits.max_time_sec ${opts.maxTimeSec})` : ''}`
  }
  if (opts.timeLimitOnly) return { problem: problem.name, ...(maxScore !== undefined && { maxScore }), timeLimitSec, timeLimitFrom, rows, ok: rows.every((r) => r.outcome !== 'fail') }
  opts.onStage?.('submissions', rows, total)
  const limit = timeLimitSec
  await eachLimited(runnable.filter((r) => !first.includes(r)), parallel, (r) => judge(r, limit, limit * (spec.timeLimitToTle - 1)))
  return { problem: problem.name, ...(maxScore !== undefined && { maxScore }), timeLimitSec, timeLimitFrom, rows, ok: rows.every((r) => r.outcome !== 'fail') }
}

/** The table verify prints: file, expected, got, time, pass/fail. */
export function verifyTable(report: VerifyReport): string {
  const head = ['file', 'expected', 'got', 'time', 'result']
  const body = report.rows.map((r) => [r.main ? `${r.file}${r.main} +${(r.others ?? 0)}` : r.file, r.expected.join('|') || '-', r.got ? `${r.got}${r.score !== undefined ? ` (${+r.score.toFixed(6)})` : ''}` : '-', r.time !== undefined ? `${r.time.toFixed(2)} s` : '-', r.outcome + (r.note ? ` (${r.note})` : '')])
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => Math.min(row[i].length, i === 4 ? 0 : 60))))
  const line = (cells: string[]) => cells.map((c, i) => (i === 4 ? c : c.padEnd(widths[i]))).join('  ')
  return [`${report.problem}: time limit ${report.timeLimitSec} s (${report.timeLimitFrom})`, line(head), ...body.map(line), report.ok ? 'every submission got its verdict' : 'some submissions did not get their verdict'].join('\n')
}
