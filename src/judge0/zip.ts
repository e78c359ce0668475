// additional_files: Judge0 takes a Base64 .zip and unzips it beside the source (`unzip -n`, so a file
// named like the source does not replace it). Here it is read at the edge by the project's zip reader
// (problems/zip.ts: entry count, sizes declared and inflated, absolute and `..` names, links and other
// non-regular entries all refused before or while inflating), with a ratio rule against bombs, and
// becomes plain files for the core: the core's work directory takes plain names only, so a file in a
// folder and a hidden name are refused rather than flattened.
import { isPlainName } from '../jobs/job-files.ts'
import { readZipFiles, ZipRefused as ReaderRefused } from '../problems/zip.ts'

export interface ZipFileCaps {
  maxFiles: number
  totalBytes: number
}

export interface PlainFile {
  name: string
  content: Buffer
}

export class ZipRefused extends Error {}

/** An entry of 64 KiB or more that inflates over 200 times its stored size: source text rarely passes 20. */
export const ZIP_RATIO = { ratio: 200, fromBytes: 64 * 1024 }

export async function readFilesZip(data: Buffer, caps: ZipFileCaps): Promise<PlainFile[]> {
  // every name must be plain: a folder entry is one too many rather than skipped
  const folders: string[] = []
  let files: Map<string, Buffer>
  try {
    ;({ files } = await readZipFiles(data, {
      maxFiles: caps.maxFiles,
      fileBytes: caps.totalBytes,
      totalBytes: caps.totalBytes,
      maxRatio: ZIP_RATIO,
      label: 'the zip',
      wanted: (name) => {
        if (!isPlainName(name)) folders.push(name)
        return isPlainName(name)
      },
    }))
  } catch (err) {
    if (err instanceof ReaderRefused) throw new ZipRefused(judge0Words(err.message))
    throw err
  }
  if (folders.length) throw new ZipRefused(`holds ${JSON.stringify(folders[0])}: only plain file names (no folders, no leading dot)`)
  return [...files].map(([name, content]) => ({ name, content }))
}

/** The reader's refusal as Rails words it after the attribute's name ("additional_files is not a zip archive (…)"). */
function judge0Words(message: string): string {
  const open = /^the zip does not open: (.*)$/s.exec(message)
  if (open) return `is not a zip archive (${open[1]})`
  // yauzl itself refuses these names, as an error of the archive
  const traversal = /^the zip is damaged: invalid relative path: (.*)$/s.exec(message)
  if (traversal) return `holds ${JSON.stringify(traversal[1])}: a path with ..`
  const absolute = /^the zip is damaged: absolute path: (.*)$/s.exec(message)
  if (absolute) return `holds ${JSON.stringify(absolute[1])}: an absolute path`
  const damaged = /^the zip is damaged: (.*)$/s.exec(message)
  if (damaged) return `is a damaged zip archive (${damaged[1]})`
  const total = /^the zip is larger than (\d+) bytes in all$/.exec(message)
  if (total) return `inflates to more than ${total[1]} bytes`
  const count = /^more than (\d+) files in the zip$/.exec(message)
  if (count) return `holds more than ${count[1]} files`
  const big = /^(.*): larger than (\d+) bytes$/s.exec(message)
  if (big) return `inflates to more than ${big[2]} bytes`
  // "<name>: <why>" (a path with .., an absolute path, a link, inflates beyond the caps, …)
  const entry = /^(.*?): (.*)$/s.exec(message)
  return entry ? `holds ${JSON.stringify(entry[1])}: ${entry[2]}` : message
}
