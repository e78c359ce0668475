// What goes over Redis between the API host and sandbox hosts, in BullMQ jobs. A job: its key (the
// submission's id and claim token), and the Job the local pool would run. A message back (the results
// queue): the key, the host, and a compile step, a test, the result, or an error. Both sides check what
// they read with these schemas: the host against its own limits (jail-protocol.ts), the API host so a
// broken or hostile host cannot put anything but a well-formed result into a submission.
import { z } from 'zod'
import { TestStatus } from '../grading/types.ts'
import { MAX_REPEAT, type Job } from '../jobs/types.ts'
import type { TestRefs } from './blobs.ts'

/** Queue of results, shared by every host. */
export const RESULTS_QUEUE = 'results'

/** One queue per set of languages: every host with the same set takes from the same queue. */
export const jobsQueueName = (hash: string) => `jobs-${hash}`

/** BullMQ job id of a claimed submission: its row id and claim token (BullMQ ids may not hold ':'); the core's own, in jobs. */
export { jobKey, parseJobKey } from '../jobs/progress.ts'

export interface JobMessage {
  key: string
  job: Job
  /** The tests' data by reference (blobs.ts): job.tests hold '' and these hashes name the data. */
  testRefs?: TestRefs[]
  /** Whether the API host shows the compile stage and tests as they end (v4): else only the result is sent. */
  progress?: boolean
}

/** How a host says a job's test data was not in Redis (expired, or Redis restarted empty): sent again, not failed. */
export const MISSING_TEST_DATA = 'missing test data: '

/**
 * What a host may send back, bounded by the API host's own caps: every text at most `maxText` characters
 * (a program's output is read back up to limits.output_cap_bytes; a multi-byte character counts once).
 */
export function resultMessageSchema(maxText: number, maxTests: number) {
  const text = z.string().max(maxText)
  const RunResult = z
    .object({
      status: z.enum(['ok', 'exit', 'signal', 'time', 'wall', 'memory', 'output', 'internal']),
      exitCode: z.number().int().nullable(),
      signal: z.string().max(32).nullable(),
      cpuSec: z.number().min(0),
      wallSec: z.number().min(0),
      memoryKb: z.number().min(0),
      stdout: text,
      stderr: text,
      textCut: z.boolean().optional(),
      message: z.string().max(4096).optional(),
      // when the step ended (an interactive problem's two wired steps are ordered by it)
      endUs: z.number().min(0).optional(),
    })
    .strict()
  const CompileOutcome = z.object({ ok: z.boolean(), message: text, step: RunResult.optional(), cached: z.boolean().optional() }).strict()
  const TestOutcome = z
    .object({
      status: TestStatus,
      statusDetail: z.string().max(64),
      timeUsedSec: z.number().min(0),
      memoryUsedKb: z.number().min(0),
      exitCode: z.number().int().nullable(),
      signal: z.string().max(32),
      checkerMessage: text,
      earned: z.number().min(0).max(1),
      stdout: text,
      score: z.number().finite().optional(),
    })
    .strict()
  const RunFigures = z.object({ cpuSec: z.number().min(0), wallSec: z.number().min(0), memoryKb: z.number().min(0) }).strict()
  const JobResult = z
    .object({ compile: CompileOutcome, run: RunResult.optional(), repeats: z.array(RunFigures).max(MAX_REPEAT).optional(), tests: z.array(TestOutcome).max(maxTests).optional() })
    .strict()
  const common = { key: z.string().max(40), host: z.string().max(128) }
  return z.discriminatedUnion('kind', [
    z.object({ ...common, kind: z.literal('compiled'), outcome: CompileOutcome }).strict(),
    z.object({ ...common, kind: z.literal('test'), index: z.number().int().min(0).max(maxTests), outcome: TestOutcome }).strict(),
    z.object({ ...common, kind: z.literal('result'), result: JobResult }).strict(),
    z.object({ ...common, kind: z.literal('error'), message: z.string().max(4096) }).strict(),
  ])
}
export type ResultMessage = z.infer<ReturnType<typeof resultMessageSchema>>
