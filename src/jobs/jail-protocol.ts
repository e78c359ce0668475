// The jail daemon's wire protocol, one job per connection over a unix socket: the server writes one
// line of JSON `{job}`; the daemon answers with lines `{type:'compiled'}`, `{type:'test'}` per test of a
// graded job, then `{type:'result'}` or
// `{type:'error'}`, and closes. The request is checked against a strict zod schema bounded by the
// daemon's own limits: anything else is refused before it reaches the pool.
import type { Socket } from 'node:net'
import { z } from 'zod'
import type { Config } from '../config.ts'
import { CheckerSchema } from '../grading/checker-schema.ts'
import type { CompileOutcome, Job, JobResult, TestOutcome } from './types.ts'

/** The Job schema with bounds from the daemon's config (the server's own checks are not trusted). */
export function jobRequestSchema(config: Config) {
  const { limits, room } = config
  const maxTime = Math.max(limits.max_time_sec, room.time_limit_sec)
  const maxMemory = Math.max(limits.max_memory_kb, room.memory_limit_kb)
  const job = z
    .object({
      language: z.string().regex(/^[A-Za-z0-9_+#.-]{1,32}$/),
      source: z.string().max(Math.max(limits.source_max_bytes, room.max_code_bytes)),
      input: z.string().max(Math.max(limits.input_max_bytes, room.max_code_bytes)),
      timeLimitSec: z.number().positive().max(maxTime),
      memoryLimitKb: z.number().int().positive().max(maxMemory),
      compileOnly: z.boolean().optional(),
      tests: z
        .array(
          z
            .object({
              input: z.string().max(config.grading.test_max_bytes),
              expectedOutput: z.string().max(config.grading.test_max_bytes),
              timeLimitSec: z.number().positive().max(maxTime).optional(),
            })
            .strict()
        )
        .min(1)
        .max(config.grading.max_tests)
        .optional(),
      checker: CheckerSchema.optional(),
      stopOnFirstFailure: z.boolean().optional(),
      cacheScope: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/).optional(),
    })
    .strict()
  return z.object({ job }).strict()
}

// A field added to Job must be added to the schema above, or the daemon would refuse (or drop) it.
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false
const jobKeysMatch: SameKeys<z.infer<ReturnType<typeof jobRequestSchema>>['job'], Job> = true
void jobKeysMatch

/** Largest request line: source + input (JSON may escape each byte to 6) and some room. */
export const requestCap = (config: Config) =>
  6 * (Math.max(config.limits.source_max_bytes, config.room.max_code_bytes) + Math.max(config.limits.input_max_bytes, config.room.max_code_bytes) + config.grading.total_max_bytes + config.limits.source_max_bytes) +
  4096 * (config.grading.max_tests + 1)

export type DaemonMessage =
  | { type: 'compiled'; outcome: CompileOutcome }
  | { type: 'test'; index: number; outcome: TestOutcome }
  | { type: 'result'; result: JobResult }
  | { type: 'error'; message: string }

/**
 * Calls onLine for each newline-terminated line; a line longer than cap bytes ends the connection
 * (onOverflow) instead of growing a buffer without bound.
 */
export function readLines(socket: Socket, cap: number, onLine: (line: string) => void, onOverflow: () => void): void {
  let chunks: Buffer[] = []
  let size = 0
  socket.on('data', (data: Buffer) => {
    let start = 0
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
      chunks.push(data.subarray(start, nl))
      const line = Buffer.concat(chunks).toString('utf8')
      chunks = []
      size = 0
      start = nl + 1
      onLine(line)
    }
    const rest = data.subarray(start)
    size += rest.length
    if (size > cap) {
      socket.pause()
      onOverflow()
      return
    }
    if (rest.length) chunks.push(rest)
  })
}

export const frame = (m: DaemonMessage | { job: Job }) => JSON.stringify(m) + '\n'
