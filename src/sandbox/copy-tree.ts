// Copies what a compile step left in a box (a tree the jailed compiler, and so the submission, may
// have shaped) to or from a folder outside it. Only folders, regular files and symbolic links are
// copied; a link is copied as the link it is (never followed, its target never rewritten), so a link
// to a host path stays a link evaluated inside the next jail. Modes lose setuid/setgid/sticky; owners
// become the destination folder's owner: in a box, the slot's jail uid (the box's tmpfs belongs to it),
// so the jail can charge the files to its run (sandbox/jail-init.c); in root's folders, root.
import { chmodSync, copyFileSync, lchownSync, lstatSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
const PAGE = 4096

/** What a tree takes on a tmpfs: bytes (whole pages per file) and inodes. */
export interface TreeSize {
  bytes: number
  inodes: number
}

/** Copies the contents of from into to (created if missing); returns what the copy takes. */
export function copyTree(from: string, to: string): TreeSize {
  const size: TreeSize = { bytes: 0, inodes: 0 }
  mkdirSync(to, { recursive: true, mode: 0o755 })
  const { uid, gid } = lstatSync(to)
  const walk = (src: string, dst: string) => {
    for (const name of readdirSync(src)) {
      const s = join(src, name)
      const d = join(dst, name)
      const st = lstatSync(s)
      if (st.isDirectory()) {
        mkdirSync(d, { mode: st.mode & 0o777 })
        walk(s, d)
      } else if (st.isFile()) {
        copyFileSync(s, d)
        chmodSync(d, st.mode & 0o777)
        size.bytes += Math.ceil(st.size / PAGE) * PAGE
      } else if (st.isSymbolicLink()) {
        symlinkSync(readlinkSync(s), d)
      } else continue // sockets, FIFOs, devices: nothing a program needs from a compile step
      lchownSync(d, uid, gid)
      size.inodes++
    }
  }
  walk(from, to)
  return size
}
