// How root reads a single file in a place a jail (or someone else) could have shaped (a slot's files,
// a folder of tests): never through a link, never from a FIFO or device — only when
// open(O_NOFOLLOW|O_NONBLOCK) gives a regular file, whose descriptor is then the only thing read.
// (Files root creates there are made with O_CREAT|O_EXCL|O_NOFOLLOW: jobs/job-files.ts writeNewFile.)
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'

/** What was to be read is not a regular file (a link, a FIFO, a device, a folder). */
export class NotAFile extends Error {}

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
