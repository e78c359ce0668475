// additional_files: Judge0 takes a Base64 .zip and unzips it beside the source (`unzip -n`, so a file
// named like the source does not replace it). Here the zip is read at the edge with yauzl, within caps
// counted on the bytes actually inflated, and becomes plain files for the core; folders, links, `..`
// and hidden names are refused rather than created.
import yauzl, { type Entry, type ZipFile } from 'yauzl'

export interface ZipFileCaps {
  maxFiles: number
  totalBytes: number
}

export interface PlainFile {
  name: string
  content: Buffer
}

export class ZipRefused extends Error {}

const S_IFMT = 0o170000
const S_IFREG = 0o100000
const PLAIN_NAME = /^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*$/

export async function readFilesZip(data: Buffer, caps: ZipFileCaps): Promise<PlainFile[]> {
  const zip = await new Promise<ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(data, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (err, z) =>
      err ? reject(new ZipRefused(`is not a zip archive (${err.message})`)) : resolve(z!)
    )
  )
  const files: PlainFile[] = []
  let declared = 0
  let inflated = 0
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (why: string) => reject(new ZipRefused(why))
      zip.on('error', (err: Error) => fail(`is a damaged zip archive (${err.message})`))
      zip.on('end', () => resolve())
      zip.on('entry', (entry: Entry) => {
        const name = entry.fileName
        if (name.endsWith('/')) return fail(`holds a folder (${name}): only plain files are supported`)
        if (!PLAIN_NAME.test(name) || name.includes('..')) return fail(`holds ${JSON.stringify(name)}: only plain file names (no folders, no leading dot)`)
        const type = ((entry.externalFileAttributes >>> 16) & 0xffff) & S_IFMT
        if (type && type !== S_IFREG) return fail(`holds ${name}, which is not a regular file`)
        if (files.length >= caps.maxFiles) return fail(`holds more than ${caps.maxFiles} files`)
        if (files.some((f) => f.name === name)) return fail(`holds ${name} twice`)
        declared += entry.uncompressedSize
        if (declared > caps.totalBytes) return fail(`inflates to more than ${caps.totalBytes} bytes`)
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return fail(`holds an unreadable ${name}`)
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => {
            inflated += chunk.length
            if (inflated > caps.totalBytes) {
              stream.destroy()
              return fail(`inflates to more than ${caps.totalBytes} bytes`)
            }
            chunks.push(chunk)
          })
          stream.on('error', (e: Error) => fail(`holds an unreadable ${name} (${e.message})`))
          stream.on('end', () => {
            files.push({ name, content: Buffer.concat(chunks) })
            zip.readEntry()
          })
        })
      })
      zip.readEntry()
    })
  } finally {
    zip.close()
  }
  return files
}
