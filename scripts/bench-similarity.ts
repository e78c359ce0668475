// Similarity reports at scale: 300 and 1,000 generated Python submissions of about 60 lines each, some
// of them planted copies of others (identifiers renamed, functions reordered, comments changed, a few
// lines added). Runs the analysis exactly as the server does (runner.ts: a niced child process with the
// configured caps) and prints time, the child's peak RSS, and precision / recall of the planted copies
// at the default threshold, and whether every planted copy is among the top pairs.
//
//   npx tsx scripts/bench-similarity.ts [--sizes 300,1000] [--nice 0] [--beyond-cap-mb 0] [--json]
//
// --nice: the child's nice value (the server uses 19, which on a busy machine measures the other load
// rather than the analysis; the default 0 measures the analysis). The load average is printed with it.
// A size that fails under the configured caps (similarity.memory_mb, time_limit_sec) is a row saying
// why; with --beyond-cap-mb N it is then run again with a memory cap of N MB to measure what it needs.
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { ConfigSchema } from '../src/config.ts'
import { AnalysisFailed, inBatches, runAnalysis, type RunOutcome } from '../src/similarity/runner.ts'
import { generateSubmissions } from '../src/testing/similarity-submissions.ts'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '300,1000' },
    nice: { type: 'string', default: '0' },
    'beyond-cap-mb': { type: 'string', default: '0' },
    json: { type: 'boolean', default: false },
  },
})
const cfg = ConfigSchema.parse({}).similarity
const beyondCapMb = Number(values['beyond-cap-mb'])

const rows = []
for (const size of values.sizes!.split(',').map(Number)) {
  const { files, planted } = generateSubmissions({ count: size, seed: 20261126 + size, copyShare: 0.05 })
  const lines = files.reduce((s, f) => s + f.source.split('\n').length, 0) / files.length
  const run = (memoryMb: number) =>
    runAnalysis(
      { language: 'python', batches: inBatches(files), minSimilarity: cfg.default_min_similarity, maxPairs: cfg.max_pairs, maxFingerprintShare: cfg.max_fingerprint_share },
      { timeSec: cfg.time_limit_sec, memoryMb, nice: Number(values.nice) }
    )
  let started = performance.now()
  let outcome: RunOutcome
  let capped: string | undefined
  try {
    outcome = await run(cfg.memory_mb)
  } catch (err) {
    if (!(err instanceof AnalysisFailed)) throw err
    capped = `failed at memory_mb ${cfg.memory_mb}: ${err.message} (after ${((performance.now() - started) / 1000).toFixed(1)} s, load ${loadavg()[0]!.toFixed(1)})`
    if (!(beyondCapMb > cfg.memory_mb)) {
      rows.push({ submissions: size, avg_lines: Math.round(lines), pairs: (size * (size - 1)) / 2, failed: capped })
      continue
    }
    started = performance.now()
    outcome = await run(beyondCapMb)
  }
  const { result, maxRssKb, ms } = outcome
  const wallMs = Math.round(performance.now() - started)
  const key = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`)
  const plantedKeys = new Set(planted.map(([a, b]) => key(a, b)))
  const reported = result.pairs.filter((p) => p.similarity >= cfg.default_min_similarity)
  const hits = reported.filter((p) => plantedKeys.has(key(p.left, p.right))).length
  const top = new Set(result.pairs.slice(0, plantedKeys.size).map((p) => key(p.left, p.right)))
  const lowestPlanted = Math.min(...result.pairs.filter((p) => plantedKeys.has(key(p.left, p.right))).map((p) => p.similarity))
  const highestOther = Math.max(0, ...result.pairs.filter((p) => !plantedKeys.has(key(p.left, p.right))).map((p) => p.similarity))
  rows.push({
    submissions: size,
    avg_lines: Math.round(lines),
    pairs: (size * (size - 1)) / 2,
    planted: plantedKeys.size,
    wall_s: +(wallMs / 1000).toFixed(2),
    child_s: +(ms / 1000).toFixed(2),
    peak_rss_mb: Math.round(maxRssKb / 1024),
    threshold: cfg.default_min_similarity,
    reported: reported.length,
    precision: reported.length ? +(hits / reported.length).toFixed(3) : 1,
    recall: +(hits / plantedKeys.size).toFixed(3),
    all_planted_in_top: [...plantedKeys].every((k) => top.has(k)),
    lowest_planted: lowestPlanted,
    highest_other_listed: highestOther,
    load_avg: +loadavg()[0]!.toFixed(1),
    memory_cap_mb: capped ? beyondCapMb : cfg.memory_mb,
    ...(capped && { at_configured_cap: capped }),
  })
}
if (values.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n')
else console.table(rows)
