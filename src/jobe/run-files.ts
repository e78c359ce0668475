// A run's file_list → the job's files, its work bounded by the request's size before any is done:
// file_list may name one uploaded id many times (each entry is a copy in the run's folder), so the
// entries are counted and the stored sizes summed from the store's index (no file is read) against
// the core's caps first; then each distinct id is read and base64-encoded once, and every entry
// naming it shares that one string. Refusals are Jobe's answers (JobeError).
import type { Config } from '../config.ts'
import { JobeError } from './run-spec.ts'

/** What a run needs of the file store: the stored size (from its index) and the content. */
export interface RunFileSource {
  /** The stored size in bytes, without reading the file; undefined when the client has no such file. */
  size(clientId: number, fileId: string): number | undefined
  /** The content, or undefined when the client has no such file (it counts as used). */
  get(clientId: number, fileId: string): Buffer | undefined
}

export const MISSING_FILES = 'One or more of the specified files is missing/unavailable'

export function runFiles(
  store: RunFileSource,
  clientId: number,
  list: readonly (readonly [string, string])[],
  limits: Pick<Config['limits'], 'files_max_count' | 'files_max_bytes'>
): { name: string; contentBase64: string }[] {
  if (!list.length) return []
  if (list.length > limits.files_max_count) throw new JobeError(413, `file_list has more than ${limits.files_max_count} entries`)
  const sizes = new Map<string, number>()
  for (const [id] of list) {
    if (sizes.has(id)) continue
    const size = store.size(clientId, id)
    // the only 404 a run answers: CodeRunner then PUTs every file and tries again
    if (size === undefined) throw new JobeError(404, MISSING_FILES)
    sizes.set(id, size)
  }
  let total = 0
  for (const [id] of list) total += sizes.get(id)!
  if (total > limits.files_max_bytes) throw new JobeError(413, `the files of file_list come to more than ${limits.files_max_bytes} bytes`)
  const encoded = new Map<string, string>()
  for (const id of sizes.keys()) {
    const content = store.get(clientId, id)
    // gone since (evicted by a PUT in between), or not the size the index holds: as if never uploaded
    if (!content || content.length !== sizes.get(id)) throw new JobeError(404, MISSING_FILES)
    encoded.set(id, content.toString('base64'))
  }
  return list.map(([id, name]) => ({ name, contentBase64: encoded.get(id)! }))
}
