// The files CodeRunner uploads with PUT files/{id}, kept per client (Jobe shares one cache among all its
// callers; here a client sees only its own), content-addressed (an id names a blob by its SHA-256, so
// equal files are stored once), capped per client (jobe.file_cache_bytes) with the least recently
// used blobs evicted first. On disk under <data>/jobe-files/<client id>/: ids/<file id> holds the
// blob's hash; blobs/<hash> the content. Each write goes to a temporary file renamed into place.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface FileCache {
  put(clientId: number, fileId: string, content: Buffer): void
  /** Whether the client has the file (it counts as used). */
  has(clientId: number, fileId: string): boolean
  /** The content, or undefined when the client has no such file (it counts as used). */
  get(clientId: number, fileId: string): Buffer | undefined
  /** The stored size (a stat, no read); undefined when the client has no such file. */
  size(clientId: number, fileId: string): number | undefined
}

const ID = /^[A-Za-z0-9]{1,128}$/
export const isFileId = (id: string) => ID.test(id)

export function createFileCache(dir: string, capBytes: () => number): FileCache {
  const clientDir = (clientId: number) => join(dir, String(Math.trunc(clientId)))
  const idPath = (clientId: number, fileId: string) => {
    if (!isFileId(fileId)) throw new Error(`not a file id: ${fileId}`)
    return join(clientDir(clientId), 'ids', fileId)
  }
  const blobPath = (clientId: number, hash: string) => join(clientDir(clientId), 'blobs', hash)

  const atomicWrite = (path: string, data: string | Buffer) => {
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`
    writeFileSync(tmp, data, { mode: 0o600 })
    renameSync(tmp, path)
  }
  const touch = (path: string) => {
    const now = new Date()
    utimesSync(path, now, now)
  }

  /** The blob an id names, touched; undefined when either is gone (an evicted blob takes its ids with it). */
  function blobOf(clientId: number, fileId: string): string | undefined {
    const ids = idPath(clientId, fileId)
    let hash: string
    try {
      hash = readFileSync(ids, 'utf8').trim()
    } catch {
      return undefined
    }
    const blob = blobPath(clientId, hash)
    try {
      touch(blob)
      return blob
    } catch {
      try {
        unlinkSync(ids)
      } catch {
        /* already gone */
      }
      return undefined
    }
  }

  /** Evicts the least recently used blobs until the client's blobs fit the cap (never `keep`). */
  function evict(clientId: number, keep: string) {
    const blobs = join(clientDir(clientId), 'blobs')
    const entries = readdirSync(blobs)
      .filter((n) => !n.endsWith('.tmp'))
      .map((n) => {
        const s = statSync(join(blobs, n))
        return { path: join(blobs, n), size: s.size, used: s.mtimeMs }
      })
      .sort((a, b) => a.used - b.used)
    let total = entries.reduce((n, e) => n + e.size, 0)
    for (const e of entries) {
      if (total <= capBytes()) break
      if (e.path === keep) continue
      unlinkSync(e.path)
      total -= e.size
    }
  }

  return {
    put(clientId, fileId, content) {
      const hash = createHash('sha256').update(content).digest('hex')
      mkdirSync(join(clientDir(clientId), 'ids'), { recursive: true, mode: 0o700 })
      mkdirSync(join(clientDir(clientId), 'blobs'), { recursive: true, mode: 0o700 })
      const blob = blobPath(clientId, hash)
      try {
        touch(blob)
      } catch {
        atomicWrite(blob, content)
      }
      atomicWrite(idPath(clientId, fileId), hash)
      evict(clientId, blob)
    },
    has: (clientId, fileId) => blobOf(clientId, fileId) !== undefined,
    size(clientId, fileId) {
      const blob = blobOf(clientId, fileId)
      try {
        return blob ? statSync(blob).size : undefined
      } catch {
        return undefined
      }
    },
    get(clientId, fileId) {
      const blob = blobOf(clientId, fileId)
      if (!blob) return undefined
      try {
        return readFileSync(blob)
      } catch {
        return undefined
      }
    },
  }
}
