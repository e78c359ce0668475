// A job's extra files (Jobe file_list, Piston files): the plain-name rule, and writing them into the
// work directory without following a link or replacing anything already there.
import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Job, JobFile, JobFileAt } from './types.ts'

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

export function writeJobFiles(dir: string, files: JobFile[] = [], filesAt: JobFileAt[] = []): void {
  for (const f of files) writeNewFile(dir, f.name, Buffer.from(f.contentBase64, 'base64'))
  for (const f of filesAt) writeNewFile(dir, f.name, readStoredFile(f))
}

/** A stored file's bytes: exactly the size the job names (a file changed since is not the job's). */
export function readStoredFile(f: JobFileAt): Buffer {
  const content = readFileSync(f.path)
  if (content.length !== f.bytes) throw new Error(`the stored file ${f.name} is ${content.length} bytes, not ${f.bytes}`)
  return content
}

/**
 * The job with its stored files carried as bytes, for a hop that cannot read this disk or must not
 * read a path the server names (the root jail daemon, a sandbox host); read asynchronously.
 */
export async function inlineFilesAt(job: Job): Promise<Job> {
  if (!job.filesAt?.length) return job
  const { filesAt, ...rest } = job
  const read = await Promise.all(
    filesAt.map(async (f) => {
      const content = await readFile(f.path)
      if (content.length !== f.bytes) throw new Error(`the stored file ${f.name} is ${content.length} bytes, not ${f.bytes}`)
      return { name: f.name, contentBase64: content.toString('base64') }
    })
  )
  return { ...rest, files: [...(rest.files ?? []), ...read] }
}
