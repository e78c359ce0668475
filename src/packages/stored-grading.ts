// A package's grading as it is kept with a stored problem and with each submission graded against it:
// the group tree (cases by name and position), each test's validator flags, score.txt's rule and the
// best score. Plain JSON, so the submission carries it through the queue. `problems verify` and a v4
// submission by problem_id grade their outcomes with the same function (gradeOutcomes, over
// group-grading.ts), so a stored problem is judged as the package says and as verify judged it.
import { z } from 'zod'
import type { TestOutcome, TestStatus } from '../grading/types.ts'
import { firstFailureDecides, gradeTree, type GradedVerdict, type GradingGroup, type GroupResult } from './group-grading.ts'
import type { PackageSpec } from './problem-yaml.ts'
import { isGroup, type TestGroup } from './test-data.ts'

export interface GradingCase {
  name: string
  /** Its position among the problem's tests (the job's test index). */
  index: number
}

export interface PackageGrading {
  /** A scoring problem: cases and groups carry scores (problemtools keeps none for pass-fail ones). */
  scoring: boolean
  /** The validator's score.txt (Job.validatorScores); absent: a score.txt is the validator's fault. */
  validatorScores?: 'allowed' | 'required'
  /** The best score (the root's range, its top or with objective min its bottom); null when unbounded or not scoring. */
  maxScore: number | null
  tree: GradingGroup<GradingCase>
  /** Each test's validator flags where its group adds some (problem.yaml's, then the group's: the last counts), by position. */
  testFlags: (string[] | null)[]
}

/** The grading of a package's data/ under its problem.yaml. */
export function packageGrading(spec: PackageSpec, data: TestGroup): PackageGrading {
  const testFlags: (string[] | null)[] = []
  const walk = (g: TestGroup): GradingGroup<GradingCase> => ({
    path: g.path,
    settings: { onReject: g.settings.onReject, graderFlags: [...g.settings.graderFlags], acceptScore: g.settings.acceptScore, rejectScore: g.settings.rejectScore },
    items: g.items.map((item) => {
      if (isGroup(item)) return walk(item)
      const flags = g.settings.outputValidatorFlags
      testFlags.push(flags.length ? [...spec.validatorFlags, ...flags] : null)
      return { name: item.name, index: testFlags.length - 1 }
    }),
  })
  const tree = walk(data)
  const scoring = spec.types.has('scoring')
  const [low, high] = data.settings.range
  const best = spec.objective === 'min' ? low : high
  return {
    scoring,
    ...(spec.customValidator && spec.customScores && { validatorScores: spec.customScores }),
    maxScore: scoring && Number.isFinite(best) ? best : null,
    tree,
    testFlags,
  }
}

/**
 * Whether the core's own rule (the first test that is not accepted decides, no scores) would judge
 * the package otherwise: then its grading is kept with the problem. Without it, a pass-fail package's
 * stored problem is graded and answered exactly as any stored problem.
 */
export function needsPackageGrading(g: PackageGrading): boolean {
  if (g.scoring || g.validatorScores || g.testFlags.some((f) => f)) return true
  const plain = (group: GradingGroup<GradingCase>): boolean =>
    group.settings.onReject === 'break' && group.settings.graderFlags.every((f) => f === 'first_error' || f === 'worst_error' || f === 'no_errors') && group.items.every((i) => !('items' in i) || plain(i))
  return !plain(g.tree)
}

/** Whether a job may stop at its first test that is not accepted (the later ones cannot change the result). */
export const stopsOnFirstFailure = (g: PackageGrading) => firstFailureDecides(g.tree)

/** A test's status as a grader's verdict: an internal error is the judge's (JE). */
export const gradedOfStatus = (o: TestOutcome): GradedVerdict => ({ AC: 'AC', WA: 'WA', TLE: 'TLE', MLE: 'MLE', RE: 'RTE', IE: 'JE', SKIPPED: 'AC' } as const)[o.status]

export interface PackageResult {
  verdict: GradedVerdict
  /** The root's score (scoring problems). */
  score?: number
  /** Every group's result, the root ('') last. */
  groups: GroupResult[]
  /** The test that decided a verdict other than AC (its position), if any. */
  decidedBy?: number
}

/**
 * Grades a job's outcomes (one per test, in order; SKIPPED or absent: not run) with the package's
 * groups. verdictOf names a test's verdict (verify counts a memory overrun as RTE, as problemtools).
 */
export function gradeOutcomes(g: PackageGrading, outcomes: (TestOutcome | undefined)[], verdictOf: (o: TestOutcome) => GradedVerdict = gradedOfStatus): PackageResult {
  const groups = gradeTree(
    g.tree,
    (c) => {
      const o = outcomes[c.index]
      if (!o || o.status === 'SKIPPED') return undefined
      return { verdict: verdictOf(o), ...(o.score !== undefined && { score: o.score }) }
    },
    g.scoring
  )
  const root = groups.at(-1)
  if (!root) return { verdict: 'JE', groups }
  const byName = new Map<string, number>()
  const index = (group: GradingGroup<GradingCase>): void => group.items.forEach((i) => ('items' in i ? index(i) : byName.set(i.name, i.index)))
  index(g.tree)
  const decidedBy = root.decidedBy !== undefined ? byName.get(root.decidedBy) : undefined
  return { verdict: root.verdict, ...(root.score !== undefined && { score: root.score }), groups, ...(decidedBy !== undefined && { decidedBy }) }
}

/** The submission's status of a package's verdict: the nearest of the v4 statuses (a grader's error is ours: IE). */
export const STATUS_OF_GRADED: Record<GradedVerdict, TestStatus> = { AC: 'AC', WA: 'WA', PE: 'WA', TLE: 'TLE', MLE: 'MLE', RTE: 'RE', OLE: 'RE', IF: 'IE', JE: 'IE' }

const GRADED_VERDICTS = ['AC', 'WA', 'TLE', 'RTE', 'MLE', 'OLE', 'PE', 'IF', 'JE'] as const

/** A v4 reply's score.package: what a package's grading gave a submission (kept with it at completion). */
export const PackageScore = z
  .object({
    verdict: z.enum(GRADED_VERDICTS).meta({ description: "The root group's verdict as problemtools names it (RTE, JE …); the submission's run_status.status is its v4 name." }),
    score: z.number().nullable().meta({ description: "The root group's score; null in a pass-fail problem." }),
    max_score: z.number().nullable().meta({ description: "The best score (the root's range); null when unbounded or pass-fail." }),
    groups: z
      .array(z.object({ group: z.string(), verdict: z.enum(GRADED_VERDICTS), score: z.number().nullable() }))
      .meta({ description: "Each group that ran, by its path under data/ (sample, secret/group1), children before their parent; the last, '', is data/ itself." }),
  })
  .meta({ id: 'PackageScore', description: "A Kattis/ICPC package's grading: its groups' verdicts and scores as problemtools grades them." })
export type PackageScore = z.infer<typeof PackageScore>

export const packageScore = (g: PackageGrading, r: PackageResult): PackageScore => ({
  verdict: r.verdict,
  score: r.score ?? null,
  max_score: g.maxScore,
  groups: r.groups.map((x) => ({ group: x.group, verdict: x.verdict, score: x.score ?? null })),
})
