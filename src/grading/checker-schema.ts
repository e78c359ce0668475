// The zod shape of a checker as requests name it: the single source for request checks, the jail
// daemon's schema and the OpenAPI document.
import { z } from 'zod'

export const CheckerSchema = z
  .union([
    z.enum(['exact', 'lines', 'tokens', 'unordered']),
    z
      .object({
        type: z.literal('float'),
        abs: z.number().nonnegative().finite().optional(),
        rel: z.number().nonnegative().finite().optional(),
      })
      .strict(),
  ])
  .meta({
    id: 'Checker',
    description:
      'How a test\'s output is judged: "exact" (byte for byte), "lines" (default: trailing whitespace, trailing blank lines and CR ignored), "tokens" (whitespace-insensitive), "unordered" (lines as a multiset), or {"type": "float", "abs": 1e-6, "rel": 1e-6} (tokens; numbers within either tolerance; NaN and inf handled).',
  })
