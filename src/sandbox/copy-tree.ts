// Copies what a compile step left in a box (a tree the jailed compiler, and so the submission, may
// have shaped) to or from a folder outside it. Only folders, regular files and symbolic links are
// copied; a link is copied as the link it is (never followed, its target never rewritten), so a link
// to a host path stays a link evaluated inside the next jail. Modes lose setuid/setgid/sticky; owners
// become the destination folder's owner: in a box, the slot's jail uid (the box's tmpfs belongs to it),
// so the jail can charge the files to its run (sandbox/jail-init.c); in root's folders, root.
//
// The tree is measured before anything is written (measureTree): what the copy would take (each file's
// length, a hole in a sparse file included) is bounded by what the box really held (its allocated
// blocks) and by a total; depth and path length are bounded, and the walk is a loop, not recursion.
// A file with several names is copied once and linked again. Each file is opened without following
// links and must be the very inode that was measured; what is written is created exclusively.
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, lchownSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, symlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'

const PAGE = 4096

/** What a tree takes on a tmpfs: bytes (whole pages per file) and inodes. */
export interface TreeSize {
  bytes: number
  inodes: number
}

/** What a kept tree may be: beyond any of these it is refused before a byte is copied. */
export interface TreeBounds {
  /** Sum of the files' lengths (page-rounded), each inode once. */
  maxBytes: number
  maxInodes: number
  /** Folders below the root. */
  maxDepth: number
  /** Length of a path inside the tree, in bytes. */
  maxPathBytes: number
  /** How much more than its allocated blocks the copy may take (holes a linker left are not copied sparse). */
  holeSlackBytes: number
}

export const DEFAULT_TREE_BOUNDS: TreeBounds = {
  maxBytes: 1 << 30,
  maxInodes: 1 << 16,
  maxDepth: 32,
  maxPathBytes: 1024,
  holeSlackBytes: 4 << 20,
}

/** A tree that may not be kept: too large, too sparse, too deep, or changing under us. */
export class TreeRefused extends Error {}

interface Entry {
  rel: string
  kind: 'dir' | 'file' | 'link'
  mode: number
  dev: number
  ino: number
  size: number
  /** The first name of a file with several: this one is linked to it. */
  linkOf?: string
}

/** Walks from without following a link, checking bounds as it goes; folders come before what they hold. */
export function measureTree(from: string, bounds: TreeBounds = DEFAULT_TREE_BOUNDS): { size: TreeSize; entries: Entry[] } {
  const size: TreeSize = { bytes: 0, inodes: 0 }
  const entries: Entry[] = []
  const seen = new Map<string, string>()
  let allocated = 0
  const stack: { rel: string; depth: number }[] = [{ rel: '', depth: 0 }]
  while (stack.length) {
    const { rel, depth } = stack.pop()!
    for (const name of readdirSync(join(from, rel))) {
      const r = rel ? `${rel}/${name}` : name
      if (Buffer.byteLength(r) > bounds.maxPathBytes) throw new TreeRefused(`a path is longer than ${bounds.maxPathBytes} bytes`)
      const st = lstatSync(join(from, r))
      const base = { rel: r, mode: st.mode & 0o777, dev: st.dev, ino: st.ino, size: st.size }
      if (st.isDirectory()) {
        if (depth + 1 > bounds.maxDepth) throw new TreeRefused(`folders nest deeper than ${bounds.maxDepth}`)
        entries.push({ ...base, kind: 'dir' })
        stack.push({ rel: r, depth: depth + 1 })
      } else if (st.isFile()) {
        const id = `${st.dev}:${st.ino}`
        const first = st.nlink > 1 ? seen.get(id) : undefined
        if (first !== undefined) {
          entries.push({ ...base, kind: 'file', linkOf: first })
          continue // the same inode: no more bytes, no more inodes
        }
        if (st.nlink > 1) seen.set(id, r)
        entries.push({ ...base, kind: 'file' })
        size.bytes += Math.ceil(st.size / PAGE) * PAGE
        allocated += st.blocks * 512
      } else if (st.isSymbolicLink()) {
        entries.push({ ...base, kind: 'link' })
      } else continue // sockets, FIFOs, devices: nothing a program needs from a compile step
      size.inodes++
      if (size.inodes > bounds.maxInodes) throw new TreeRefused(`more than ${bounds.maxInodes} files and folders`)
      if (size.bytes > bounds.maxBytes) throw new TreeRefused(`more than ${bounds.maxBytes} bytes`)
    }
  }
  if (size.bytes > allocated + bounds.holeSlackBytes)
    throw new TreeRefused(`files with holes: copying them would take ${size.bytes} bytes for ${allocated} written`)
  return { size, entries }
}

const CHUNK = 1 << 20
let chunk: Buffer | undefined

/** Copies one measured file: opened without following a link, the same inode, at most its measured length. */
function copyFile(src: string, dst: string, e: Entry, owner: { uid: number; gid: number }): void {
  let inFd: number | undefined
  let outFd: number | undefined
  try {
    try {
      inFd = openSync(src, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    } catch (err) {
      throw new TreeRefused(`${e.rel} changed while it was copied (${(err as NodeJS.ErrnoException).code})`)
    }
    const st = fstatSync(inFd)
    if (!st.isFile() || st.dev !== e.dev || st.ino !== e.ino) throw new TreeRefused(`${e.rel} changed while it was copied`)
    outFd = openSync(dst, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    chunk ??= Buffer.allocUnsafe(CHUNK)
    for (let done = 0; done < e.size; ) {
      const n = readSync(inFd, chunk, 0, Math.min(CHUNK, e.size - done), done)
      if (n === 0) break
      for (let w = 0; w < n; ) w += writeSync(outFd, chunk, w, n - w, done + w)
      done += n
    }
    fchmodSync(outFd, e.mode)
    fchownSync(outFd, owner.uid, owner.gid)
  } finally {
    if (inFd !== undefined) closeSync(inFd)
    if (outFd !== undefined) closeSync(outFd)
  }
}

/**
 * Copies the contents of from into to (created if missing; what is copied must not be there yet);
 * returns what the copy takes. Throws TreeRefused, having written nothing, when the tree is out of bounds.
 */
export function copyTree(from: string, to: string, bounds: TreeBounds = DEFAULT_TREE_BOUNDS): TreeSize {
  return copyMeasured(from, to, measureTree(from, bounds))
}

/** Copies what measureTree found, checking each file is still the inode it measured. */
export function copyMeasured(from: string, to: string, { size, entries }: ReturnType<typeof measureTree>): TreeSize {
  mkdirSync(to, { recursive: true, mode: 0o755 })
  const owner = lstatSync(to)
  for (const e of entries) {
    const s = join(from, e.rel)
    const d = join(to, e.rel)
    if (e.kind === 'dir') {
      mkdirSync(d, { mode: e.mode })
      lchownSync(d, owner.uid, owner.gid)
    } else if (e.kind === 'link') {
      symlinkSync(readlinkSync(s), d)
      lchownSync(d, owner.uid, owner.gid)
    } else if (e.linkOf !== undefined) {
      linkSync(join(to, e.linkOf), d)
    } else copyFile(s, d, e, owner)
  }
  return size
}
