// A problem package → a stored problem's input (tests in the format's order, the validator as the
// problem's checker, the limits) and the report of what was imported and what was left out. Refusals
// name the file and the rule (PackageRefused). The problem is then stored as any other problem
// (problems/problems.ts) and graded through the same core.
import type { CheckerSpec } from '../grading/checkers.ts'
import type { Job, JobResult } from '../jobs/types.ts'
import type { ProblemInput } from '../problems/problems.ts'
import { languageOfFiles } from './package-languages.ts'
import { PackageRefused, type PackageFiles } from './package-files.ts'
import { readPackageSpec, type PackageSpec } from './problem-yaml.ts'
import { casesOf, isGroup, readTestData, type TestGroup } from './test-data.ts'
import { parseValidatorFlags } from '../grading/default-validator.ts'
import { needsPackageGrading, packageGrading } from './stored-grading.ts'
import { MAX_VALIDATION_PASSES } from '../grading/checker-schema.ts'
import { readSubmissionRules, SUBMISSIONS_YAML, type SubmissionRule } from './submission-meta.ts'
import { BUILD_FILE, BUILD_RUN_LANG, RUN_FILE } from '../grading/build-run.ts'

export interface ImportReport {
  format: PackageSpec['format']
  type: string[]
  validator: { kind: 'default'; flags: string[] } | { kind: 'custom'; lang: string; main: string; files: string[]; flags: string[] }
  groups: { group: string; cases: number }[]
  time_limit: { seconds: number | null; from: string }
  memory_limit_kb: number | null
  submissions: { folder: string; files: string[] }[]
  ignored: string[]
}

export interface ImportedPackage {
  spec: PackageSpec
  data: TestGroup
  /** What submissions.yaml / submissions.json say of the submissions' language and entry point. */
  submissionRules: SubmissionRule[]
  problem: ProblemInput
  report: ImportReport
}

export interface ImportOptions {
  /** The problem's name when problem.yaml gives none (the zip's or folder's name). */
  fallbackName: string
  maxTests: number
  /** Read for `problems verify` only, not stored. */
  verifyOnly?: boolean
}

/** The custom output validator's files: output_validators/<name>/ (legacy) or output_validator/ (2023-07), one program. */
function validatorFiles(pkg: PackageFiles, spec: PackageSpec): { dir: string; files: [string, Buffer][] } | undefined {
  const root = spec.format === 'legacy' ? 'output_validators/' : 'output_validator/'
  const other = spec.format === 'legacy' ? 'output_validator/' : 'output_validators/'
  for (const p of pkg.files.keys()) if (p.startsWith(other)) pkg.skipped.push(`${p} (the ${spec.format} format reads ${root})`)
  const all = [...pkg.files.entries()].filter(([p]) => p.startsWith(root))
  if (!all.length) return undefined
  const tops = new Set(all.map(([p]) => p.slice(root.length).split('/')[0]))
  const nested = all.every(([p]) => p.slice(root.length).includes('/'))
  if (nested && tops.size > 1) throw new PackageRefused(root, `${tops.size} validators (${[...tops].join(', ')}): Arbiter runs one`)
  const dir = nested ? `${root}${[...tops][0]}/` : root
  const files = all.map(([p, b]) => [p.slice(dir.length), b] as [string, Buffer])
  const deep = files.find(([n]) => n.includes('/'))
  if (deep) throw new PackageRefused(`${dir}${deep[0]}`, 'a validator\'s files lie in one folder (no subfolders)')
  return { dir, files }
}

function customValidator(pkg: PackageFiles, spec: PackageSpec, flags: string[]): { checker: CheckerSpec; report: ImportReport['validator'] } {
  const found = validatorFiles(pkg, spec)
  const where = spec.format === 'legacy' ? 'output_validators/<name>/' : 'output_validator/'
  if (!found) throw new PackageRefused(where, `missing: problem.yaml asks for a custom validator (${spec.format === 'legacy' ? 'validation: custom' : 'type'})`)
  const names = found.files.map(([n]) => n)
  const text = (n: string, b: Buffer) => {
    const t = b.toString('utf8')
    if (Buffer.byteLength(t) !== b.length || t.includes('\uFFFD')) throw new PackageRefused(`${found.dir}${n}`, 'not UTF-8 text')
    return t
  }
  // problemtools' get_program: a folder with a build script is a build/run program, whatever else it holds
  if (names.includes(BUILD_FILE)) {
    const build = found.files.find(([n]) => n === BUILD_FILE)!
    if (!build[1].length) throw new PackageRefused(`${found.dir}${BUILD_FILE}`, 'an empty build script')
    return {
      checker: { type: 'output_validator', lang: BUILD_RUN_LANG, source: text(build[0], build[1]), files: found.files.filter(([n]) => n !== BUILD_FILE).map(([name, b]) => ({ name, content: text(name, b) })), flags, build: true },
      report: { kind: 'custom', lang: BUILD_RUN_LANG, main: `${found.dir}${BUILD_FILE}`, files: names.map((n) => `${found.dir}${n}`), flags },
    }
  }
  // without a build script, problemtools reads the folder as source files: a run script alone is no program
  const chosen = languageOfFiles(names)
  if (!chosen?.lang && names.includes(RUN_FILE)) throw new PackageRefused(`${found.dir}${RUN_FILE}`, 'a run script without a build script: problemtools runs a validator folder as build/run only when it has a build script (one that does nothing will do, the run script beside it)')
  if (!chosen?.lang) throw new PackageRefused(found.dir, `no source file in a language Arbiter offers (${names.join(', ')})`)
  const main = found.files.find(([n]) => n === chosen.main)!
  return {
    checker: {
      type: 'output_validator',
      lang: chosen.lang,
      source: text(main[0], main[1]),
      files: found.files.filter(([n]) => n !== chosen.main).map(([name, b]) => ({ name, content: text(name, b) })),
      flags,
    },
    report: { kind: 'custom', lang: chosen.lang, main: `${found.dir}${chosen.main}`, files: names.map((n) => `${found.dir}${n}`), flags },
  }
}

export function importPackage(pkg: PackageFiles, opts: ImportOptions): ImportedPackage {
  const spec = readPackageSpec(pkg.files, opts.fallbackName)
  const ignored = [...spec.ignored]
  const interactive = spec.types.has('interactive')
  const multiPass = spec.types.has('multi-pass')
  for (const t of ['interactive', 'multi-pass'] as const)
    if (spec.types.has(t) && !spec.customValidator) throw new PackageRefused('problem.yaml', `${t} problems need a custom output validator (${spec.format === 'legacy' ? 'output_validators/<name>/' : 'output_validator/'})`)
  if (multiPass && (!Number.isInteger(spec.validationPasses) || spec.validationPasses < 2 || spec.validationPasses > MAX_VALIDATION_PASSES))
    throw new PackageRefused('problem.yaml', `limits.validation_passes must be a whole number from 2 to ${MAX_VALIDATION_PASSES}`)
  const data = readTestData(pkg.files, ignored, spec.groupOverrides)
  const cases = casesOf(data)
  if (!cases.length) throw new PackageRefused('data/', 'no test cases (data/sample/*.in + .ans, data/secret/*.in + .ans)')
  if (cases.length > opts.maxTests) throw new PackageRefused('data/', `${cases.length} test cases, more than grading.max_tests (${opts.maxTests})`, true)
  let checker: CheckerSpec
  let validator: ImportReport['validator']
  if (spec.customValidator) {
    ;({ checker, report: validator } = customValidator(pkg, spec, spec.validatorFlags))
    // the validator runs beside the submission (interactive) and may ask for more passes (multi-pass)
    if (checker && typeof checker === 'object' && checker.type === 'output_validator') checker = { ...checker, ...(interactive && { interactive: true }), ...(multiPass && { passes: spec.validationPasses }) }
  }
  else {
    try {
      parseValidatorFlags(spec.validatorFlags)
    } catch (err) {
      throw new PackageRefused('problem.yaml', `validator_flags: ${(err as Error).message}`)
    }
    // each group's flags go to the same validator: an unknown one is refused naming its testdata.yaml
    for (const { group } of cases) {
      if (!group.settings.outputValidatorFlags.length) continue
      try {
        parseValidatorFlags([...spec.validatorFlags, ...group.settings.outputValidatorFlags])
      } catch (err) {
        throw new PackageRefused(`data/${group.path}/testdata.yaml`, `output_validator_flags: ${(err as Error).message}`)
      }
    }
    checker = { type: 'kattis', flags: spec.validatorFlags }
    validator = { kind: 'default', flags: spec.validatorFlags }
    const stray = [...pkg.files.keys()].filter((p) => /^output_validators?\//.test(p))
    for (const p of stray) ignored.push(`${p} (validation: default: the default validator judges)`)
  }
  const submissionRules = readSubmissionRules(pkg.files, ignored)
  const submissions = new Map<string, string[]>()
  for (const p of pkg.files.keys()) {
    if (p === SUBMISSIONS_YAML) continue
    const m = /^submissions\/([^/]+)\/(.+)$/.exec(p)
    if (m) submissions.set(m[1], [...(submissions.get(m[1]) ?? []), m[2]])
    else if (p.startsWith('submissions/')) ignored.push(p)
  }
  const groups: ImportReport['groups'] = []
  const count = (g: TestGroup) => {
    const direct = g.items.filter((i) => !isGroup(i)).length
    if (direct) groups.push({ group: g.path, cases: direct })
    g.items.forEach((i) => isGroup(i) && count(i))
  }
  count(data)
  // scores, groups that do not stop at their first rejection, per-group validator flags: kept with the
  // problem and graded by stored-grading.ts; a plain pass-fail package is stored as any problem
  const grading = packageGrading(spec, data)
  const memoryKb = spec.memoryMb !== undefined ? Math.round(spec.memoryMb * 1024) : undefined
  const report: ImportReport = {
    format: spec.format,
    type: [...spec.types],
    validator,
    groups,
    time_limit: spec.timeLimitSec !== undefined ? { seconds: spec.timeLimitSec, from: spec.timeLimitFrom! } : { seconds: null, from: 'none given: `problems verify` computes it from the accepted submissions as problemtools does; until then a submission\'s own time limit applies' },
    memory_limit_kb: memoryKb ?? null,
    submissions: [...submissions].sort(([a], [b]) => (a < b ? -1 : 1)).map(([folder, files]) => ({ folder, files: files.sort() })),
    ignored: [...ignored, ...pkg.skipped.map((p) => `${p} (not read: statements, attachments, input validators, generators and the like)`)],
  }
  return {
    spec,
    data,
    submissionRules,
    report,
    problem: {
      name: spec.name,
      tests: cases.map(({ test }) => ({ name: test.name, input: test.input, expected_output: test.answer })),
      checker,
      ...(spec.timeLimitSec !== undefined && { time_limit: spec.timeLimitSec }),
      ...(memoryKb !== undefined && { memory_limit: memoryKb }),
      ...(needsPackageGrading(grading) && { grading }),
    },
  }
}

/**
 * A package's custom validator must compile, or the package is refused naming its main file and the
 * compiler's message (rather than every test of every submission being IE later). It is compiled as a
 * graded job compiles it (the worker's checkerOnly job), so the compile cache keeps it for `scope`.
 */
export async function checkValidatorCompiles(imported: ImportedPackage, run: (job: Job) => Promise<JobResult>, scope?: string): Promise<void> {
  const checker = imported.problem.checker
  const report = imported.report.validator
  if (!checker || typeof checker !== 'object' || checker.type !== 'output_validator' || report.kind !== 'custom') return
  const result = await run({ language: checker.lang, source: checker.source, input: '', timeLimitSec: 1, memoryLimitKb: 262144, checker, checkerOnly: true, ...(scope && { cacheScope: scope }) })
  if (result.compile.ok) return
  const compiled = result.compile.message.startsWith('checker does not compile: ')
  const lines = result.compile.message.replace(/^checker does not compile: /, '').split('\n')
  const message = `${lines.slice(0, 20).join('\n')}${lines.length > 20 ? `\n… (${lines.length - 20} more lines)` : ''}`
  const what = checker.build ? 'the build script failed' : 'the validator does not compile'
  throw new PackageRefused(report.main, compiled ? `${what}: ${message}` : `the validator cannot be compiled here: ${message}`)
}
