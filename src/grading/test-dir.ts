// Test cases as graders and judges lay them out: NAME.in + NAME.out, input/inputNN.txt +
// output/outputNN.txt, or NN + NN.a (Codeforces/Polygon). Ordered naturally (2 before 10). A file
// without its pair is an error, not a silently dropped test; so are two tests of one name. pairTestFiles works on a list of paths
// (a folder's or a zip's); readTestDir reads a folder.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { NotAFile, readRegularFile } from '../sandbox/host-files.ts'

export interface NamedTest {
  name: string
  input: string
  expectedOutput: string
}

/** One test's files: its name, the input's path and the expected output's. */
export type TestPair = [name: string, input: string, output: string]

const natural = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

/**
 * Pairs relative paths ('/'-separated) into tests, in natural order; throws (with the file) on an
 * unpaired one. strict (an upload): a file that is no part of a test is an error too, not dropped.
 */
export function pairTestFiles(paths: string[], opts: { strict?: boolean } = {}): TestPair[] {
  const set = new Set(paths)
  const pairs: TestPair[] = []
  const used = new Set<string>()
  const inFolder = paths.filter((p) => /^input\/input[^/]*\.txt$/.test(p))
  if (inFolder.length || paths.some((p) => /^output\/output[^/]*\.txt$/.test(p))) {
    for (const p of inFolder) {
      const name = p.slice('input/input'.length, -'.txt'.length)
      const out = `output/output${name}.txt`
      if (!set.has(out)) throw new Error(`${p} has no ${out}`)
      pairs.push([name, p, out])
      used.add(p).add(out)
    }
    const left = paths.find((p) => /^output\/output[^/]*\.txt$/.test(p) && !used.has(p))
    if (left) throw new Error(`${left} has no input`)
  } else {
    for (const p of paths) {
      if (p.includes('/')) continue
      if (p.endsWith('.in')) {
        const name = p.slice(0, -3)
        if (!set.has(`${name}.out`)) throw new Error(`${p} has no ${name}.out`)
        pairs.push([name, p, `${name}.out`])
        used.add(p).add(`${name}.out`)
      } else if (/^\d+$/.test(p)) {
        if (!set.has(`${p}.a`)) throw new Error(`${p} has no ${p}.a`)
        pairs.push([p, p, `${p}.a`])
        used.add(p).add(`${p}.a`)
      }
    }
    const unpaired = paths.find((p) => !p.includes('/') && (p.endsWith('.out') || /^\d+\.a$/.test(p)) && !used.has(p))
    if (unpaired) throw new Error(`${unpaired} has no input`)
  }
  // two layouts can give one name (1.in + 1.out and 1 + 1.a): two tests of one name could not be told
  // apart in a reply or an output URL
  const byName = new Map<string, TestPair>()
  for (const pair of pairs) {
    const twin = byName.get(pair[0])
    if (twin) throw new Error(`two tests are named ${pair[0]}: ${twin[1]} + ${twin[2]} and ${pair[1]} + ${pair[2]}`)
    byName.set(pair[0], pair)
  }
  if (!pairs.length) throw new Error('no tests found (NAME.in + NAME.out, input/inputNN.txt + output/outputNN.txt, or NN + NN.a)')
  const stray = opts.strict ? paths.find((p) => !used.has(p)) : undefined
  if (stray) throw new Error(`${stray} is not a test file (NAME.in + NAME.out, input/inputNN.txt + output/outputNN.txt, or NN + NN.a)`)
  return pairs.sort((a, b) => natural(a[0], b[0]))
}

/** Largest test file read when no cap is given (the server caps by grading.test_max_bytes). */
const READ_CAP = 1 << 30

/**
 * The tests of a folder. Each file is read without following a link and must be a regular file of
 * UTF-8 text: a link, FIFO, socket or device where a test file is expected is refused by name (a test
 * folder may come from someone else: unpacked, generated or shared), never followed or read.
 */
export function readTestDir(dir: string, maxBytes = READ_CAP): NamedTest[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`)
  const paths: string[] = []
  const notFiles = new Set<string>()
  const walk = (d: string, depth: number) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const rel = relative(dir, join(d, e.name)).split('\\').join('/')
      if (e.isFile()) paths.push(rel)
      else if (e.isDirectory() && depth === 0 && (e.name === 'input' || e.name === 'output')) walk(join(d, e.name), 1)
      else if (!e.isDirectory()) {
        if (depth === 0 && (e.name === 'input' || e.name === 'output')) throw new Error(`${rel} is a link or special file, not a folder of tests`)
        // paired like a file, refused if a test needs it
        paths.push(rel)
        notFiles.add(rel)
      }
    }
  }
  walk(dir, 0)
  let pairs: TestPair[]
  try {
    pairs = pairTestFiles(paths)
  } catch (err) {
    throw new Error(`${(err as Error).message.replace('no tests found', `no tests in ${dir}`)}`)
  }
  const read = (rel: string) => {
    if (notFiles.has(rel)) throw new Error(`${rel} is a link or special file: test files must be regular files`)
    let bytes: Buffer
    try {
      bytes = readRegularFile(join(dir, rel), maxBytes)
    } catch (err) {
      throw new Error(err instanceof NotAFile ? `${rel} is a link or special file: test files must be regular files` : `${rel}: ${(err as Error).message}`)
    }
    try {
      return utf8.decode(bytes)
    } catch {
      throw new Error(`${rel} is not UTF-8 text`)
    }
  }
  return pairs.map(([name, i, o]) => ({ name, input: read(i), expectedOutput: read(o) }))
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
