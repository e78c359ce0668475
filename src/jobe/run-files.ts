// A run's file_list → the job's files, its work bounded by the request's size before any is done:
// file_list may name one uploaded id many times (each entry is a copy in the run's folder), so the
// entries are counted and the stored sizes summed from the store's index (no file is read) against
// the core's caps first; then each distinct id is located once, and the job names the store's file:
// the core links it into the job's own stored files at accept (storage/payloads.ts), so none of its
// bytes crosses the main thread. Refusals are Jobe's answers (JobeError).
import type { Config } from '../config.ts'
import type { LinkedFile } from '../evaluation/job-spec.ts'
import { JobeError } from './run-spec.ts'

/** What a run needs of the file store: the stored size (from its index) and where the content is. */
export interface RunFileSource {
  /** The stored size in bytes, without reading the file; undefined when the client has no such file. */
  size(clientId: number, fileId: string): number | undefined
  /** The content's file (never written in place) and its size, or undefined when the client has no such file (it counts as used). */
  locate(clientId: number, fileId: string): { path: string; bytes: number } | undefined
}

export const MISSING_FILES = 'One or more of the specified files is missing/unavailable'

export function runFiles(
  store: RunFileSource,
  clientId: number,
  list: readonly (readonly [string, string])[],
  limits: Pick<Config['limits'], 'files_max_count' | 'files_max_bytes'>
): LinkedFile[] {
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
  const located = new Map<string, { path: string; bytes: number }>()
  for (const id of sizes.keys()) {
    const at = store.locate(clientId, id)
    // gone since (evicted by a PUT in between), or not the size the index holds: as if never uploaded
    if (!at || at.bytes !== sizes.get(id)) throw new JobeError(404, MISSING_FILES)
    located.set(id, at)
  }
  return list.map(([id, name]) => ({ name, linkFrom: located.get(id)!.path, bytes: located.get(id)!.bytes }))
}
