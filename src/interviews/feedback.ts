// The feedback scale: the fixed rating keys with their display names, a label for each score 1–5 of
// each key (rating_message), the generic labels of eval_params, the overall results, and the zod shape
// of what the room's feedback form submits.
import { z } from 'zod'

/** Fixed rating keys of every feedback: display name (verbose_name) and the label of scores 1..5. */
export const RATING_SCALE = {
  QUESTION_UNDERSTANDABILITY: {
    verbose: 'Question understandability',
    labels: [
      'Did not understand the question',
      'Understood it with a lot of help',
      'Understood it after some clarification',
      'Understood it with minor hints',
      'Understood it completely',
    ],
  },
  DEBUGGABILITY: {
    verbose: 'Debuggability',
    labels: [
      'Could not find the bugs',
      'Found bugs only when shown',
      'Found the obvious bugs',
      'Found and fixed most bugs methodically',
      'Debugged quickly and systematically',
    ],
  },
  CODE_QUALITY: {
    verbose: 'Code quality',
    labels: ['Poor', 'Unformatted code', 'Basic concepts are covered', 'Reusable and readable', 'Perfect code'],
  },
  SOLUTION_EXECUTION: {
    verbose: 'Solution execution',
    labels: [
      'No working solution',
      'Partial solution with major gaps',
      'Works for the basic cases',
      'Works, with minor issues',
      'Complete and efficient solution',
    ],
  },
} as const

export type RatingKey = keyof typeof RATING_SCALE
export const RATING_KEYS = Object.keys(RATING_SCALE) as RatingKey[]

/** Labels of an eval_param's scores (the partner names the criterion, not its scale). */
export const EVAL_PARAM_LABELS = ['Poor', 'Below average', 'Average', 'Good', 'Excellent'] as const

/** The interviewer's overall verdict, weakest first, with the words the form shows. */
export const RESULTS = {
  STRONG_NO: 'Strong no',
  NO: 'No',
  YES: 'Yes',
  STRONG_YES: 'Strong yes',
} as const
export type Result = keyof typeof RESULTS

export const verboseName = (key: string): string => (Object.hasOwn(RATING_SCALE, key) ? RATING_SCALE[key as RatingKey].verbose : key)

/** rating_message of a score: the key's own label, or the generic label for an eval_param. */
export function ratingMessage(key: string, score: number, evalParam: boolean): string | null {
  if (!Number.isInteger(score) || score < 1 || score > 5) return null
  const labels = !evalParam && Object.hasOwn(RATING_SCALE, key) ? RATING_SCALE[key as RatingKey].labels : EVAL_PARAM_LABELS
  return labels[score - 1]
}

/** One criterion as an interviewer rates it (the report's Rating adds the labels, as strings). */
const SubmittedRating = z
  .object({
    rating: z.number().int().min(1).max(5),
    comment: z.string().max(5000).default(''),
  })
  .strict()
export type SubmittedRating = z.infer<typeof SubmittedRating>

/**
 * What an interviewer submits. Keys left out stay unrated (all-null in the report); eval_params_ratings
 * keys must be eval_params of the interview (checked by the service, which knows them).
 */
export const FeedbackSubmission = z
  .object({
    result: z.enum(Object.keys(RESULTS) as [Result, ...Result[]]),
    ratings: z.partialRecord(z.enum(RATING_KEYS as [RatingKey, ...RatingKey[]]), SubmittedRating).default({}),
    eval_params_ratings: z.record(z.string().max(200), SubmittedRating).default({}),
  })
  .strict()
export type FeedbackSubmission = z.infer<typeof FeedbackSubmission>
