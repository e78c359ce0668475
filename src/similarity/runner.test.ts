// The analysis child fed its sources in many batches: every source arrives, in order; a batch that
// cannot be read fails the run with the reason.
import { expect, test } from 'vitest'
import { generateSubmissions } from '../testing/similarity-submissions.ts'
import { AnalysisFailed, inBatches, runAnalysis } from './runner.ts'

const settings = { language: 'python', minSimilarity: 0, maxPairs: 100 }
const limits = { timeSec: 120, memoryMb: 512 }

test('sources sent in many small batches all reach the analysis, in order', { timeout: 150_000 }, async () => {
  const { files, planted } = generateSubmissions({ count: 8, seed: 5, copyShare: 0.25 })
  const batches = [...inBatches(files, 3000)]
  expect(batches.length).toBeGreaterThanOrEqual(3)
  expect(batches.flat()).toEqual(files)
  const pulled: number[] = []
  function* lazily() {
    for (const [k, b] of batches.entries()) {
      pulled.push(k)
      yield b
    }
  }
  const { result } = await runAnalysis({ ...settings, batches: lazily() }, limits)
  expect(pulled).toEqual(batches.map((_, k) => k))
  expect(result.files.map((f) => f.id)).toEqual(files.map((f) => f.id))
  const key = (a: string, b: string) => [a, b].sort().join('|')
  expect(result.pairs.map((p) => key(p.left, p.right))).toContain(key(...planted[0]!))
})

test('a batch that cannot be read fails the analysis with the reason', { timeout: 60_000 }, async () => {
  const { files } = generateSubmissions({ count: 4, seed: 5, copyShare: 0 })
  function* broken() {
    yield files.slice(0, 2)
    throw new Error('disk on fire')
  }
  await expect(runAnalysis({ ...settings, batches: broken() }, limits)).rejects.toThrow(AnalysisFailed)
  await expect(runAnalysis({ ...settings, batches: broken() }, limits)).rejects.toThrow(/the sources could not be read: disk on fire/)
})
