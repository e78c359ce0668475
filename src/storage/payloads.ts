// A job's extra files (Jobe file_list, Piston and Judge0 files) kept out of the submissions row: up to
// limits.files_max_bytes (16 MiB) that every read of the row would carry — the accept's RETURNING, the
// claim, the completion, a synchronous request's wait each read it whole on the main thread (measured:
// 0.25–0.4 s each for 16 MiB of files as base64 in the row, /health stalled 5–20 s by four such runs).
// Here they are written once, at accept, under <data>/payloads/<he_id>/<n>, before the transaction
// that inserts the row commits (a crash in between leaves a folder no row names: swept at start), so an
// accepted job never lacks its files; the row names them (name, size) and the pool's worker thread
// reads them. A folder goes when its submission is completed (or at the next start's sweep).
// A file the protocol already holds on this disk (a Jobe upload, content-addressed and never written
// in place) is hard-linked, not copied: accepting it reads none of its bytes.
import { copyFileSync, linkSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** A file as the core stores it: its bytes, or a file on this disk that is never changed in place. */
export type PayloadFile = { name: string; content: Buffer } | { name: string; linkFrom: string; bytes: number }

/** What the row keeps of each stored file (its index is its file name in the folder). */
export interface StoredFile {
  name: string
  bytes: number
}

/** A linked file that was gone (or changed size) by the time it was stored. */
export class PayloadGone extends Error {}

export const payloadsDir = (dataDir: string) => join(dataDir, 'payloads')
const folderOf = (dataDir: string, publicId: string) => join(payloadsDir(dataDir), publicId)

/** Writes the files of submission publicId; on any failure nothing of them is left. */
export function storePayloads(dataDir: string, publicId: string, files: readonly PayloadFile[]): StoredFile[] {
  const dir = folderOf(dataDir, publicId)
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    return files.map((f, i) => {
      const path = join(dir, String(i))
      if ('content' in f) {
        writeFileSync(path, f.content, { mode: 0o600, flag: 'wx' })
        return { name: f.name, bytes: f.content.length }
      }
      try {
        linkSync(f.linkFrom, path)
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code === 'ENOENT') throw new PayloadGone(`${f.name} is gone`)
        // another file system, or one without hard links: a copy (the kernel's, not through JS)
        if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw err
        copyFileSync(f.linkFrom, path)
      }
      if (statSync(path).size !== f.bytes) throw new PayloadGone(`${f.name} is not the size it was`)
      return { name: f.name, bytes: f.bytes }
    })
  } catch (err) {
    removePayloads(dataDir, publicId)
    throw err
  }
}

/**
 * An extra file of a job, stored here when the core accepted it and read where the job runs (the pool's
 * worker thread), so its bytes never cross the main thread.
 */
export interface JobFileAt {
  /** A plain name, as a job's file. */
  name: string
  /** Absolute path of the stored copy (written by the core, never named by a client). */
  path: string
  bytes: number
}

/** The job's files as the worker reads them. */
export const payloadFilesAt = (dataDir: string, publicId: string, stored: readonly StoredFile[]): JobFileAt[] =>
  stored.map((f, i) => ({ name: f.name, path: join(folderOf(dataDir, publicId), String(i)), bytes: f.bytes }))

export function removePayloads(dataDir: string, publicId: string): void {
  rmSync(folderOf(dataDir, publicId), { recursive: true, force: true })
}

/** Removes every folder whose submission is not waiting or running any more (or was never committed); how many. */
export function sweepPayloads(dataDir: string, pending: (publicId: string) => boolean): number {
  let names: string[]
  try {
    names = readdirSync(payloadsDir(dataDir))
  } catch {
    return 0
  }
  let removed = 0
  for (const publicId of names) {
    if (pending(publicId)) continue
    removePayloads(dataDir, publicId)
    removed++
  }
  return removed
}
