// Test helpers for uploads: zips built with Python's zipfile (python3 is on every machine the setup
// runs on; it can write what attackers send: links, traversal names, bombs), and folders of files.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** [name, text or {bytes of zeros}, {link?: true}] */
export type ZipEntry = [string, string | { zeros: number }, { link?: boolean }?]

/** entries → a zip (deflated), each with a unix mode (a regular file, or a link). */
export function makeZip(entries: ZipEntry[]): Buffer {
  const script = `
import io, json, sys, zipfile
entries = json.loads(sys.argv[1])
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as z:
    for name, data, opts in entries:
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = ((0o120777 if opts.get('link') else 0o100644) << 16)
        z.writestr(info, b'\\0' * data['zeros'] if isinstance(data, dict) else data.encode())
sys.stdout.buffer.write(buf.getvalue())
`
  return execFileSync('python3', ['-c', script, JSON.stringify(entries.map(([n, d, o]) => [n, d, o ?? {}]))], { maxBuffer: 64 << 20 })
}

/** A folder root/name holding these files (paths with '/' make their folders). */
export function makeTree(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, name)
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true })
    writeFileSync(join(dir, f), text)
  }
  return dir
}
