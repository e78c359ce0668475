// What judging one test decides: its status and outcome. The judge's rules own these; jobs carry them,
// the sandbox hosts' wire checks them and the HackerEarth replies show them.
import { z } from 'zod'

export const TestStatus = z.enum(['AC', 'WA', 'TLE', 'MLE', 'RE', 'SKIPPED', 'IE'])
export type TestStatus = z.infer<typeof TestStatus>

/** One test's outcome, judged in the worker (the expected output never leaves it). */
export interface TestOutcome {
  status: TestStatus
  /** 'NA', the RE detail (SIGSEGV, NZEC …), or for WA what the checker says in one word ('PE'). */
  statusDetail: string
  timeUsedSec: number
  memoryUsedKb: number
  exitCode: number | null
  signal: string
  /** The checker's message (the first difference), '' when AC or not judged. */
  checkerMessage: string
  /** Fraction of the test's points earned: 1 for AC, 0 otherwise. */
  earned: number
  stdout: string
  /** What an output validator's score.txt said (Job.validatorScores), when it wrote one. */
  score?: number
}
