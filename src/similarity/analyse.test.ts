// The analysis itself (Dolos in this process): every pair counted in the histogram, pairs ranked and
// capped, fragments as 1-based line ranges, the template's fingerprints left out.
import { expect, test } from 'vitest'
import { analyse, HISTOGRAM_BINS } from './analyse.ts'
import { generateSubmissions } from '../testing/similarity-submissions.ts'

test('ranks the planted copies first, counts every pair, keeps at most maxPairs', { timeout: 60_000 }, async () => {
  const { files, planted } = generateSubmissions({ count: 12, seed: 3, copyShare: 0.25 })
  const steps: string[] = []
  const r = await analyse({ language: 'python', files, minSimilarity: 0, maxPairs: 5 }, (_f, stage) => steps.push(stage))
  expect(r.histogram).toHaveLength(HISTOGRAM_BINS)
  expect(r.histogram.reduce((a, b) => a + b, 0)).toBe(66)
  expect(r.pairs).toHaveLength(5)
  expect(r.pairs_above).toBeGreaterThan(5)
  const key = (a: string, b: string) => [a, b].sort().join('|')
  const top = new Set(r.pairs.slice(0, planted.length).map((p) => key(p.left, p.right)))
  for (const [a, b] of planted) expect(top.has(key(a, b))).toBe(true)
  const sims = r.pairs.map((p) => p.similarity)
  expect(sims).toEqual([...sims].sort((a, b) => b - a))
  for (const p of r.pairs.slice(0, planted.length)) {
    expect(p.similarity).toBeGreaterThan(0.5)
    for (const f of p.fragments) {
      expect(f.left_lines[0]).toBeGreaterThanOrEqual(1)
      expect(f.left_lines[1]).toBeGreaterThanOrEqual(f.left_lines[0])
    }
  }
  expect(steps).toContain('tokenizing')
  expect(steps.at(-1)).toBe('done')
})

test('a template shared by every file is subtracted', async () => {
  const template = 'import sys\n\ndef read_all():\n    data = sys.stdin.read().split()\n    values = [int(v) for v in data]\n    values.sort()\n    return values\n\n\ndef answer(x):\n    print(x)\n    sys.stdout.flush()\n'
  const files = [
    { id: 'a', source: `${template}\nanswer(sum(read_all()))\n` },
    { id: 'b', source: `${template}\nvals = read_all()\nfor k in range(len(vals)):\n    if vals[k] % 2:\n        answer(vals[k] * k)\n` },
  ]
  const plain = await analyse({ language: 'python', files, minSimilarity: 0, maxPairs: 10 })
  const subtracted = await analyse({ language: 'python', files, template, minSimilarity: 0, maxPairs: 10 })
  expect(plain.pairs[0]!.similarity).toBeGreaterThan(0.5)
  expect(subtracted.pairs[0]?.similarity ?? 0).toBeLessThan(0.2)
})

test('refuses fewer than two files and an unknown language', async () => {
  await expect(analyse({ language: 'python', files: [{ id: 'a', source: 'x = 1' }], minSimilarity: 0, maxPairs: 1 })).rejects.toThrow(/two/)
  await expect(analyse({ language: 'cobol', files: [{ id: 'a', source: '' }, { id: 'b', source: '' }], minSimilarity: 0, maxPairs: 1 })).rejects.toThrow()
})
