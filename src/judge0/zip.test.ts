import { describe, expect, it } from 'vitest'
import { makeZip } from '../testing/zips.ts'
import { readFilesZip, ZIP_RATIO } from './zip.ts'

const caps = { maxFiles: 8, totalBytes: 16 << 20 }

// the zips are made by python3 subprocesses: room for a loaded machine
describe('readFilesZip (additional_files)', { timeout: 60_000 }, () => {
  it('gives back plain files as they were zipped', async () => {
    const files = await readFilesZip(makeZip([['run', 'echo hi\n'], ['data.txt', 'x'.repeat(100)]]), caps)
    expect(files.map((f) => [f.name, f.content.toString()])).toEqual([['run', 'echo hi\n'], ['data.txt', 'x'.repeat(100)]])
  })

  it('refuses a bomb under the size caps by its ratio, before inflating it', async () => {
    // 4 MiB of zeros deflate to ~4 KB: within the 16 MiB total, over 200:1
    const bomb = makeZip([['run', 'cat zeros\n'], ['zeros', { zeros: 4 << 20 }]])
    expect(bomb.length).toBeLessThan(64 << 10)
    await expect(readFilesZip(bomb, caps)).rejects.toThrow(/^holds "zeros": inflates more than 200 times/)
    // the same data under the ratio's floor is an ordinary file
    const small = makeZip([['zeros', { zeros: ZIP_RATIO.fromBytes - 1 }]])
    expect((await readFilesZip(small, caps))[0].content.length).toBe(ZIP_RATIO.fromBytes - 1)
  })

  it('refuses a bomb over the total by its declared sizes, at once', async () => {
    const bomb = makeZip([['a', { zeros: 10 << 20 }], ['b', { zeros: 10 << 20 }]])
    const t0 = performance.now()
    await expect(readFilesZip(bomb, { ...caps, totalBytes: 12 << 20 })).rejects.toThrow(/inflates/)
    // 20 MiB were never inflated (that alone takes tens of ms here)
    expect(performance.now() - t0).toBeLessThan(1000)
  })

  it.each([
    ['a .. name', '../run', /^holds "\.\.\/run": a path with \.\./],
    ['a nested .. name', 'a/../../run', /^holds "a\/\.\.\/\.\.\/run": a path with \.\./],
    ['an absolute name', '/etc/cron.d/x', /^holds "\/etc\/cron\.d\/x": an absolute path/],
    ['a file in a folder', 'lib/util.sh', /^holds "lib\/util\.sh": only plain file names/],
    ['a hidden name', '.bashrc', /^holds "\.bashrc": only plain file names/],
  ])('refuses %s', async (_, name, message) => {
    await expect(readFilesZip(makeZip([['run', 'true\n'], [name, 'x']]), caps)).rejects.toThrow(message)
  })

  it('refuses a symbolic link entry (it would point out of the work directory)', async () => {
    const z = makeZip([['run', 'cat secret\n'], ['secret', '/etc/shadow', { link: true }]])
    await expect(readFilesZip(z, caps)).rejects.toThrow(/^holds "secret": not a regular file \(a link or a device\)/)
  })

  it('refuses more entries than limits.files_max_count, and what is not a zip', async () => {
    const many = makeZip(Array.from({ length: 9 }, (_, i) => [`f${i}`, 'x'] as [string, string]))
    await expect(readFilesZip(many, caps)).rejects.toThrow('holds more than 8 files')
    await expect(readFilesZip(Buffer.from('not a zip'), caps)).rejects.toThrow(/^is not a zip archive/)
  })
})
