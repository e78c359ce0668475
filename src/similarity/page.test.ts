// The report page of a real analysis with several pairs above the threshold (generated submissions with
// planted copies, Dolos in this process, stored as the queue stores it), read through its route: the
// pairs listed in rank order, most similar first, and the histogram counting every pair, its red bars
// holding exactly the listed ones.
import { afterEach, expect, test } from 'vitest'
import { findClientBySecret } from '../clients/clients.ts'
import { acceptSubmission } from '../evaluation/submissions.ts'
import { addClient, createTestDeps, type TestDeps } from '../testing/evaluation.ts'
import { generateSubmissions } from '../testing/similarity-submissions.ts'
import { analyse, HISTOGRAM_BINS } from './analyse.ts'
import { similarityPageRoutes } from './page-routes.ts'
import { claimNext, completeReport, PAGE_PATH, pairsOf, requestReport } from './reports.ts'

let deps: TestDeps | undefined
afterEach(async () => {
  await deps?.stop()
  deps = undefined
})

test('several pairs: ranked most similar first, the histogram counts every pair, red bars the listed ones', { timeout: 60_000 }, async () => {
  deps = createTestDeps({ start: false })
  const client = findClientBySecret(deps.db, addClient(deps))!
  const { files, planted } = generateSubmissions({ count: 12, seed: 3, copyShare: 0.25 })
  const heOf = new Map(files.map((f) => [f.id, acceptSubmission(deps!, client, { api: 'v4', lang: 'PYTHON3', source: f.source }).publicId]))
  requestReport(deps, client, { he_ids: [...heOf.values()], min_similarity: 0.5 })
  const row = claimNext(deps)!
  const result = await analyse({ language: 'python', files: files.map((f) => ({ id: heOf.get(f.id)!, source: f.source })), minSimilarity: 0.5, maxPairs: 100 })
  expect(completeReport(deps, row, { result, maxRssKb: 0, ms: 0 })).toBe(true)
  const stored = pairsOf(deps, row.id)
  expect(stored.length).toBeGreaterThanOrEqual(planted.length)
  expect(planted.length).toBeGreaterThanOrEqual(3)

  const res = await similarityPageRoutes(deps).request(`${PAGE_PATH}/${row.viewToken}`)
  expect(res.status).toBe(200)
  const html = await res.text()
  const table = /<table id="pairs">(.*?)<\/table>/s.exec(html)![1]!
  const rows = [...table.matchAll(/<tr><td>(\d+)<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td class="sim">([\d.]+) %<\/td>/g)].map((m) => ({
    rank: Number(m[1]),
    left: m[2],
    right: m[3],
    similarity: Number(m[4]),
  }))
  // every kept pair, ranks 1…n in order, similarities not increasing, as the analysis ranked them
  expect(rows.map((r) => r.rank)).toEqual(stored.map((_, i) => i + 1))
  expect(rows.map((r) => [r.left, r.right])).toEqual(result.pairs.map((p) => [p.left, p.right]))
  const sims = rows.map((r) => r.similarity)
  expect(sims).toEqual([...sims].sort((a, b) => b - a))
  expect(sims[0]).toBeGreaterThan(sims.at(-1)!)
  // the planted copies are the top of the list
  const key = (a: string, b: string) => [a, b].sort().join('|')
  const top = new Set(rows.slice(0, planted.length).map((r) => key(r.left!, r.right!)))
  for (const [a, b] of planted) expect(top.has(key(heOf.get(a)!, heOf.get(b)!))).toBe(true)

  // the histogram: 20 bars whose counts add up to every pair (12 → 66); the red ones (at or above
  // 50 %) hold exactly the pairs listed
  const bars = [...html.matchAll(/<rect class="bar( hot)?"[^>]*><title>(\d+)–(\d+) %: (\d+) pairs<\/title><\/rect>/g)].map((m) => ({ hot: !!m[1], from: Number(m[2]), count: Number(m[4]) }))
  expect(bars).toHaveLength(HISTOGRAM_BINS)
  expect(bars.map((b) => b.count)).toEqual(result.histogram)
  expect(bars.reduce((s, b) => s + b.count, 0)).toBe(66)
  expect(bars.filter((b) => b.from >= 50).reduce((s, b) => s + b.count, 0)).toBe(rows.length)
  expect(bars.filter((b) => b.hot).every((b) => b.from >= 50 && b.count > 0)).toBe(true)
  expect(bars.filter((b) => b.hot).reduce((s, b) => s + b.count, 0)).toBe(rows.length)
  expect(html).toContain(`Pairs at or above</th><td>${rows.length}</td>`)
})
