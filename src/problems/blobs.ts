// Content-addressed files of problems' test data: <data>/problems/blobs/<first 2 hex>/<sha256>. Equal
// files are stored once; a file is written to a temporary name and renamed, so a reader never sees
// half of one; files no row refers to any more are removed after a deletion (or a failed upload).
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const blobsDir = (dataDir: string) => join(dataDir, 'problems', 'blobs')
const pathOf = (dataDir: string, hash: string) => join(blobsDir(dataDir), hash.slice(0, 2), hash)

export const hashOf = (data: Uint8Array) => createHash('sha256').update(data).digest('hex')

/** Stores data (unless a file with its hash is there already); returns its hash and whether it was new. */
export function putBlob(dataDir: string, data: Uint8Array): { hash: string; created: boolean } {
  const hash = hashOf(data)
  const file = pathOf(dataDir, hash)
  if (existsSync(file)) return { hash, created: false }
  mkdirSync(join(blobsDir(dataDir), hash.slice(0, 2)), { recursive: true })
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  writeFileSync(tmp, data, { mode: 0o600 })
  renameSync(tmp, file)
  return { hash, created: true }
}

export function readBlob(dataDir: string, hash: string): string {
  return readBlobBytes(dataDir, hash).toString('utf8')
}

/** A blob's bytes as stored (a kept package's zip). */
export function readBlobBytes(dataDir: string, hash: string): Buffer {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error('bad blob hash')
  return readFileSync(pathOf(dataDir, hash))
}

/** Removes the files of these hashes that isUsed says nothing refers to. */
export function removeUnused(dataDir: string, hashes: Iterable<string>, isUsed: (hash: string) => boolean): void {
  for (const hash of new Set(hashes)) if (/^[0-9a-f]{64}$/.test(hash) && !isUsed(hash)) rmSync(pathOf(dataDir, hash), { force: true })
}
