// The similarity report service: ask for one (choose the submissions, refuse what cannot be compared,
// store it queued), read it back (the client's own only), and record its outcome (pairs, histogram,
// the callback it owes) in one transaction guarded by the claim token.
import { randomBytes, randomUUID } from 'node:crypto'
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { chargeQuota, type Client } from '../clients/clients.ts'
import { normaliseCallbackUrl } from '../jobs/callback.ts'
import { enqueueDelivery } from '../jobs/outbox.ts'
import { problems, similarityPairs, similarityReports, submissions } from '../storage/schema.ts'
import type { AnalysisResult } from './analyse.ts'
import { similarityFamilies, type Families } from './languages.ts'
import type { SimilarityReport, SimilarityRequest } from './schemas.ts'

export type ReportRow = typeof similarityReports.$inferSelect
export type PairRow = typeof similarityPairs.$inferSelect
type ServiceDeps = Pick<Deps, 'config' | 'db' | 'now' | 'languages'>

export const SIMILARITY_PATH = '/v4/partner/code-evaluation/similarity'
export const PAGE_PATH = '/similarity'

const publicUrl = (deps: Pick<Deps, 'config'>) => deps.config.server.public_url.replace(/\/+$/, '')
export const webLinkOf = (deps: Pick<Deps, 'config'>, row: Pick<ReportRow, 'viewToken'>) => `${publicUrl(deps)}${PAGE_PATH}/${row.viewToken}`
export const statusUrlOf = (deps: Pick<Deps, 'config'>, row: Pick<ReportRow, 'publicId'>) => `${publicUrl(deps)}${SIMILARITY_PATH}/${row.publicId}/`

interface Chosen {
  publicId: string
  language: string
}

/** Validates a request, fixes the set of submissions it compares and stores it queued. */
export function requestReport(deps: ServiceDeps, client: Client, req: SimilarityRequest, state: 'queued' | 'running' = 'queued'): ReportRow {
  const cfg = deps.config.similarity
  if (req.problem_id !== undefined && req.he_ids !== undefined)
    throw new AppError('InvalidArgument', 'give either problem_id or he_ids, not both', { problem_id: req.problem_id })
  if (req.problem_id === undefined && req.he_ids === undefined) throw new AppError('ArgumentMissing', 'problem_id or he_ids is needed!')
  const fam = similarityFamilies(deps.languages)
  let family: string | undefined
  if (req.language !== undefined) {
    family = fam.familyOfRequest(req.language)
    if (!family)
      throw new AppError('LanguageNotSupported', `similarity reports compare ${fam.families.join(', ')}; not ${req.language}`, { language: req.language })
  }
  if (req.template !== undefined && Buffer.byteLength(req.template) > deps.config.limits.source_max_bytes)
    throw new AppError('PayloadTooLarge', `template is larger than ${deps.config.limits.source_max_bytes} bytes`, {
      source_max_bytes: deps.config.limits.source_max_bytes,
    })
  const callback = req.callback?.trim() ? normaliseCallbackUrl(req.callback) : null

  const chosen = req.problem_id !== undefined ? ofProblem(deps, fam, client, req.problem_id, family) : ofHeIds(deps, fam, client, req.he_ids!, family, cfg.max_submissions)
  family ??= fam.familyOfCode(chosen[0]!.language)!
  if (chosen.length < 2)
    throw new AppError('InvalidArgument', `a similarity report needs at least two ${family} submissions; found ${chosen.length}`, { submissions: chosen.length })
  if (chosen.length > cfg.max_submissions)
    throw new AppError('InvalidArgument', `too many submissions: ${chosen.length}, at most ${cfg.max_submissions} per report (similarity.max_submissions)`, {
      submissions: chosen.length,
      max_submissions: cfg.max_submissions,
    })

  const now = deps.now()
  return deps.db.transaction(() => {
    // asked through the API (queued): the client's cap of waiting reports, then its quota; the admin's
    // `cli similarity` (running at once) is neither
    if (state === 'queued') {
      refuseWhenFull(deps, client)
      chargeQuota(deps.db, client, deps.config.evaluation.default_quota, reportCost(deps, chosen.length))
    }
    return deps.db
      .insert(similarityReports)
      .values({
        publicId: randomUUID(),
        viewToken: randomBytes(16).toString('hex'),
        clientId: client.id,
        problemId: req.problem_id ?? null,
        heIdsJson: req.he_ids ? JSON.stringify(req.he_ids) : null,
        language: family,
        minSimilarity: req.min_similarity ?? cfg.default_min_similarity,
        template: req.template?.trim() ? req.template : null,
        callbackUrl: callback,
        submissionsJson: JSON.stringify(chosen.map((c) => ({ he_id: c.publicId, language: c.language }))),
        submissionCount: chosen.length,
        state,
        attempt: state === 'running' ? 1 : 0,
        startedAt: state === 'running' ? now : null,
        createdAt: now,
      })
      .returning()
      .get()
  })
}

/** Seconds a client whose reports fill its cap is told to wait: reports take seconds to minutes. */
export const REPORTS_FULL_RETRY_AFTER_SEC = 30

/** What a report of n submissions counts against the quota: one per similarity.submissions_per_quota_unit, started. */
export const reportCost = (deps: Pick<Deps, 'config'>, n: number) => Math.max(1, Math.ceil(n / deps.config.similarity.submissions_per_quota_unit))

function refuseWhenFull(deps: Pick<Deps, 'config' | 'db'>, client: Client): void {
  const max = deps.config.similarity.max_queued_per_client
  if (max <= 0) return
  const queued = deps.db
    .select({ n: sql<number>`count(*)` })
    .from(similarityReports)
    .where(and(eq(similarityReports.clientId, client.id), eq(similarityReports.state, 'queued')))
    .get()!.n
  if (queued >= max)
    throw new AppError('QueueFull', `${queued} similarity reports of this client are already waiting; try again later`, {
      queued,
      max_queued: max,
      retry_after: REPORTS_FULL_RETRY_AFTER_SEC,
    })
}

/** Languages present in a selection, for the "mixed languages" refusal: "python (12), java (3)". */
function describeMix({ familyOfCode }: Families, rows: Chosen[]): string {
  const counts = new Map<string, number>()
  for (const r of rows) {
    const f = familyOfCode(r.language) ?? `${r.language} (not comparable)`
    counts.set(f, (counts.get(f) ?? 0) + 1)
  }
  return [...counts].map(([f, n]) => `${f} (${n})`).join(', ')
}

function ofProblem(deps: ServiceDeps, fam: Families, client: Client, problemId: string, family: string | undefined): Chosen[] {
  const { familyOfCode } = fam
  const rows = deps.db
    .select({ publicId: submissions.publicId, language: submissions.language })
    .from(submissions)
    .where(and(eq(submissions.clientId, client.id), eq(submissions.problemId, problemId)))
    .orderBy(asc(submissions.id))
    .all()
  if (!rows.length) {
    // the client's own problem with no submissions yet is "too few", anything else is unknown (another client's included)
    const own = deps.db.select({ id: problems.id }).from(problems).where(and(eq(problems.publicId, problemId), eq(problems.clientId, client.id))).get()
    if (!own) throw new AppError('NotFound', `no problem with problem_id ${problemId}`, { problem_id: problemId })
    return []
  }
  if (family) return rows.filter((r) => familyOfCode(r.language) === family)
  const families = new Set(rows.map((r) => familyOfCode(r.language) ?? r.language))
  if (families.size > 1)
    throw new AppError('InvalidArgument', `mixed languages: ${describeMix(fam, rows)}; give language to compare one of them`, { languages: describeMix(fam, rows) })
  if (!familyOfCode(rows[0]!.language)) throw notComparable(fam, rows[0]!.language)
  return rows
}

function ofHeIds(deps: ServiceDeps, fam: Families, client: Client, heIds: string[], family: string | undefined, max: number): Chosen[] {
  const { familyOfCode } = fam
  const wanted = [...new Set(heIds)]
  if (wanted.length > max)
    throw new AppError('InvalidArgument', `too many submissions: ${wanted.length}, at most ${max} per report (similarity.max_submissions)`, {
      submissions: wanted.length,
      max_submissions: max,
    })
  const found = new Map<string, Chosen>()
  // in slices: SQLite caps the variables of one statement
  for (let i = 0; i < wanted.length; i += 500) {
    const slice = wanted.slice(i, i + 500)
    for (const r of deps.db
      .select({ publicId: submissions.publicId, language: submissions.language })
      .from(submissions)
      .where(and(eq(submissions.clientId, client.id), inArray(submissions.publicId, slice)))
      .all())
      found.set(r.publicId, r)
  }
  const unknown = wanted.filter((h) => !found.has(h))
  if (unknown.length) throw new AppError('NotFound', `no submission with he_id ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` (and ${unknown.length - 5} more)` : ''}`, { he_ids: unknown })
  const rows = wanted.map((h) => found.get(h)!)
  const families = new Set(rows.map((r) => familyOfCode(r.language) ?? r.language))
  if (families.size > 1 || (family && !families.has(family)))
    throw new AppError('InvalidArgument', `mixed languages: ${describeMix(fam, rows)}; a report compares one language family`, { languages: describeMix(fam, rows) })
  if (!familyOfCode(rows[0]!.language)) throw notComparable(fam, rows[0]!.language)
  return rows
}

const notComparable = ({ families, codesOf }: Families, code: string) =>
  new AppError('LanguageNotSupported', `${code} submissions cannot be compared; similarity reports compare ${families.map((f) => `${f} (${codesOf(f).join(', ')})`).join('; ')}`, {
    language: code,
  })

// ── reading ───────────────────────────────────────────────────────────────────────────────────────

/** A client's own report by report_id (another client's is answered as unknown). */
export function getReport(deps: Pick<Deps, 'db'>, client: Client, publicId: string): ReportRow {
  const row = deps.db.select().from(similarityReports).where(and(eq(similarityReports.publicId, publicId), eq(similarityReports.clientId, client.id))).get()
  if (!row) throw new AppError('NotFound', `no similarity report with report_id ${publicId}`, { report_id: publicId })
  return row
}

/** By the page link's token: whoever holds the link may read it. */
export function getReportByToken(deps: Pick<Deps, 'db'>, token: string): ReportRow | undefined {
  return deps.db.select().from(similarityReports).where(eq(similarityReports.viewToken, token)).get()
}

export const pairsOf = (deps: Pick<Deps, 'db'>, reportId: number): PairRow[] =>
  deps.db.select().from(similarityPairs).where(eq(similarityPairs.reportId, reportId)).orderBy(asc(similarityPairs.rank)).all()

export const pairOf = (deps: Pick<Deps, 'db'>, reportId: number, rank: number): PairRow | undefined =>
  deps.db.select().from(similarityPairs).where(and(eq(similarityPairs.reportId, reportId), eq(similarityPairs.rank, rank))).get()

/** The newest reports of every client, for the admin's dashboard. */
export function recentReports(deps: Pick<Deps, 'db'>, limit = 10): ReportRow[] {
  return deps.db.select().from(similarityReports).orderBy(desc(similarityReports.id)).limit(limit).all()
}

export interface SubmissionEntry {
  he_id: string
  language: string
  lines?: number
  /** Why the parser could not take it: left out of the report (analyse.ts). */
  excluded?: string
}
export const submissionsOf = (row: Pick<ReportRow, 'submissionsJson'>): SubmissionEntry[] => JSON.parse(row.submissionsJson) as SubmissionEntry[]

/** The GET reply (and the callback body). */
export function reportReply(deps: Pick<Deps, 'config' | 'db'>, row: ReportRow): SimilarityReport {
  const pairs = row.state === 'completed' ? pairsOf(deps, row.id) : []
  return {
    report_id: row.publicId,
    status: row.state,
    progress: row.state === 'completed' ? 1 : Math.round(row.progress * 100) / 100,
    stage: row.state === 'running' ? row.stage : null,
    language: row.language,
    problem_id: row.problemId,
    min_similarity: row.minSimilarity,
    web_link: webLinkOf(deps, row),
    submissions: submissionsOf(row).map((s) => ({ he_id: s.he_id, language: s.language, lines: s.lines ?? null, excluded: s.excluded ?? null })),
    pair_count: row.pairsAbove,
    histogram: row.histogramJson ? (JSON.parse(row.histogramJson) as number[]) : null,
    pairs: pairs.map((p) => ({
      left: p.leftHeId,
      right: p.rightHeId,
      similarity: p.similarity,
      longest_fragment: p.longestFragment,
      overlap: p.overlap,
      fragments: JSON.parse(p.fragmentsJson) as SimilarityReport['pairs'][number]['fragments'],
    })),
    error: row.failure,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  }
}

// ── running ───────────────────────────────────────────────────────────────────────────────────────

/** A report's submissions still stored (one removed since is left out), in its order, with each source's size in bytes. */
export function storedOf(deps: Pick<Deps, 'db'>, row: ReportRow): { id: string; bytes: number }[] {
  const ids = submissionsOf(row).map((s) => s.he_id)
  const bytes = new Map<string, number>()
  for (let i = 0; i < ids.length; i += 500) {
    for (const r of deps.db
      .select({ publicId: submissions.publicId, bytes: sql<number>`length(cast(${submissions.source} as blob))` })
      .from(submissions)
      .where(and(eq(submissions.clientId, row.clientId), inArray(submissions.publicId, ids.slice(i, i + 500))))
      .all())
      bytes.set(r.publicId, r.bytes)
  }
  return ids.filter((id) => bytes.has(id)).map((id) => ({ id, bytes: bytes.get(id)! }))
}

/**
 * Their sources, read from the database a batch at a time (at most maxBytes each, a larger source
 * alone): whoever iterates holds one batch, not the whole report (5,000 sources of up to
 * limits.source_max_bytes would otherwise sit in the server's memory).
 */
export function* sourceBatches(deps: Pick<Deps, 'db'>, row: Pick<ReportRow, 'clientId'>, stored: { id: string; bytes: number }[], maxBytes: number): Generator<{ id: string; source: string }[]> {
  for (let start = 0; start < stored.length; ) {
    let end = start
    let bytes = 0
    while (end < stored.length && end - start < 500 && (end === start || bytes + stored[end]!.bytes <= maxBytes)) bytes += stored[end++]!.bytes
    const ids = stored.slice(start, end).map((s) => s.id)
    const byId = new Map(
      deps.db
        .select({ publicId: submissions.publicId, source: submissions.source })
        .from(submissions)
        .where(and(eq(submissions.clientId, row.clientId), inArray(submissions.publicId, ids)))
        .all()
        .map((r) => [r.publicId, r.source])
    )
    // one removed between the two reads is left out, as one removed before
    yield ids.filter((id) => byId.has(id)).map((id) => ({ id, source: byId.get(id)! }))
    start = end
  }
}

const claimed = (row: Pick<ReportRow, 'id' | 'attempt'>) =>
  and(eq(similarityReports.id, row.id), eq(similarityReports.attempt, row.attempt), eq(similarityReports.state, 'running'))

/**
 * The next report, now running under a fresh claim token; undefined when none waits. Clients take
 * turns (round robin, as runs do): the client whose last report started longest ago (or never) goes
 * next, with its oldest queued report, so one client's 20 reports do not all run before another's one.
 */
export function claimNext(deps: Pick<Deps, 'db' | 'now'>): ReportRow | undefined {
  return deps.db.transaction((tx) => {
    const next = tx.get<{ id: number; attempt: number } | undefined>(sql`
      select r.id, r.attempt from similarity_reports r
      where r.state = 'queued'
        and r.id = (select min(q.id) from similarity_reports q where q.client_id = r.client_id and q.state = 'queued')
      order by coalesce((select max(s.started_at) from similarity_reports s where s.client_id = r.client_id), 0), r.id
      limit 1`)
    if (!next) return undefined
    return tx
      .update(similarityReports)
      .set({ state: 'running', attempt: next.attempt + 1, progress: 0, stage: null, startedAt: deps.now() })
      .where(and(eq(similarityReports.id, next.id), eq(similarityReports.state, 'queued')))
      .returning()
      .get()
  })
}

/** Reports left running by a stop or a crash go back to the queue (run again from the start). */
export function requeueRunning(deps: Pick<Deps, 'db'>): number {
  return deps.db.update(similarityReports).set({ state: 'queued', progress: 0, stage: null }).where(eq(similarityReports.state, 'running')).run().changes
}

export function recordProgress(deps: Pick<Deps, 'db'>, row: ReportRow, fraction: number, stage: string): void {
  deps.db.update(similarityReports).set({ progress: fraction, stage }).where(claimed(row)).run()
}

/** Stores the outcome and the callback it owes, in one transaction; false if the claim is stale. */
export function completeReport(
  deps: Pick<Deps, 'config' | 'db' | 'now' | 'outbox'>,
  row: ReportRow,
  outcome: { result: AnalysisResult; maxRssKb: number; ms: number } | { failure: string }
): boolean {
  const done = deps.db.transaction((tx) => {
    let set: Partial<ReportRow>
    if ('failure' in outcome) {
      set = { state: 'failed', failure: outcome.failure }
    } else {
      const { result } = outcome
      const lines = new Map(result.files.map((f) => [f.id, f.lines]))
      const excluded = new Map((result.excluded ?? []).map((x) => [x.id, x.reason]))
      set = {
        state: 'completed',
        pairsAbove: result.pairs_above,
        histogramJson: JSON.stringify(result.histogram),
        submissionsJson: JSON.stringify(
          submissionsOf(row).map((s) => ({ ...s, ...(lines.has(s.he_id) && { lines: lines.get(s.he_id) }), ...(excluded.has(s.he_id) && { excluded: excluded.get(s.he_id) }) }))
        ),
        maxRssKb: outcome.maxRssKb,
        durationMs: outcome.ms,
      }
    }
    const u = tx
      .update(similarityReports)
      .set({ ...set, progress: 1, stage: null, completedAt: deps.now() })
      .where(claimed(row))
      .returning()
      .get()
    if (!u) return undefined
    if (!('failure' in outcome)) {
      const pairs = outcome.result.pairs
      for (let i = 0; i < pairs.length; i += 200) {
        tx.insert(similarityPairs)
          .values(
            pairs.slice(i, i + 200).map((p, k) => ({
              reportId: u.id,
              rank: i + k + 1,
              leftHeId: p.left,
              rightHeId: p.right,
              similarity: p.similarity,
              longestFragment: p.longest_fragment,
              overlap: p.overlap,
              fragmentsJson: JSON.stringify(p.fragments),
            }))
          )
          .run()
      }
    }
    if (u.callbackUrl) {
      enqueueDelivery(
        tx,
        {
          kind: 'callback',
          subjectId: `similarity:${u.publicId}`,
          target: u.callbackUrl,
          body: JSON.stringify(reportReply({ config: deps.config, db: tx as unknown as Deps['db'] }, u)),
          contentType: 'application/json',
          headers: { 'x-arbiter-event': `similarity.${u.state}`, 'x-arbiter-report-id': u.publicId },
          dedupeKey: `similarity:${u.publicId}:done`,
          owner: `client:${u.clientId}`,
        },
        deps.now()
      )
    }
    return u
  })
  if (done?.callbackUrl) deps.outbox.wake()
  return !!done
}
