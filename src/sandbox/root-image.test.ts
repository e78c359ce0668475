// The supervisor's rootmount request against the real kernel: a squashfs image loop-mounted
// read-only once, a second request a no-op, a missing image a clear error. Needs root and the
// supervisor npm test installs (scripts/install-nsjail.sh).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { isMountPoint, rootImagePath, rootMountPoint } from './root-image.ts'
import { Supervisor } from './supervisor.ts'

const config = loadConfig()

describe('root images', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-rootimg-'))
  const tree = join(dir, 'tree')
  const image = join(dir, 'test.sqfs')
  const mountPoint = join(dir, 'mnt', 'test')
  mkdirSync(join(tree, 'usr', 'bin'), { recursive: true })
  writeFileSync(join(tree, 'usr', 'bin', 'marker'), 'from the image\n')
  execFileSync('mksquashfs', [tree, image, '-comp', 'lz4', '-noappend', '-quiet', '-no-progress'])
  const sup = Supervisor.start(config.paths.supervisor, `rootimg-${process.pid}`, undefined, config.paths.jail_init)
  const mountsOf = (p: string) => readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.split(' ')[4] === p)

  afterAll(async () => {
    while (isMountPoint(mountPoint)) execFileSync('umount', [mountPoint])
    await sup.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('paths: <toolchains>/images/<root>.sqfs, mounted under /run/arbiter/roots', () => {
    expect(rootImagePath('/srv/tc', 'trixie')).toBe('/srv/tc/images/trixie.sqfs')
    expect(rootMountPoint('trixie')).toBe('/run/arbiter/roots/trixie')
    expect(rootMountPoint('trixie', '/var/lib/arbiter/toolchains/images/trixie.sqfs')).toBe('/run/arbiter/roots/trixie')
    // another toolchains directory's image has a mount point of its own, the same each time
    const other = rootMountPoint('trixie', '/srv/tc/images/trixie.sqfs')
    expect(other).toMatch(/^\/run\/arbiter\/roots\/trixie@[0-9a-f]{8}$/)
    expect(rootMountPoint('trixie', '/srv/tc/./images/trixie.sqfs')).toBe(other)
    expect(rootMountPoint('trixie', '/srv/tc2/images/trixie.sqfs')).not.toBe(other)
  })

  it('loop-mounts the image read-only, once, however often it is asked', async () => {
    expect(isMountPoint(mountPoint)).toBe(false)
    await sup.mountRoot(mountPoint, image)
    expect(isMountPoint(mountPoint)).toBe(true)
    expect(readFileSync(join(mountPoint, 'usr', 'bin', 'marker'), 'utf8')).toBe('from the image\n')
    await sup.mountRoot(mountPoint, image)
    const rows = mountsOf(mountPoint)
    expect(rows, rows.join('\n')).toHaveLength(1)
    expect(rows[0]).toMatch(/ - squashfs \/dev\/loop\d+ ro/)
    expect(() => writeFileSync(join(mountPoint, 'x'), '')).toThrow(/EROFS|read-only/i)
  })

  it('a missing image or a relative path is an error that says so, and mounts nothing', async () => {
    const other = join(dir, 'mnt', 'other')
    await expect(sup.mountRoot(other, join(dir, 'nothere.sqfs'))).rejects.toThrow(/root: image: No such file/)
    expect(isMountPoint(other)).toBe(false)
    await expect(sup.mountRoot('relative/mnt', image)).rejects.toThrow(/bad path/)
    await expect(sup.mountRoot(`${dir}/mnt/../x`, image)).rejects.toThrow(/bad path/) // join() would normalise it
  })
})
