// The supervisor's claim of a host uid per slot, against the real binary: no two live supervisors
// hold the same one, a stopped one's uid is free again, the slot's boxes belong to it, and a range
// that would reach root or a login user is refused. Needs root and scripts/install-nsjail.sh.
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { Supervisor } from './supervisor.ts'

const config = loadConfig()
// a range of its own, so that other tests' supervisors (the default range) change nothing here
const uids = { base: 2_100_000_000 + (process.pid % 1000) * 8, count: 3 }
const start = (name: string, range = uids) => Supervisor.start(config.paths.supervisor, `uidtest-${process.pid}-${name}`, undefined, config.paths.jail_init, range)

describe('per-slot host uids', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-uids-'))
  const running: Supervisor[] = []
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()))
    rmSync(dir, { recursive: true, force: true })
  })

  it('each live supervisor holds a uid of the range no other holds; a stopped one frees its uid', async () => {
    running.push(start('a'), start('b'), start('c'))
    const held = await Promise.all(running.map(async (s) => (await s.started).uid))
    expect(new Set(held).size).toBe(3)
    for (const uid of held) expect(uid).toBeGreaterThanOrEqual(uids.base)
    for (const uid of held) expect(uid).toBeLessThan(uids.base + uids.count)

    // the range is exhausted: a fourth cannot start, rather than share a uid
    const fourth = start('d')
    await expect(fourth.started).rejects.toThrow(/every uid of .* is held/)

    const freed = held[1]
    await running.splice(1, 1)[0].stop()
    const again = start('e')
    running.push(again)
    expect((await again.started).uid).toBe(freed)
  })

  it("mounts the slot's box as its own uid and gid", async () => {
    const sup = running[0]
    const uid = (await sup.started).uid
    const box = join(dir, 'box')
    mkdirSync(box)
    await sup.box('mount', box, 1 << 20, 16)
    const st = statSync(box)
    await sup.box('umount', box)
    expect([st.uid, st.gid]).toEqual([uid, uid])
  })

  it('refuses a range that starts below 100000 (root, system and login users)', async () => {
    const bad = start('bad', { base: 0, count: 10 })
    await expect(bad.started).rejects.toThrow(/bad uid range/)
  })
})
