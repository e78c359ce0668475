// Similarity reports at scale: 300 and 1,000 generated Python submissions of about 60 lines each, some
// of them planted copies of others (identifiers renamed, functions reordered, comments changed, a few
// lines added). Runs the analysis exactly as the server does (runner.ts: a niced child process with the
// configured caps) and prints time, the child's peak RSS, and precision / recall of the planted copies
// at the default threshold, and whether every planted copy is among the top pairs.
//
//   npx tsx scripts/bench-similarity.ts [--sizes 300,1000] [--nice 0] [--json]
//
// --nice: the child's nice value (the server uses 19, which on a busy machine measures the other load
// rather than the analysis; the default 0 measures the analysis). The load average is printed with it.
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { ConfigSchema } from '../src/config.ts'
import { runAnalysis } from '../src/similarity/runner.ts'
import { generateSubmissions } from '../src/testing/similarity-submissions.ts'

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '300,1000' }, nice: { type: 'string', default: '0' }, json: { type: 'boolean', default: false } } })
const cfg = ConfigSchema.parse({}).similarity

const rows = []
for (const size of values.sizes!.split(',').map(Number)) {
  const { files, planted } = generateSubmissions({ count: size, seed: 20261126 + size, copyShare: 0.05 })
  const lines = files.reduce((s, f) => s + f.source.split('\n').length, 0) / files.length
  const started = performance.now()
  const { result, maxRssKb, ms } = await runAnalysis(
    { language: 'python', files, minSimilarity: cfg.default_min_similarity, maxPairs: cfg.max_pairs, maxFingerprintShare: cfg.max_fingerprint_share },
    { timeSec: cfg.time_limit_sec, memoryMb: cfg.memory_mb, nice: Number(values.nice) }
  )
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
  })
}
if (values.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n')
else console.table(rows)
