// Disk use of the data directory for /health: bytes and files under it (links not followed) and the
// free space of its file system. Walking costs file system calls, so the answer is kept a minute.
import { readdirSync, lstatSync, statfsSync } from 'node:fs'
import { join } from 'node:path'

export interface DiskUsage {
  data_bytes: number
  data_files: number
  free_bytes: number
  total_bytes: number
}

export function measureDiskUsage(dir: string): DiskUsage {
  let bytes = 0
  let files = 0
  const walk = (d: string) => {
    let entries
    try {
      entries = readdirSync(d, { withFileTypes: true })
    } catch {
      return // gone meanwhile, or not ours to read
    }
    for (const e of entries) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else {
        try {
          bytes += lstatSync(p).size
          files++
        } catch {
          // removed while we walked
        }
      }
    }
  }
  walk(dir)
  const fs = statfsSync(dir)
  return { data_bytes: bytes, data_files: files, free_bytes: fs.bavail * fs.bsize, total_bytes: fs.blocks * fs.bsize }
}

/** measureDiskUsage, remembered for ttlMs. */
export function cachedDiskUsage(dir: string, ttlMs = 60_000, now = () => Date.now()): () => DiskUsage {
  let last: { at: number; value: DiskUsage } | undefined
  return () => {
    if (!last || now() - last.at > ttlMs) last = { at: now(), value: measureDiskUsage(dir) }
    return last.value
  }
}
