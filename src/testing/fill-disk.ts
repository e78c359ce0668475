import { closeSync, openSync, rmSync, writeSync } from 'node:fs'

/** Fills the file system that holds `file` to its last block by appending to `file` until writes fail. */
export function fillDisk(file: string): void {
  const fd = openSync(file, 'a')
  try {
    // large chunks first, then smaller ones: the last blocks take writes a large chunk cannot
    for (const size of [1 << 20, 1 << 16, 1 << 12, 512, 1]) {
      const chunk = Buffer.alloc(size)
      for (;;) {
        try {
          writeSync(fd, chunk)
        } catch {
          break
        }
      }
    }
  } finally {
    closeSync(fd)
  }
}

/** Gives back what fillDisk took. */
export const freeDisk = (file: string): void => rmSync(file, { force: true })
