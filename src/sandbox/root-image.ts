// Where a toolchain root's image lives and where it is mounted. Each root (a debootstrapped Debian
// tree) is packed by provisioning into a squashfs image that the supervisor loop-mounts read-only,
// once per host: a jail's root is then a file system of its own, so its /proc/self/mountinfo shows
// "/" of a loop device rather than the host folder the toolchains live in (sandbox/README.md).
import { statSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { dirname, join, resolve } from 'node:path'

/** Host folder the roots' images are mounted under (the supervisor creates it). */
export const ROOTS_MOUNT_DIR = '/run/arbiter/roots'
/** The supervisor's copy of the jail's init, on its own small tmpfs (sandbox/supervisor.c JAIL_FS). */
export const JAIL_FS_INIT = '/run/arbiter/jailfs-4/init'

export function rootImagePath(toolchainsDir: string, root: string): string {
  return join(toolchainsDir, 'images', `${root}.sqfs`)
}

/** The toolchains directory of a standard installation (config paths.toolchains' default). */
export const STANDARD_TOOLCHAINS_DIR = '/var/lib/arbiter/toolchains'

/**
 * Where a root's image is mounted: `<mountDir>/<root>` for the standard toolchains directory, and
 * `<mountDir>/<root>@<hash of the image's path>` for any other, so that a second toolchains directory
 * on the same host (a private provisioning, a test) runs on its own image rather than on whichever
 * image of that root was mounted first.
 */
export function rootMountPoint(root: string, image?: string, mountDir = ROOTS_MOUNT_DIR): string {
  if (image === undefined || resolve(image) === rootImagePath(STANDARD_TOOLCHAINS_DIR, root)) return join(mountDir, root)
  return join(mountDir, `${root}@${createHash('sha256').update(resolve(image)).digest('hex').slice(0, 8)}`)
}

/** Whether something is mounted on path (its device differs from its parent's): two stat calls. */
export function isMountPoint(path: string): boolean {
  try {
    return statSync(path).dev !== statSync(dirname(path)).dev
  } catch {
    return false
  }
}
