// A `tests` zip of a problem upload → its test files, or a clear refusal. Read from memory with yauzl
// (a maintained zip reader that checks each entry's real inflated size against the declared one, and
// reads the backslashes of zips made on Windows as slashes). Refused: absolute paths, `..`, links and other non-regular entries, a name twice, a file that is no part of a test, more entries than a
// problem may have tests (twice, with their outputs), a file or a total larger than the caps — by
// the declared sizes before inflating anything, and by the bytes actually inflated while reading, so a
// zip bomb stops at the cap. One common top folder (a zipped "tests/" folder) is allowed and dropped.
import yauzl, { type Entry, type ZipFile } from 'yauzl'
import { pairTestFiles, type TestPair } from '../grading/test-dir.ts'

export interface ZipCaps {
  maxTests: number
  fileBytes: number
  totalBytes: number
}

export interface ZipTest {
  name: string
  input: Buffer
  output: Buffer
}

export class ZipRefused extends Error {}

const S_IFMT = 0o170000
const S_IFREG = 0o100000

/** What readZipFiles may read: entries, bytes of one file, bytes in all; wanted() says which files to inflate (the rest are listed by name only). */
export interface ZipReadCaps {
  maxFiles: number
  fileBytes: number
  totalBytes: number
  wanted?: (name: string) => boolean
  /**
   * Most an entry of at least `fromBytes` may inflate to per byte stored, refused by its declared sizes
   * before inflating (yauzl holds the real ones to them): a zip bomb's few KB standing for megabytes of
   * repeats. Absent: no ratio rule (test data is often that repetitive).
   */
  maxRatio?: { ratio: number; fromBytes: number }
  /** How the zip is named in refusals ("the tests zip", "the package"). */
  label: string
}

/**
 * Every regular file of a zip, by its path: refused on absolute or `..` paths, backslashes, links and
 * other non-regular entries, a name twice, more entries than maxFiles, and a file or a total over the
 * caps, by the declared sizes before inflating and by the bytes inflated (a zip bomb stops at the cap).
 * Files wanted() declines are not inflated: their names come back in `skipped`.
 */
export async function readZipFiles(data: Buffer, caps: ZipReadCaps): Promise<{ files: Map<string, Buffer>; skipped: string[] }> {
  const zip = await new Promise<ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(data, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (err, z) =>
      err ? reject(new ZipRefused(`${caps.label} does not open: ${err.message}`)) : resolve(z!)
    )
  )
  const files = new Map<string, Buffer>()
  const skipped: string[] = []
  const pending = new Set<string>()
  let entries = 0
  let declared = 0
  let inflated = 0
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (why: string) => reject(new ZipRefused(why))
      zip.on('error', (err: Error) => fail(`${caps.label} is damaged: ${err.message}`))
      zip.on('end', () => resolve())
      zip.on('entry', (entry: Entry) => {
        const name = entry.fileName
        if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.includes('\\')) return fail(`${name}: an absolute path or a backslash`)
        if (name.split('/').some((part) => part === '..')) return fail(`${name}: a path with ..`)
        if (name.endsWith('/')) return zip.readEntry() // a folder
        // a second entry of the same name would silently replace the first's data
        if (files.has(name) || pending.has(name)) return fail(`${name}: appears twice in the zip`)
        pending.add(name)
        // the unix mode's file type, when the zip records one (many tools record the permissions only)
        const type = ((entry.externalFileAttributes >>> 16) & 0xffff) & S_IFMT
        if (type && type !== S_IFREG) return fail(`${name}: not a regular file (a link or a device)`)
        if (++entries > caps.maxFiles) return fail(`more than ${caps.maxFiles} files in ${caps.label}`)
        if (caps.wanted && !caps.wanted(name)) {
          skipped.push(name)
          return zip.readEntry()
        }
        if (entry.uncompressedSize > caps.fileBytes) return fail(`${name}: larger than ${caps.fileBytes} bytes`)
        const r = caps.maxRatio
        if (r && entry.uncompressedSize >= r.fromBytes && entry.uncompressedSize > r.ratio * Math.max(1, entry.compressedSize))
          return fail(`${name}: inflates more than ${r.ratio} times (${entry.compressedSize} bytes stored for ${entry.uncompressedSize})`)
        declared += entry.uncompressedSize
        if (declared > caps.totalBytes) return fail(`${caps.label} is larger than ${caps.totalBytes} bytes in all`)
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return fail(`${name}: ${err?.message ?? 'unreadable'}`)
          const chunks: Buffer[] = []
          let size = 0
          stream.on('data', (chunk: Buffer) => {
            size += chunk.length
            inflated += chunk.length
            // the declared sizes were checked; the real ones are counted too
            if (size > caps.fileBytes || inflated > caps.totalBytes) {
              stream.destroy()
              return fail(`${name}: inflates beyond the caps`)
            }
            chunks.push(chunk)
          })
          stream.on('error', (e: Error) => fail(`${name}: ${e.message}`))
          stream.on('end', () => {
            files.set(name, Buffer.concat(chunks))
            zip.readEntry()
          })
        })
      })
      zip.readEntry()
    })
  } finally {
    zip.close()
  }
  return { files, skipped }
}

export async function readTestZip(data: Buffer, caps: ZipCaps): Promise<ZipTest[]> {
  const { files } = await readZipFiles(data, { maxFiles: 2 * caps.maxTests + 16, fileBytes: caps.fileBytes, totalBytes: caps.totalBytes, label: 'the tests zip' })
  // one common top folder (a zipped "tests/" folder) is dropped
  const names = [...files.keys()]
  const tops = new Set(names.map((n) => n.split('/')[0]))
  const prefix = tops.size === 1 && names.every((n) => n.includes('/')) && !['input', 'output'].includes([...tops][0]) ? `${[...tops][0]}/` : ''
  let pairs: TestPair[]
  try {
    // every file of an upload must be part of a test: nothing is dropped without a word
    pairs = pairTestFiles(names.map((n) => n.slice(prefix.length)), { strict: true })
  } catch (err) {
    throw new ZipRefused((err as Error).message)
  }
  if (pairs.length > caps.maxTests) throw new ZipRefused(`more than ${caps.maxTests} tests`)
  return pairs.map(([name, i, o]) => ({ name, input: files.get(prefix + i)!, output: files.get(prefix + o)! }))
}
