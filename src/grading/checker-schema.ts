// The zod shape of a checker as requests name it: the single source for request checks, the jail
// daemon's schema and the OpenAPI document.
import { z } from 'zod'
import { parseValidatorFlags } from './default-validator.ts'

/** The most passes a multi-pass problem may ask for (limits.validation_passes). */
export const MAX_VALIDATION_PASSES = 64

/** A validator's flags (problem.yaml validator_flags, split on whitespace). */
const Flags = z.array(z.string().min(1).max(200)).max(64)
/** A file beside a validator's main source: a plain name (no folder, no '..', not hidden). */
const ValidatorFile = z.object({ name: z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}$/).refine((n) => !n.includes('..'), 'no ..'), content: z.string().max(1_048_576) }).strict()

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
    z
      .object({
        type: z.literal('kattis'),
        flags: Flags.optional().refine((f) => {
          try {
            parseValidatorFlags(f ?? [])
            return true
          } catch {
            return false
          }
        }, 'flags the default validator does not take (case_sensitive, space_change_sensitive, float_relative_tolerance X, float_absolute_tolerance X, float_tolerance X)'),
      })
      .strict(),
    z
      .object({
        type: z.literal('output_validator'),
        lang: z.string().min(1).max(32).regex(/^[A-Za-z0-9_+#.-]+$/),
        source: z.string().min(1).max(1_048_576),
        files: z.array(ValidatorFile).max(32).optional(),
        flags: Flags.optional(),
        // an interactive problem: the validator and the program run at once, wired to each other
        interactive: z.boolean().optional(),
        // a multi-pass problem: at most this many passes (feedback/nextpass.in starts the next one)
        passes: z.number().int().min(1).max(MAX_VALIDATION_PASSES).optional(),
        // a build/run folder: source is its build script, run once in the jail to leave the file run
        // (among files, or made by build), which is then the validator's command
        build: z.boolean().optional(),
      })
      .strict(),
  ])
  .meta({
    id: 'Checker',
    description:
      'How a test\'s output is judged: "exact" (byte for byte), "lines" (default: trailing whitespace, trailing blank lines and CR ignored), "tokens" (whitespace-insensitive), "unordered" (lines as a multiset), {"type": "float", "abs": 1e-6, "rel": 1e-6} (tokens; numbers within either tolerance; NaN and inf handled), {"type": "program", "lang": CODE, "source": TEXT}: a checker program (testlib\'s protocol) run in a jail of its own with the files input, expected and output (argv: input output expected); exit 0 AC, 1 WA, 2 WA (PE), 3 checker failure (IE), 7 partial (the fraction is the first token of its stdout); {"type": "kattis", "flags": [...]}: the Kattis/ICPC default output validator with its flags; or {"type": "output_validator", "lang": CODE, "source": TEXT, "files": [{name, content}], "flags": [...], "interactive": BOOL, "passes": N, "build": BOOL}: a Kattis/ICPC output validator program (argv: input judge_answer feedback_dir flags; the output on stdin; exit 42 AC, 43 WA, anything else IE); interactive: it runs at the same time as the program, each in its own jail, its stdout the program\'s stdin and the program\'s stdout its stdin; passes: a multi-pass problem, feedback_dir/nextpass.in (with 42) starting the next pass, at most N; build: true: source is a build script run once (bash, or its #! interpreter) beside files, which must leave a file run (given among files, or made by build): the validator\'s command (bash, its #! interpreter, or the binary build made).',
  })
