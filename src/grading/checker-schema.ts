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
    z
      .object({
        type: z.literal('program'),
        lang: z.string().min(1).max(32).regex(/^[A-Za-z0-9_+#.-]+$/),
        source: z.string().min(1).max(1_048_576),
      })
      .strict(),
  ])
  .meta({
    id: 'Checker',
    description:
      'How a test\'s output is judged: "exact" (byte for byte), "lines" (default: trailing whitespace, trailing blank lines and CR ignored), "tokens" (whitespace-insensitive), "unordered" (lines as a multiset), {"type": "float", "abs": 1e-6, "rel": 1e-6} (tokens; numbers within either tolerance; NaN and inf handled), or {"type": "program", "lang": CODE, "source": TEXT}: a checker program (testlib\'s protocol) run in a jail of its own with the files input, expected and output (argv: input output expected); exit 0 AC, 1 WA, 2 WA (PE), 3 checker failure (IE), 7 partial (the fraction is the first token of its stdout).',
  })
