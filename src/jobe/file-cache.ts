// The files CodeRunner uploads with PUT files/{id}, kept per client (Jobe shares one cache among all its
// callers; here a client sees only its own) and content-addressed (an id names a blob by its SHA-256, so
// equal files are stored once per client). Bounded four ways, each counted in an index, never by
// listing a folder, so a PUT costs the same however full the store is:
// - per client: its ids (jobe.file_cache_files) and its blobs' disk blocks (jobe.file_cache_bytes, a
//   file counted in whole 4 KiB blocks, so a 1-byte file costs 4 KiB); past either, its least
//   recently used ids go first, as Jobe's own cache drops the files used longest ago;
// - across clients (jobe.file_store_files, jobe.file_store_bytes): past either, the client holding
//   the most loses its least recently used ids, so a client can push out another's files only while
//   that one holds more than it does;
// - an id unused for jobe.file_ttl_hours expires (Jobe deletes files unused for 2 days).
// A blob goes with its last id. CodeRunner's 404 → PUT → retry brings back whatever was dropped.
// On disk under <dir>/: index.db (SQLite: ids, blobs, each client's totals) and blobs/<client>/<hash>.
// The index is the truth: a blob is written (temporary file renamed into place) before the
// transaction that counts it, and unlinked after the one that forgets it; files a crash left
// uncounted are removed when the store opens. It is a cache: an index that cannot be read is started
// afresh.
import { createHash, randomBytes } from 'node:crypto'
import * as nodeFs from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'

export interface FileCache {
  /** Stores the file under the id (a FileTooLarge when it alone is past a cap). */
  put(clientId: number, fileId: string, content: Buffer): void
  /** Whether the client has the file (it counts as used). */
  has(clientId: number, fileId: string): boolean
  /** The content, or undefined when the client has no such file (it counts as used). */
  get(clientId: number, fileId: string): Buffer | undefined
  /**
   * Where the content is (a blob is never written in place: a link to it keeps this content) and its
   * size from the index, no byte read; undefined when the client has no such file (it counts as used).
   */
  locate(clientId: number, fileId: string): { path: string; bytes: number } | undefined
  /** The stored size from the index (no file is read); undefined when the client has no such file. */
  size(clientId: number, fileId: string): number | undefined
  /** What a client (or, without one, the whole store) holds, as counted. */
  usage(clientId?: number): { files: number; blobs: number; blockBytes: number }
  close(): void
}

export interface FileCacheLimits {
  /** Ids per client. */
  clientFiles: number
  /** Bytes of disk blocks per client. */
  clientBytes: number
  /** Ids in all. */
  totalFiles: number
  /** Bytes of disk blocks in all. */
  totalBytes: number
  /** An id unused this long is gone. */
  ttlMs: number
}

/** A PUT whose one file is past what the client's (or the whole) store may hold. */
export class FileTooLarge extends Error {}

export const BLOCK_BYTES = 4096
/** Disk blocks a file of this size takes (at least one: an empty file still costs its inode and entry). */
export const blocksOf = (bytes: number) => Math.max(1, Math.ceil(bytes / BLOCK_BYTES))

const ID = /^[A-Za-z0-9]{1,128}$/
export const isFileId = (id: string) => ID.test(id)

/** Expired ids dropped per PUT (an index range): more than a PUT adds, so expiry keeps up. */
const EXPIRE_BATCH = 16

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ids (client INTEGER NOT NULL, id TEXT NOT NULL, hash TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (client, id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ids_lru ON ids (client, used);
CREATE INDEX IF NOT EXISTS ids_age ON ids (used);
CREATE TABLE IF NOT EXISTS blobs (client INTEGER NOT NULL, hash TEXT NOT NULL, bytes INTEGER NOT NULL, blocks INTEGER NOT NULL, refs INTEGER NOT NULL, PRIMARY KEY (client, hash)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage (client INTEGER PRIMARY KEY, files INTEGER NOT NULL, blocks INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS usage_files ON usage (files);
CREATE INDEX IF NOT EXISTS usage_blocks ON usage (blocks);
`

/** Every statement the store runs after it opened (the tests check each one's query plan). */
export const STORE_SQL = {
  id: 'SELECT i.hash AS hash, i.used AS used, b.bytes AS bytes FROM ids i JOIN blobs b ON b.client = i.client AND b.hash = i.hash WHERE i.client = ? AND i.id = ?',
  touch: 'UPDATE ids SET used = ? WHERE client = ? AND id = ?',
  blob: 'SELECT bytes, blocks, refs FROM blobs WHERE client = ? AND hash = ?',
  insertId: 'INSERT INTO ids (client, id, hash, used) VALUES (?, ?, ?, ?)',
  deleteId: 'DELETE FROM ids WHERE client = ? AND id = ?',
  insertBlob: 'INSERT INTO blobs (client, hash, bytes, blocks, refs) VALUES (?, ?, ?, ?, 1)',
  addRef: 'UPDATE blobs SET refs = refs + ? WHERE client = ? AND hash = ?',
  deleteBlob: 'DELETE FROM blobs WHERE client = ? AND hash = ?',
  count: 'INSERT INTO usage (client, files, blocks) VALUES (?, ?, ?) ON CONFLICT (client) DO UPDATE SET files = files + excluded.files, blocks = blocks + excluded.blocks',
  clientUsage: 'SELECT files, blocks FROM usage WHERE client = ?',
  clientBlobs: 'SELECT COUNT(*) AS n FROM blobs WHERE client = ?',
  totals: 'SELECT COALESCE(SUM(files), 0) AS files, COALESCE(SUM(blocks), 0) AS blocks FROM usage',
  oldestOf: 'SELECT id FROM ids WHERE client = ? AND id != ? ORDER BY used LIMIT 1',
  mostFiles: 'SELECT client FROM usage ORDER BY files DESC LIMIT 2',
  mostBlocks: 'SELECT client FROM usage ORDER BY blocks DESC LIMIT 2',
  expired: `SELECT client, id FROM ids WHERE used < ? ORDER BY used LIMIT ${EXPIRE_BATCH}`,
  lastUsed: 'SELECT MAX(used) AS used FROM ids',
} as const

/** The file system calls the store makes (the tests count them). */
export type StoreFs = Pick<typeof nodeFs, 'mkdirSync' | 'writeFileSync' | 'renameSync' | 'unlinkSync' | 'openSync' | 'fstatSync' | 'readFileSync' | 'closeSync' | 'existsSync' | 'readdirSync' | 'rmSync'>

export function createFileCache(dir: string, limits: () => FileCacheLimits, opts: { now?: () => number; fs?: StoreFs } = {}): FileCache {
  const fs: StoreFs = opts.fs ?? nodeFs
  const now = opts.now ?? Date.now
  const clientKey = (clientId: number) => String(Math.trunc(clientId))
  const blobPath = (clientId: number, hash: string) => join(dir, 'blobs', clientKey(clientId), hash)
  const checkId = (fileId: string) => {
    if (!isFileId(fileId)) throw new Error(`not a file id: ${fileId}`)
  }

  let db: Database.Database | undefined
  let st: { [K in keyof typeof STORE_SQL]: Database.Statement }
  /** The last `used` stamp given: strictly increasing, so least recently used is well defined. */
  let lastTick = 0
  const tick = () => (lastTick = Math.max(now(), lastTick + 1))

  /** Opens the index at first use (a server that never sees a Jobe file creates nothing). */
  function open(): Database.Database {
    if (db) return db
    fs.mkdirSync(join(dir, 'blobs'), { recursive: true, mode: 0o700 })
    const file = join(dir, 'index.db')
    const fresh = !fs.existsSync(file)
    const openIndex = () => {
      const h = new Database(file)
      try {
        h.pragma('journal_mode = WAL')
        h.pragma('synchronous = NORMAL')
        if (h.pragma('quick_check', { simple: true }) !== 'ok') throw new Error('index damaged')
        h.exec(SCHEMA)
        return h
      } catch (err) {
        h.close()
        throw err
      }
    }
    let handle: Database.Database
    try {
      handle = openIndex()
    } catch {
      // a cache: what cannot be read is dropped, and CodeRunner uploads it again
      for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true })
      fs.rmSync(join(dir, 'blobs'), { recursive: true, force: true })
      fs.mkdirSync(join(dir, 'blobs'), { recursive: true, mode: 0o700 })
      handle = openIndex()
    }
    const h = handle
    st = Object.fromEntries(Object.entries(STORE_SQL).map(([k, sql]) => [k, h.prepare(sql)])) as typeof st
    lastTick = Number((st.lastUsed.get() as { used: number | null }).used ?? 0)
    db = h
    // the layout before the index (<dir>/<client>/ids and blobs): its files were never counted
    if (fresh) for (const name of fs.readdirSync(dir)) if (/^\d+$/.test(name)) fs.rmSync(join(dir, name), { recursive: true, force: true })
    sweepUncounted()
    return h
  }

  /** Blob files no row counts (a crash between the write and its transaction) and temporary files. */
  function sweepUncounted() {
    const root = join(dir, 'blobs')
    for (const client of fs.readdirSync(root, { withFileTypes: true })) {
      if (!client.isDirectory()) {
        fs.rmSync(join(root, client.name), { force: true })
        continue
      }
      const clientId = Number(client.name)
      for (const name of fs.readdirSync(join(root, client.name))) {
        if (Number.isInteger(clientId) && st.blob.get(clientId, name)) continue
        fs.rmSync(join(root, client.name, name), { force: true })
      }
    }
  }

  /** Forgets an id (and its blob with its last id) in the running transaction; the files to unlink after it go to `gone`. */
  function dropId(clientId: number, fileId: string, gone: string[]) {
    const row = st.id.get(clientId, fileId) as { hash: string } | undefined
    if (!row) return
    st.deleteId.run(clientId, fileId)
    st.count.run(clientId, -1, 0)
    const blob = st.blob.get(clientId, row.hash) as { blocks: number; refs: number } | undefined
    if (!blob) return
    if (blob.refs > 1) st.addRef.run(-1, clientId, row.hash)
    else {
      st.deleteBlob.run(clientId, row.hash)
      st.count.run(clientId, 0, -blob.blocks)
      gone.push(blobPath(clientId, row.hash))
    }
  }

  const unlinkAll = (paths: string[]) => {
    for (const p of paths) fs.rmSync(p, { force: true })
  }

  /** The id's row when it is there and not expired (an expired one is dropped on the way). */
  function live(clientId: number, fileId: string): { hash: string; bytes: number } | undefined {
    checkId(fileId)
    const d = open()
    const row = st.id.get(clientId, fileId) as { hash: string; used: number; bytes: number } | undefined
    if (!row) return undefined
    if (row.used >= now() - limits().ttlMs) return row
    const gone: string[] = []
    d.transaction(() => dropId(clientId, fileId, gone))()
    unlinkAll(gone)
    return undefined
  }

  /** Evicts least recently used ids, never `keep`, while `over()` holds and `pick()` names a client to take from. */
  function evict(over: () => boolean, pick: () => number | undefined, keep: [number, string], gone: string[]) {
    while (over()) {
      const client = pick()
      if (client === undefined) return
      const victim = st.oldestOf.get(client, client === keep[0] ? keep[1] : '') as { id: string } | undefined
      if (!victim) return
      dropId(client, victim.id, gone)
    }
  }

  return {
    put(clientId, fileId, content) {
      checkId(fileId)
      const d = open()
      const l = limits()
      const blocks = blocksOf(content.length)
      if (blocks * BLOCK_BYTES > Math.min(l.clientBytes, l.totalBytes)) throw new FileTooLarge(`larger than the file cache (${Math.min(l.clientBytes, l.totalBytes)} bytes)`)
      const hash = createHash('sha256').update(content).digest('hex')
      const path = blobPath(clientId, hash)
      // written before the transaction that counts it (a crash leaves an uncounted file, swept at open)
      const written = !st.blob.get(clientId, hash) || !fs.existsSync(path)
      if (written) {
        const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`
        try {
          fs.writeFileSync(tmp, content, { mode: 0o600 })
        } catch (err) {
          // the client's first file (its folder is made then, not looked for at every PUT)
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
          fs.mkdirSync(join(dir, 'blobs', clientKey(clientId)), { recursive: true, mode: 0o700 })
          fs.writeFileSync(tmp, content, { mode: 0o600 })
        }
        fs.renameSync(tmp, path)
      }
      const gone: string[] = []
      try {
        d.transaction(() => {
          const at = tick()
          const old = st.id.get(clientId, fileId) as { hash: string } | undefined
          if (old?.hash === hash) st.touch.run(at, clientId, fileId)
          else {
            if (old) dropId(clientId, fileId, gone)
            // a blob row whose file had vanished is counted again as it is
            if (st.blob.get(clientId, hash)) st.addRef.run(1, clientId, hash)
            else {
              st.insertBlob.run(clientId, hash, content.length, blocks)
              st.count.run(clientId, 0, blocks)
            }
            st.insertId.run(clientId, fileId, hash, at)
            st.count.run(clientId, 1, 0)
          }
          for (const e of st.expired.all(now() - l.ttlMs) as { client: number; id: string }[]) if (e.client !== clientId || e.id !== fileId) dropId(e.client, e.id, gone)
          const mine = () => st.clientUsage.get(clientId) as { files: number; blocks: number }
          evict(
            () => mine().files > l.clientFiles || mine().blocks * BLOCK_BYTES > l.clientBytes,
            () => clientId,
            [clientId, fileId],
            gone
          )
          const totals = () => st.totals.get() as { files: number; blocks: number }
          // the client holding the most gives way (of files or of blocks, whichever is past its cap)
          evict(
            () => totals().files > l.totalFiles || totals().blocks * BLOCK_BYTES > l.totalBytes,
            () => {
              const byBlocks = totals().blocks * BLOCK_BYTES > l.totalBytes
              const [first, second] = (byBlocks ? st.mostBlocks : st.mostFiles).all() as { client: number }[]
              // the putter's one new file is all it holds: the next one gives way
              if (first?.client === clientId && (st.clientUsage.get(clientId) as { files: number }).files <= 1) return second?.client
              return first?.client
            },
            [clientId, fileId],
            gone
          )
        })()
      } catch (err) {
        if (written && !st.blob.get(clientId, hash)) fs.rmSync(path, { force: true })
        throw err
      }
      // never the new blob: its id is kept, so its refs never reach 0
      unlinkAll(gone)
    },

    has(clientId, fileId) {
      const row = live(clientId, fileId)
      if (row) st.touch.run(tick(), clientId, fileId)
      return row !== undefined
    },

    size: (clientId, fileId) => live(clientId, fileId)?.bytes,

    locate(clientId, fileId) {
      const row = live(clientId, fileId)
      if (!row) return undefined
      st.touch.run(tick(), clientId, fileId)
      return { path: blobPath(clientId, row.hash), bytes: row.bytes }
    },

    get(clientId, fileId) {
      const row = live(clientId, fileId)
      if (!row) return undefined
      let content: Buffer | undefined
      let fd: number | undefined
      try {
        fd = fs.openSync(blobPath(clientId, row.hash), 'r')
        // never more than the index counted (a file changed underneath is as good as gone)
        if (fs.fstatSync(fd).size === row.bytes) content = fs.readFileSync(fd)
      } catch {
        content = undefined
      } finally {
        if (fd !== undefined) fs.closeSync(fd)
      }
      if (!content || content.length !== row.bytes) {
        const gone: string[] = []
        db!.transaction(() => dropId(clientId, fileId, gone))()
        unlinkAll(gone)
        return undefined
      }
      st.touch.run(tick(), clientId, fileId)
      return content
    },

    usage(clientId) {
      open()
      if (clientId === undefined) {
        const t = st.totals.get() as { files: number; blocks: number }
        const blobs = (db!.prepare('SELECT COUNT(*) AS n FROM blobs').get() as { n: number }).n
        return { files: t.files, blobs, blockBytes: t.blocks * BLOCK_BYTES }
      }
      const u = (st.clientUsage.get(clientId) as { files: number; blocks: number } | undefined) ?? { files: 0, blocks: 0 }
      return { files: u.files, blobs: (st.clientBlobs.get(clientId) as { n: number }).n, blockBytes: u.blocks * BLOCK_BYTES }
    },

    close() {
      db?.close()
      db = undefined
    },
  }
}
