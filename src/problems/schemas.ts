// zod shapes of the problems API: the JSON upload, the multipart upload's fields, replies.
import { z } from 'zod'
import { CheckerSchema } from '../grading/checker-schema.ts'

const NumberLike = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v === '' || v === null ? undefined : v), z.number().finite().positive().optional())

export const ProblemTestCase = z
  .object({
    input: z.string(),
    expected_output: z.string(),
    points: NumberLike.meta({ description: 'Points for passing it (default 1).' }),
    time_limit: NumberLike.meta({ description: "This test's CPU seconds (default: the problem's, else the submission's)." }),
  })
  .strict()

export const ProblemRequest = z
  .object({
    name: z.string().min(1).max(200),
    test_cases: z.array(ProblemTestCase).min(1),
    checker: CheckerSchema.optional(),
    time_limit: NumberLike,
    memory_limit: NumberLike,
    client_secret: z.string().optional(),
  })
  .meta({ id: 'ProblemRequest', description: 'A problem as JSON; or multipart/form-data with name, checker (JSON text or a name), time_limit, memory_limit and the file `tests` (a zip).' })

/** The multipart form's fields besides the zip (all text). */
export const ProblemForm = z.object({
  name: z.string().min(1).max(200),
  checker: z.preprocess((v) => {
    if (typeof v !== 'string' || v.trim() === '') return undefined
    const t = v.trim()
    if (!t.startsWith('{')) return t
    try {
      return JSON.parse(t)
    } catch {
      return v
    }
  }, CheckerSchema.optional()),
  time_limit: NumberLike,
  memory_limit: NumberLike,
})

export const ProblemReply = z
  .object({
    problem_id: z.string(),
    name: z.string(),
    test_count: z.number().int(),
    total_bytes: z.number().int(),
    checker: CheckerSchema,
    time_limit: z.number().nullable(),
    memory_limit: z.number().nullable(),
    created_at: z.string(),
    tests: z
      .array(z.object({ id: z.string(), input_bytes: z.number().int(), expected_output_bytes: z.number().int(), points: z.number(), time_limit: z.number().nullable() }))
      .optional()
      .meta({ description: 'GET of one problem: each test\'s sizes (never its data).' }),
    package: z
      .object({
        format: z.string(),
        type: z.array(z.string()),
        validator: z.record(z.string(), z.unknown()),
        groups: z.array(z.object({ group: z.string(), cases: z.number().int() })),
        time_limit: z.object({ seconds: z.number().nullable(), from: z.string() }),
        memory_limit_kb: z.number().nullable(),
        submissions: z.array(z.object({ folder: z.string(), files: z.array(z.string()) })),
        ignored: z.array(z.string()),
        kept: z.boolean().optional().meta({ description: 'Whether the zip is kept for verifying it (POST …/problems/<id>/verify); within grading.package_store_max_bytes per client.' }),
        kept_note: z.string().optional().meta({ description: 'Why it was not kept.' }),
      })
      .optional()
      .meta({ description: 'A package import (POST with `package`): what was imported and every part left out.' }),
  })
  .meta({ id: 'ProblemReply' })

export const ProblemList = z.object({ problems: z.array(ProblemReply) }).meta({ id: 'ProblemList' })
