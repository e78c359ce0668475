// The directories and files sandbox/jail.cfg mounts over. They must exist in a toolchain root
// before it is used: the root is mounted read-only, so nsjail cannot create them at run time.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const DIRS = ['work', 'tmp', 'proc', 'dev', 'dev/shm', '.arbiter']
const FILES = ['dev/null', 'dev/zero', 'dev/urandom', 'dev/random', '.arbiter/init']

export function ensureMountPoints(root: string): void {
  for (const d of DIRS) mkdirSync(join(root, d), { recursive: true })
  // a plain empty file is enough for a bind mount target; debootstrap may have made device nodes
  for (const f of FILES) if (!existsSync(join(root, f))) writeFileSync(join(root, f), '')
}
