// How root touches a single file in a place a jail could have shaped (a box, a kept tree, a folder of
// tests): never through a link, never into a FIFO or device. Node has no openat(), so a file is created
// only in a folder root made (or a box just mounted) with O_CREAT|O_EXCL|O_NOFOLLOW — a name already
// there, a link included, is refused, never followed — and read only when open(O_NOFOLLOW|O_NONBLOCK)
// gives a regular file, whose descriptor is then the only thing read.
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, openSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** A name root was to create is already there (placed by what ran in the folder before). */
export class NameTaken extends Error {}
/** What was to be read is not a regular file (a link, a FIFO, a device, a folder). */
export class NotAFile extends Error {}

/** Creates dir/name (a plain name) holding data; refuses a name that exists in any form. */
export function writeNewFile(dir: string, name: string, data: string | Uint8Array, mode: number, owner?: number): void {
  if (!/^[^/]+$/.test(name) || name === '.' || name === '..') throw new Error(`not a plain file name: ${name}`)
  let fd: number
  try {
    fd = openSync(join(dir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new NameTaken(`${name} is already there`)
    throw err
  }
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    for (let w = 0; w < buf.length; ) w += writeSync(fd, buf, w, buf.length - w, w)
    fchmodSync(fd, mode)
    if (owner !== undefined) fchownSync(fd, owner, owner)
  } finally {
    closeSync(fd)
  }
}

/** Reads at most cap bytes of path, which must be a regular file (not a link to one); throws NotAFile or, past cap, an Error. */
export function readRegularFile(path: string, cap: number): Buffer {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new NotAFile(`${path} is a link`)
    throw err
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new NotAFile(`${path} is not a regular file`)
    if (st.size > cap) throw new Error(`${path} is larger than ${cap} bytes`)
    const buf = Buffer.allocUnsafe(Math.min(st.size, cap) + 1)
    let n = 0
    for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, n)
    if (n > cap) throw new Error(`${path} is larger than ${cap} bytes`)
    return buf.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}
