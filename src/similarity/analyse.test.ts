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

test("the bounded tokenizer gives exactly Dolos' tokens and regions", async () => {
  const { CodeTokenizer, File, LanguagePicker } = await import('@dodona/dolos-lib')
  const { tokenizeForTest } = await import('./analyse.ts')
  const { files } = generateSubmissions({ count: 4, seed: 5, copyShare: 0.5 })
  for (const [lang, sources] of [
    ['python', files.map((f) => f.source)],
    ['javascript', ['// c\nfunction f(a, b) { return a.map((x) => x * b) /* k */ }\nconst s = "q" + `t${1}`\n']],
    ['java', ['class A { int f(int[] a) { int s = 0; for (int x : a) { s += x; } return s; } }\n']],
  ] as const) {
    const tokenizer = (await (await new LanguagePicker().findLanguage(lang)).createTokenizer({ includeComments: false })) as InstanceType<typeof CodeTokenizer>
    for (const source of sources) {
      const ours = tokenizeForTest(tokenizer, new File('x', source))
      const dolos = tokenizer.tokenizeFile(new File('x', source))
      expect(ours.tokens).toEqual(dolos.tokens)
      expect(ours.mapping.map(String)).toEqual(dolos.mapping.map(String))
    }
  }
})

// Sources one student can hand in that broke the whole class's report: each is left out with its
// reason, and the others are compared
const hostile: [string, string, string][] = [
  ['10,000 nested parentheses (Python)', 'python', `x = ${'('.repeat(10_000)}1${')'.repeat(10_000)}\n`],
  ['one line of 10,000 terms (Python)', 'python', `x = ${Array(10_000).fill('1').join('+')}\n`],
  ['10,000 nested parentheses (JavaScript)', 'javascript', `let x = ${'('.repeat(10_000)}1${')'.repeat(10_000)}\n`],
]

test.each(hostile)('%s: compared (a walk with no recursion), the report completes', { timeout: 60_000 }, async (_what, language, source) => {
  const base = language === 'python' ? 'def f(a):\n    return [x * 2 for x in a if x > 1]\n\nprint(f([1, 2, 3]))\n' : 'function f(a) { return a.filter((x) => x > 1).map((x) => x * 2) }\nconsole.log(f([1, 2, 3]))\n'
  const r = await analyse({ language, files: [{ id: 'deep', source }, { id: 'a', source: base }, { id: 'b', source: base }], minSimilarity: 0, maxPairs: 10 })
  expect(r.excluded).toEqual([])
  expect(r.files.map((f) => f.id)).toEqual(['deep', 'a', 'b'])
  expect(r.pairs.find((p) => p.left === 'a' && p.right === 'b')!.similarity).toBe(1)
})

test('a 140 KB JavaScript file of double quotes is left out past its parse budget, with its reason; the others are compared', { timeout: 120_000 }, async () => {
  const base = 'function f(a) { return a.filter((x) => x > 1).map((x) => x * 2) }\nconsole.log(f([1, 2, 3]))\n'
  const started = performance.now()
  const r = await analyse({
    language: 'javascript',
    files: [{ id: 'a', source: base }, { id: 'quotes', source: '"'.repeat(140 * 1024) }, { id: 'b', source: base }],
    minSimilarity: 0,
    maxPairs: 10,
    fileParseSec: 1,
  })
  expect(r.excluded).toEqual([{ id: 'quotes', reason: expect.stringMatching(/parser took more than 1 s of CPU/) }])
  expect(r.files.map((f) => f.id)).toEqual(['a', 'b'])
  expect(r.pairs).toMatchObject([{ left: 'a', right: 'b', similarity: 1 }])
  // the budget, not the quadratic parse (about 5 minutes), bounds it
  expect(performance.now() - started).toBeLessThan(30_000)
})

test('fewer than two files left: the report fails, naming why', async () => {
  await expect(
    analyse({ language: 'javascript', files: [{ id: 'a', source: 'let x = 1' }, { id: 'q', source: '"'.repeat(140 * 1024) }], minSimilarity: 0, maxPairs: 1, fileParseSec: 0.2 })
  ).rejects.toThrow(/fewer than two submissions could be parsed: q: the parser took more than 0.2 s/)
})
