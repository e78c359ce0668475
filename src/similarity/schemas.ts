// zod shapes of the similarity API: the request and the report. The one source for request checks and
// the OpenAPI document. Read the way v4 requests are read: numbers may come as strings, '' means "not
// given", he_ids as a JSON array or a comma-separated string.
import { z } from 'zod'

const blank = (v: unknown) => (v === '' || v === null ? undefined : v)

const Text = z.preprocess((v) => {
  const b = blank(v)
  return typeof b === 'number' ? String(b) : b
}, z.string().optional())

const Fraction = z.preprocess((v) => {
  const b = blank(typeof v === 'string' ? v.trim() : v)
  return typeof b === 'string' && /^\d*\.?\d+$/.test(b) ? Number(b) : b
}, z.number().min(0).max(1).optional())

const HeIds = z.preprocess((v) => {
  const b = blank(v)
  return typeof b === 'string' ? b.split(',').map((s) => s.trim()).filter(Boolean) : b
}, z.array(z.string().min(1).max(100)).min(1).optional())

export const SimilarityRequest = z
  .object({
    problem_id: Text.meta({ description: 'Compare every submission made to this problem (one of problem_id and he_ids).' }),
    he_ids: HeIds.meta({ description: 'Compare these submissions (a JSON array or a comma-separated string).' }),
    language: Text.meta({
      description: 'The language family to compare: a Dolos name (python, java, cpp, …) or an Arbiter code (PYTHON3). Needed when a problem has submissions in several.',
    }),
    min_similarity: Fraction.meta({ description: 'List pairs at or above this similarity (0–1; default similarity.default_min_similarity, 0.5).' }),
    template: Text.meta({ description: 'Starter code every student was given: what matches it is left out of every pair (MOSS\'s base file).' }),
    callback: Text.meta({ description: 'URL that receives the finished report (a POST of the GET reply).' }),
  })
  .meta({ id: 'SimilarityRequest', description: 'A similarity report over one client\'s submissions of one language family.' })
export type SimilarityRequest = z.infer<typeof SimilarityRequest>

export const ReportStatus = z.enum(['queued', 'running', 'completed', 'failed'])

const Lines = z.tuple([z.number().int(), z.number().int()])

export const SimilarityPair = z
  .object({
    left: z.string().meta({ description: 'he_id of one submission.' }),
    right: z.string().meta({ description: 'he_id of the other.' }),
    similarity: z.number().meta({ description: 'Dolos similarity, 0–1: matching fingerprints of both over all of both (template left out).' }),
    longest_fragment: z.number().int().meta({ description: 'Longest run of consecutive matching fingerprints.' }),
    overlap: z.number().int().meta({ description: 'Matching fingerprints, both sides counted.' }),
    fragments: z
      .array(z.object({ left_lines: Lines, right_lines: Lines }))
      .meta({ description: 'Matching fragments as 1-based inclusive line ranges in each source.' }),
  })
  .meta({ id: 'SimilarityPair' })

export const SimilarityReport = z
  .object({
    report_id: z.string(),
    status: ReportStatus,
    progress: z.number().meta({ description: '0–1.' }),
    stage: z.string().nullable().meta({ description: 'What the analysis is doing (tokenizing, comparing, fragments).' }),
    language: z.string().meta({ description: 'The Dolos language compared.' }),
    problem_id: z.string().nullable(),
    min_similarity: z.number(),
    web_link: z.string().meta({ description: 'The report page (no credential needed: the link is the secret).' }),
    submissions: z.array(
      z.object({
        he_id: z.string(),
        language: z.string(),
        lines: z.number().int().nullable(),
        excluded: z.string().nullable().meta({ description: 'Why this submission was left out of the report (the parser could not take it within its budget); null when compared.' }),
      })
    ),
    pair_count: z.number().int().nullable().meta({ description: 'Pairs at or above min_similarity (at most similarity.max_pairs are listed).' }),
    histogram: z.array(z.number().int()).nullable().meta({ description: 'Every pair counted in 20 bins of similarity: [0, 0.05), [0.05, 0.1), … [0.95, 1].' }),
    pairs: z.array(SimilarityPair).meta({ description: 'Most similar first.' }),
    error: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: 'SimilarityReport' })
export type SimilarityReport = z.infer<typeof SimilarityReport>

export const SimilarityAccepted = z
  .object({ report_id: z.string(), status: ReportStatus, web_link: z.string(), status_url: z.string(), submissions: z.number().int(), language: z.string() })
  .meta({ id: 'SimilarityAccepted' })
