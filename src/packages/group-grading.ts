// A submission's verdict and score from its cases' results, as problemtools' verifyproblem grades a
// package (judge/submission_judge.py _judge_group, support/default_grader): a group's items run in
// order; with on_reject: break the group stops at its first item that is not AC; a case's score is
// its validator's score.txt, else the group's accept_score or reject_score; a JE among the results
// makes the group JE; otherwise the default grader aggregates the verdicts (worst_error unless
// first_error or always_accept; accept_if_any_accepted) and the scores (sum unless avg, min or max;
// ignore_sample keeps only the last result). The root group's result is the submission's.
import type { GroupSettings } from './test-data.ts'

/** Verdicts as problemtools names them (MLE, OLE and IF only come from a validator or grader). */
export type GradedVerdict = 'AC' | 'WA' | 'TLE' | 'RTE' | 'MLE' | 'OLE' | 'PE' | 'IF' | 'JE'

export interface CaseResult {
  verdict: GradedVerdict
  /** The output validator's score.txt, when it wrote one. */
  score?: number
}

export interface GroupResult {
  /** The group's path under data/ ('' is data/ itself). */
  group: string
  verdict: GradedVerdict
  /** Only in scoring problems (problemtools keeps no score for pass-fail ones). */
  score?: number
  /** The case that decided a verdict other than AC (the last result with the group's verdict), if any. */
  decidedBy?: string
}

/**
 * A group tree as grading reads it: a package's data/ (test-data.ts TestGroup) or the one stored with a
 * problem (stored-grading.ts), whose cases are names and positions.
 */
export interface GradingGroup<C extends { name: string }> {
  path: string
  settings: Pick<GroupSettings, 'onReject' | 'graderFlags' | 'acceptScore' | 'rejectScore'>
  items: (GradingGroup<C> | C)[]
}

const isGroup = <C extends { name: string }>(x: GradingGroup<C> | C): x is GradingGroup<C> => 'items' in x

const WORST_FIRST: GradedVerdict[] = ['JE', 'IF', 'RTE', 'MLE', 'TLE', 'OLE', 'WA', 'PE', 'AC']

/** support/default_grader: its flags over the children's (verdict, score) lines; its errors are JE 0. */
export function defaultGrader(results: { verdict: GradedVerdict; score: number }[], flags: string[]): { verdict: GradedVerdict; score: number } {
  let verdictOf = (v: GradedVerdict[]) => WORST_FIRST[Math.min(...[...v, 'AC' as const].map((x) => WORST_FIRST.indexOf(x)))]
  let scoreOf = (s: number[]) => s.reduce((a, b) => a + b, 0)
  let ignoreSample = false
  let anyAccepted = false
  for (const flag of flags) {
    if (flag === 'worst_error' || flag === 'no_errors') verdictOf = (v) => WORST_FIRST[Math.min(...[...v, 'AC' as const].map((x) => WORST_FIRST.indexOf(x)))]
    if (flag === 'first_error') verdictOf = (v) => v.find((x) => x !== 'AC') ?? 'AC'
    if (flag === 'always_accept') verdictOf = () => 'AC'
    if (flag === 'sum') scoreOf = (s) => s.reduce((a, b) => a + b, 0)
    if (flag === 'avg') scoreOf = (s) => s.reduce((a, b) => a + b, 0) / s.length
    if (flag === 'min') scoreOf = (s) => Math.min(...s)
    if (flag === 'max') scoreOf = (s) => Math.max(...s)
    if (flag === 'ignore_sample') ignoreSample = true
    if (flag === 'accept_if_any_accepted') anyAccepted = true
  }
  let kept = results
  if (ignoreSample) {
    // the grader asserts one or two results (the sample group's and the secret group's)
    if (kept.length < 1 || kept.length > 2) return { verdict: 'JE', score: 0 }
    kept = kept.slice(-1)
  }
  const verdicts = kept.map((r) => r.verdict)
  const verdict = anyAccepted && verdicts.includes('AC') ? 'AC' : verdictOf(verdicts)
  // the grader prints the score with %f: six decimals
  return { verdict, score: Number(scoreOf(kept.map((r) => r.score)).toFixed(6)) }
}

/**
 * Grades a group tree: result(case) gives each case's result (undefined: it was not run, which only
 * a case after a break may be). Returns every group's result, the root's last, or [] when the tree
 * holds no case.
 */
export function gradeTree<C extends { name: string }>(root: GradingGroup<C>, result: (test: C) => CaseResult | undefined, scoring: boolean): GroupResult[] {
  const all: GroupResult[] = []
  const grade = (group: GradingGroup<C>): GroupResult | undefined => {
    const s = group.settings
    const children: { verdict: GradedVerdict; score: number | undefined; from: string }[] = []
    for (const item of group.items) {
      let child: (typeof children)[number]
      if (isGroup(item)) {
        const sub = grade(item)
        if (!sub) continue
        child = { verdict: sub.verdict, score: sub.score, from: sub.decidedBy ?? item.path }
      } else {
        const r = result(item)
        if (!r) throw new Error(`case ${item.name} was needed but not run`)
        // scores apply only where the problem gives them: pass-fail cases carry none (0 to the grader)
        child = { verdict: r.verdict, score: r.score ?? (scoring ? (r.verdict === 'AC' ? s.acceptScore : s.rejectScore) : undefined), from: item.name }
      }
      children.push(child)
      if (child.verdict !== 'AC' && s.onReject === 'break') break
    }
    if (!children.length) return undefined
    const je = children.find((c) => c.verdict === 'JE')
    let out: GroupResult
    if (je) out = { group: group.path, verdict: 'JE', ...(je.score !== undefined && scoring && { score: je.score }), decidedBy: je.from }
    else {
      const graded = defaultGrader(children.map((c) => ({ verdict: c.verdict, score: c.score ?? 0 })), s.graderFlags)
      const matching = [...children].reverse().find((c) => c.verdict === graded.verdict)
      out = { group: group.path, verdict: graded.verdict, ...(scoring && { score: graded.score }), ...(graded.verdict !== 'AC' && matching && { decidedBy: matching.from }) }
    }
    all.push(out)
    return out
  }
  grade(root)
  return all
}

/**
 * Whether the first case that is not AC decides the submission, so the cases after it need not run:
 * every group breaks on a rejection and none accepts past one (always_accept, accept_if_any_accepted).
 */
export function firstFailureDecides<C extends { name: string }>(root: GradingGroup<C>): boolean {
  const s = root.settings
  if (s.onReject !== 'break' || s.graderFlags.some((f) => f === 'always_accept' || f === 'accept_if_any_accepted')) return false
  return root.items.every((i) => !isGroup(i) || firstFailureDecides(i))
}
