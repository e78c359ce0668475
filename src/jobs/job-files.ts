// A job's extra files (Jobe file_list, Piston files): the plain-name rule, and writing them into the
// work directory without following a link or replacing anything already there.
import { closeSync, constants, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { JobFile } from './types.ts'

/** A plain file name: no directory part, no '..', not hidden, no control characters. */
export const PLAIN_NAME = /^[A-Za-z0-9_+=@,-][A-Za-z0-9_+=@,. -]{0,254}$/
export const isPlainName = (name: unknown): name is string => typeof name === 'string' && PLAIN_NAME.test(name) && !name.includes('..')

/** Writes one file in dir by a plain name: O_EXCL|O_NOFOLLOW, so nothing existing is replaced or followed. */
export function writeNewFile(dir: string, name: string, content: string | Buffer, mode = 0o644): void {
  if (!isPlainName(name)) throw new Error(`refusing to write a file named ${JSON.stringify(name)}`)
  const fd = openSync(join(dir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode)
  try {
    const data = typeof content === 'string' ? Buffer.from(content) : content
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off)
  } finally {
    closeSync(fd)
  }
}

export function writeJobFiles(dir: string, files: JobFile[] = []): void {
  for (const f of files) writeNewFile(dir, f.name, Buffer.from(f.contentBase64, 'base64'))
}
