// The jail daemon's wire protocol, one job per connection over a unix socket: the server writes one
// line of JSON `{job}`; the daemon answers with lines `{type:'compiled'}`, `{type:'test'}` per test of a
// graded job, then `{type:'result'}` or
// `{type:'error'}`, and closes. The request is checked against a strict zod schema bounded by the
// daemon's own limits: anything else is refused before it reaches the pool.
import type { Socket } from 'node:net'
import { z } from 'zod'
import { jobCeilings, type Config } from '../config.ts'
import { CheckerSchema } from '../grading/checker-schema.ts'
import { isPlainName } from './job-files.ts'
import { COMPILE_CHECK_MARKER, MAX_REPEAT, type Job, type JobResult } from './types.ts'
import type { Progress } from './pool-types.ts'

/** The Job schema with bounds from the daemon's config (the server's own checks are not trusted). */
export function jobRequestSchema(config: Config) {
  const { limits } = config
  const ceilings = jobCeilings(config)
  const [maxTime, maxMemory, maxOutput] = [ceilings.timeSec, ceilings.memoryKb, ceilings.outputBytes]
  const argv = z.array(z.string().max(4096).refine((a) => !a.includes('\0'), 'NUL in an argument')).max(256)
  const job = z
    .object({
      language: z.string().regex(/^[A-Za-z0-9_+#.-]{1,32}$/),
      source: z.string().max(maxSourceBytes(config)),
      input: z.string().max(maxInputBytes(config)),
      timeLimitSec: z.number().positive().max(maxTime),
      memoryLimitKb: z.number().int().positive().max(maxMemory),
      compileOnly: z.boolean().optional(),
      checkerOnly: z.boolean().optional(),
      tests: z
        .array(
          z
            .object({
              input: z.string().max(config.grading.test_max_bytes),
              expectedOutput: z.string().max(config.grading.test_max_bytes),
              timeLimitSec: z.number().positive().max(maxTime).optional(),
              checkerFlags: z.array(z.string().min(1).max(200)).max(64).optional(),
            })
            .strict()
        )
        .min(1)
        .max(config.grading.max_tests)
        .optional(),
      checker: CheckerSchema.optional(),
      stopOnFirstFailure: z.boolean().optional(),
      cacheScope: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/).optional(),
      validatorScores: z.enum(['allowed', 'required']).optional(),
      // what a protocol adds (evaluation/job-spec.ts checked it; checked again against this side's caps)
      files: z
        .array(z.object({ name: z.string().refine(isPlainName, 'not a plain file name'), contentBase64: z.string().max(Math.ceil((limits.files_max_bytes * 4) / 3) + 4).regex(/^[A-Za-z0-9+/]*={0,2}$/) }).strict())
        .max(limits.files_max_count)
        .optional(),
      sourceFileName: z.string().refine(isPlainName, 'not a plain file name').optional(),
      compileArgv: argv.optional(),
      runArgv: argv.min(1).optional(),
      wallTimeSec: z.number().positive().max(maxTime * 2 + limits.wall_extra_sec).optional(),
      addressSpaceKb: z.number().int().min(1024).max(64 * 1024 * 1024).optional(),
      processes: z.number().int().min(1).max(limits.processes).optional(),
      outputBytes: z.number().int().min(1).max(maxOutput).optional(),
      outputKeptBytes: z.number().int().min(1).max(maxOutput).optional(),
      compileTimeSec: z.number().positive().max(limits.compile_time_sec).optional(),
      compileMemoryKb: z.number().int().positive().max(limits.compile_memory_kb).optional(),
      redirectStderrToStdout: z.boolean().optional(),
      outputEncoding: z.literal('latin1').optional(),
      inputEncoding: z.literal('latin1').optional(),
      compileStderrFails: z.boolean().optional(),
      compileCheckMarker: z.string().regex(COMPILE_CHECK_MARKER).optional(),
      cpuExtraSec: z.number().positive().max(maxTime).optional(),
      stackKb: z.number().int().min(1).max(64 * 1024 * 1024).optional(),
      repeat: z.number().int().min(1).max(MAX_REPEAT).optional(),
    })
    .strict()
  return z.object({ job }).strict()
}

// A field added to Job must be added to the schema above, or the daemon would refuse (or drop) it.
// Except filesAt: root never reads a path the server names; the server sends those files' bytes (jail-pool.ts).
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false
const jobKeysMatch: SameKeys<z.infer<ReturnType<typeof jobRequestSchema>>['job'], Omit<Job, 'filesAt'>> = true
void jobKeysMatch

/** The largest source and input any protocol may send (each has its own cap: config.ts jobCeilings). */
export const maxSourceBytes = (config: Config) => jobCeilings(config).sourceBytes
const maxInputBytes = (config: Config) => jobCeilings(config).inputBytes

/** Largest request line: source + input (JSON may escape each byte to 6) and some room. */
export const requestCap = (config: Config) =>
  Math.ceil((config.limits.files_max_bytes * 4) / 3) + 64 * config.limits.files_max_count + 2 * 256 * 4096 * 6 +
  6 * (maxSourceBytes(config) + maxInputBytes(config) + config.grading.total_max_bytes + config.limits.source_max_bytes) +
  4096 * (config.grading.max_tests + 1)

export type DaemonMessage =
  | Progress
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
