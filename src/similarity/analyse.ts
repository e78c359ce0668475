// One similarity analysis with Dolos (tree-sitter tokens, winnowed k-gram fingerprints): the sources of
// one language family in, every pair's similarity and the best pairs' matching fragments out. Pure (no
// database, no HTTP): it runs in the analysis child process (analyse-child.ts) and in tests.
//
// Dolos' own Report.allPairs() builds a Pair object (with a quadratic longest-common-run search) for each
// of the n²/2 pairs; for 1,000 submissions that is 500,000 objects. Here the similarity of every pair is
// summed from the fingerprint index in flat typed arrays instead, and Dolos' Pair (longest fragment,
// fragments) is built only for the pairs that are kept.
import { CodeTokenizer, File, FingerprintIndex, LanguagePicker, Region, TokenizedFile, type Fragment, type Tokenizer } from '@dodona/dolos-lib'
import type Parser from 'tree-sitter'

export interface AnalysisInput {
  /** A Dolos language name (languages.ts). */
  language: string
  files: { id: string; source: string }[]
  /** Starter code handed to everyone: its fingerprints are left out of every pair (MOSS's base file). */
  template?: string
  /** Pairs below this similarity are counted in the histogram but not kept. */
  minSimilarity: number
  /** The most pairs kept (the most similar ones). */
  maxPairs: number
  /** Fingerprints found in more than this fraction of the files are ignored (0 or 1: none are). */
  maxFingerprintShare?: number
  /** CPU seconds the parser may spend on one file before the file is left out (default FILE_PARSE_SEC). */
  fileParseSec?: number
}

/** A file the parser could not take: left out of the report, with the reason shown. */
export interface ExcludedFile {
  id: string
  reason: string
}

/** CPU seconds one file's parse may take: a normal 256 KB source parses in well under a second. */
export const FILE_PARSE_SEC = 5

export interface PairFragment {
  /** 1-based first and last line of the match in the left and in the right source. */
  left_lines: [number, number]
  right_lines: [number, number]
}

export interface PairResult {
  left: string
  right: string
  similarity: number
  /** Longest run of consecutive matching fingerprints. */
  longest_fragment: number
  /** Matching fingerprints, both sides counted. */
  overlap: number
  fragments: PairFragment[]
}

export interface AnalysisResult {
  /** Kept pairs, most similar first. */
  pairs: PairResult[]
  /** Pairs at or above minSimilarity (may be more than were kept). */
  pairs_above: number
  /** Every pair's similarity in HISTOGRAM_BINS bins of equal width over [0, 1]. */
  histogram: number[]
  files: { id: string; lines: number; fingerprints: number }[]
  /** Files left out: the parser could not take them within its budget (the report covers the rest). */
  excluded: ExcludedFile[]
}

export const HISTOGRAM_BINS = 20

export type Progress = (fraction: number, stage: string) => void

/** Similarities are reported to 4 decimals: enough to rank, and stable across runs. */
const round4 = (x: number) => Math.round(x * 1e4) / 1e4

export async function analyse(input: AnalysisInput, progress: Progress = () => {}): Promise<AnalysisResult> {
  if (input.files.length < 2) throw new Error('a similarity report needs at least two submissions')
  const language = await new LanguagePicker().findLanguage(input.language)
  const tokenizer = await language.createTokenizer({ includeComments: false })
  const budgetSec = input.fileParseSec ?? FILE_PARSE_SEC

  // 1. tokenize (the bulk of the time): 0 → 60 %. A file the parser cannot take is left out with its
  // reason; the report covers the others.
  const tokenized: TokenizedFile[] = []
  const files: AnalysisInput['files'] = []
  const excluded: ExcludedFile[] = []
  let lastReport = 0
  for (let i = 0; i < input.files.length; i++) {
    const f = input.files[i]!
    try {
      tokenized.push(tokenizeBounded(tokenizer, new File(`${files.length}`, f.source), budgetSec, f.id))
      files.push(f)
    } catch (err) {
      if (!(err instanceof Unparsable)) throw err
      excluded.push({ id: f.id, reason: err.message })
    }
    const now = performance.now()
    if (now - lastReport > 200) {
      lastReport = now
      progress((0.6 * (i + 1)) / input.files.length, 'tokenizing')
    }
  }
  const n = files.length
  if (n < 2) throw new Error(`fewer than two submissions could be parsed: ${excluded.map((x) => `${x.id}: ${x.reason}`).join('; ')}`)

  // 2. fingerprints (winnowing) into Dolos' index; the template's fingerprints are marked ignored
  progress(0.6, 'fingerprinting')
  const share = input.maxFingerprintShare
  const index = new FingerprintIndex(23, 17, false, share && share < 1 ? Math.max(2, Math.floor(share * n)) : undefined)
  index.addFiles(tokenized)
  if (input.template?.trim()) {
    let template: TokenizedFile
    try {
      template = tokenizeBounded(tokenizer, new File('template', input.template), budgetSec, 'the template')
    } catch (err) {
      throw err instanceof Unparsable ? new Error(`the template cannot be compared: ${err.message}`) : err
    }
    index.addIgnoredFile(template)
  }
  const entries = index.entries()
  const position = new Map<TokenizedFile, number>(tokenized.map((t, i) => [t, i]))
  const totals = new Float64Array(n)
  for (const e of entries) {
    const i = position.get(e.file)!
    // Dolos' denominator: a file's k-grams less its ignored (template or too common) fingerprints
    totals[i] = Math.max(0, e.kgrams.length - e.ignored.size)
  }

  // 3. covered k-grams of every pair: for each shared fingerprint, each pair of files holding it
  // gains that fingerprint's occurrences on both sides. Upper-triangle index of (i < j).
  progress(0.7, 'comparing')
  const tri = (i: number, j: number) => i * n - (i * (i + 1)) / 2 + (j - i - 1)
  const covered = new Uint32Array((n * (n - 1)) / 2)
  const shared = index.sharedFingerprints()
  const holders: number[] = []
  const counts: number[] = []
  for (let s = 0; s < shared.length; s++) {
    const fp = shared[s]!
    if (fp.ignored || fp.fileCount() < 2) continue
    holders.length = 0
    counts.length = 0
    for (const file of fp.files()) {
      const i = position.get(file as TokenizedFile)
      if (i === undefined) continue // the template
      holders.push(i)
      counts.push(fp.occurrencesOf(file).length)
    }
    for (let a = 0; a < holders.length; a++) {
      for (let b = a + 1; b < holders.length; b++) {
        const i = holders[a]!
        const j = holders[b]!
        covered[i < j ? tri(i, j) : tri(j, i)] += counts[a]! + counts[b]!
      }
    }
    if ((s & 1023) === 0) progress(0.7 + (0.15 * s) / shared.length, 'comparing')
  }

  // 4. histogram of all pairs and the candidates to keep
  const histogram = new Array<number>(HISTOGRAM_BINS).fill(0)
  let kept: { i: number; j: number; similarity: number }[] = []
  let above = 0
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const denominator = totals[i]! + totals[j]!
      const similarity = denominator > 0 ? Math.min(1, covered[tri(i, j)]! / denominator) : 0
      histogram[Math.min(HISTOGRAM_BINS - 1, Math.floor(similarity * HISTOGRAM_BINS))]! += 1
      if (similarity >= input.minSimilarity && similarity > 0) {
        above++
        kept.push({ i, j, similarity })
        // keep the candidate list bounded: trim to the best maxPairs whenever it doubles
        if (kept.length >= 2 * input.maxPairs + 1024) kept = best(kept, input.maxPairs)
      }
    }
  }
  kept = best(kept, input.maxPairs)

  // 5. Dolos' Pair for each kept pair: its longest fragment and the matching fragments as line ranges
  progress(0.85, 'fragments')
  const pairs: PairResult[] = []
  for (let k = 0; k < kept.length; k++) {
    const { i, j, similarity } = kept[k]!
    const pair = index.getPair(tokenized[i]!, tokenized[j]!)
    pairs.push({
      left: files[i]!.id,
      right: files[j]!.id,
      similarity: round4(similarity),
      longest_fragment: pair.longest,
      overlap: pair.overlap,
      fragments: pair.buildFragments().map(lines),
    })
    if ((k & 63) === 0) progress(0.85 + (0.15 * k) / kept.length, 'fragments')
  }
  progress(1, 'done')
  return {
    pairs,
    pairs_above: above,
    histogram,
    files: tokenized.map((t, i) => ({ id: files[i]!.id, lines: t.lineCount, fingerprints: entries[i]?.kgrams.length ?? 0 })),
    excluded,
  }
}

/** For the tests: the bounded tokenizer with the default budget. */
export const tokenizeForTest = (tokenizer: Tokenizer, file: File) => tokenizeBounded(tokenizer, file, FILE_PARSE_SEC, 'a test')

/** The parser gave up on a file: too slow for its budget, or a tree it could not walk. */
class Unparsable extends Error {}

/** CPU time of this process in ms: a stopped analysis (SIGSTOP, runner.ts) spends none. */
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/**
 * Dolos' CodeTokenizer.tokenizeFile, bounded: the parse is stopped once it has used budgetSec of CPU
 * (tree-sitter's error recovery is quadratic on some inputs: 140 KB of `"` in JavaScript took about 5
 * minutes), and the tree is walked with a stack of our own instead of Dolos' recursion (a source nesting
 * 10,000 parentheses, or one line of 10,000 terms, overflowed the call stack). The tokens and regions
 * are exactly Dolos' (analyse.test.ts compares them).
 */
function tokenizeBounded(tokenizer: Tokenizer, file: File, budgetSec: number, what: string): TokenizedFile {
  if (!(tokenizer instanceof CodeTokenizer)) {
    // not a tree-sitter language (none today): Dolos' own, a stack overflow still only this file's
    try {
      return tokenizer.tokenizeFile(file)
    } catch (err) {
      if (err instanceof RangeError) throw new Unparsable(`it could not be tokenized (${err.message}; ${what})`)
      throw err
    }
  }
  const parser = (tokenizer as unknown as { parser: Parser }).parser
  const text = file.content
  const deadline = cpuMs() + budgetSec * 1000
  let tree: Parser.Tree | undefined
  try {
    tree = parser.parse(text, undefined, { bufferSize: Math.max(32 * 1024, text.length * 2), progressCallback: () => cpuMs() > deadline })
  } catch {
    tree = undefined
  }
  if (!tree) {
    // a halted parse would otherwise be resumed by the next one
    parser.reset()
    throw new Unparsable(`the parser took more than ${budgetSec} s of CPU on it (${what})`)
  }
  // analyse() asks for no comments (createTokenizer({ includeComments: false }))
  const includeComments = false
  const tokens: string[] = []
  const mapping: Region[] = []
  const push = (token: string, location: Region) => {
    tokens.push(token)
    mapping.push(location)
  }
  interface Frame {
    location: Region
    include: boolean
    children: Parser.SyntaxNode[]
    next: number
  }
  const stack: Frame[] = []
  const enter = (node: Parser.SyntaxNode) => {
    const location = new Region(node.startPosition.row, node.startPosition.column, node.endPosition.row, node.endPosition.column)
    const include = !node.type.includes('comment') || includeComments
    if (include) {
      push('(', location)
      push(node.type, location)
    }
    stack.push({ location, include, children: node.namedChildren, next: 0 })
  }
  enter(tree.rootNode)
  while (stack.length) {
    const top = stack[stack.length - 1]!
    if (top.next < top.children.length) {
      enter(top.children[top.next++]!)
      continue
    }
    stack.pop()
    if (top.include) push(')', top.location)
    const parent = stack[stack.length - 1]
    if (!parent) break
    // as Dolos: a region ends where its first child that starts before its end begins
    const { startRow, startCol } = top.location
    const l = parent.location
    if (startRow < l.endRow || (startRow === l.endRow && startCol < l.endCol)) {
      l.endRow = startRow
      l.endCol = startCol
    }
  }
  return new TokenizedFile(file, tokens, mapping)
}

/** The best `limit` candidates, most similar first (ties: the earlier pair first, so runs agree). */
function best<T extends { i: number; j: number; similarity: number }>(list: T[], limit: number): T[] {
  return list.sort((a, b) => b.similarity - a.similarity || a.i - b.i || a.j - b.j).slice(0, limit)
}

/** A fragment's selections (0-based rows) as 1-based inclusive line ranges. */
const lines = (f: Fragment): PairFragment => ({
  left_lines: [f.leftSelection.startRow + 1, f.leftSelection.endRow + 1],
  right_lines: [f.rightSelection.startRow + 1, f.rightSelection.endRow + 1],
})
