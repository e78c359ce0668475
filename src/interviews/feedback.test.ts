import { describe, expect, it } from 'vitest'
import { EVAL_PARAM_LABELS, FeedbackSubmission, RATING_KEYS, RATING_SCALE, RESULTS, ratingMessage, verboseName } from './feedback.ts'

describe('the scale', () => {
  it('has the spec keys, each with a display name and five distinct labels', () => {
    expect(RATING_KEYS).toEqual(['QUESTION_UNDERSTANDABILITY', 'DEBUGGABILITY', 'CODE_QUALITY', 'SOLUTION_EXECUTION'])
    for (const key of RATING_KEYS) {
      expect(RATING_SCALE[key].verbose).not.toBe('')
      expect(new Set(RATING_SCALE[key].labels).size).toBe(5)
    }
  })

  it("CODE_QUALITY's five labels, worst to best", () => {
    expect([1, 2, 3, 4, 5].map((n) => ratingMessage('CODE_QUALITY', n, false))).toEqual([
      'Poor',
      'Unformatted code',
      'Basic concepts are covered',
      'Reusable and readable',
      'Perfect code',
    ])
  })

  it('an eval_param uses the generic labels, even when it is named like a key', () => {
    expect([1, 2, 3, 4, 5].map((n) => ratingMessage('CODE_QUALITY', n, true))).toEqual([...EVAL_PARAM_LABELS])
    expect(ratingMessage('Communication', 5, true)).toBe('Excellent')
  })

  it('a score outside 1–5 has no label', () => {
    for (const n of [0, 6, 2.5, NaN]) expect(ratingMessage('CODE_QUALITY', n, false)).toBeNull()
  })

  it('verbose_name is the display name of a key, or the eval_param itself', () => {
    expect(verboseName('QUESTION_UNDERSTANDABILITY')).toBe('Question understandability')
    expect(verboseName('Problem solving')).toBe('Problem solving')
    expect(verboseName('constructor')).toBe('constructor')
  })

  it('results are STRONG_NO, NO, YES, STRONG_YES', () => {
    expect(Object.keys(RESULTS)).toEqual(['STRONG_NO', 'NO', 'YES', 'STRONG_YES'])
  })
})

describe('FeedbackSubmission', () => {
  const ok = { result: 'YES', ratings: { CODE_QUALITY: { rating: 4, comment: 'ok' } }, eval_params_ratings: { 'Problem solving': { rating: 1 } } }

  it('takes a result with any subset of the keys; comments default to ""', () => {
    expect(FeedbackSubmission.parse(ok)).toEqual({ ...ok, eval_params_ratings: { 'Problem solving': { rating: 1, comment: '' } } })
    expect(FeedbackSubmission.parse({ result: 'STRONG_NO' })).toEqual({ result: 'STRONG_NO', ratings: {}, eval_params_ratings: {} })
  })

  it.each([
    ['no result', { ...ok, result: undefined }],
    ['an unknown result', { ...ok, result: 'MAYBE' }],
    ['a score of 0', { ...ok, ratings: { CODE_QUALITY: { rating: 0 } } }],
    ['a score of 6', { ...ok, ratings: { CODE_QUALITY: { rating: 6 } } }],
    ['a fractional score', { ...ok, ratings: { CODE_QUALITY: { rating: 2.5 } } }],
    ['a score as text', { ...ok, ratings: { CODE_QUALITY: { rating: '4' } } }],
    ['an unknown key', { ...ok, ratings: { CREATIVITY: { rating: 4 } } }],
    ['an extra member', { ...ok, extra: 1 }],
    ['an over-long comment', { ...ok, ratings: { CODE_QUALITY: { rating: 4, comment: 'x'.repeat(5001) } } }],
  ])('refuses %s', (_what, body) => {
    expect(FeedbackSubmission.safeParse(body).success).toBe(false)
  })
})
