// Where a toolchain root's image lives and where it is mounted. Each root (a debootstrapped Debian
// tree) is packed by provisioning into a squashfs image that the supervisor loop-mounts read-only,
// once per host: a jail's root is then a file system of its own, so its /proc/self/mountinfo shows
// "/" of a loop device rather than the host folder the toolchains live in (sandbox/README.md).
import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Host folder the roots' images are mounted under (the supervisor creates it). */
export const ROOTS_MOUNT_DIR = '/run/arbiter/roots'
/** The supervisor's copy of the jail's init, on its own small tmpfs (sandbox/supervisor.c JAIL_FS). */
export const JAIL_FS_INIT = '/run/arbiter/jailfs-3/init'

export function rootImagePath(toolchainsDir: string, root: string): string {
  return join(toolchainsDir, 'images', `${root}.sqfs`)
}

export function rootMountPoint(root: string, mountDir = ROOTS_MOUNT_DIR): string {
  return join(mountDir, root)
}

/** Whether something is mounted on path (its device differs from its parent's): two stat calls. */
export function isMountPoint(path: string): boolean {
  try {
    return statSync(path).dev !== statSync(dirname(path)).dev
  } catch {
    return false
  }
}
