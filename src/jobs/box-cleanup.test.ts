// A job's box is replaced after its result went back (worker.ts replaceBoxes), off the path of the
// reply, by a fresh empty one of the size that job's first box had: it must be replaced even when no
// job follows (a pool thread sleeps between jobs), nothing a job wrote may reach the next job, a next
// job needing another size must get its own, and a closed runner leaves nothing mounted.
import { existsSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { isProvisioned, loadLanguages, resolveLanguage } from '../languages.ts'
import { isMountPoint } from '../sandbox/root-image.ts'
import { createPool, workerSettings } from './pool.ts'
import type { Job } from './types.ts'
import { createJobRunner } from './worker.ts'

const data = mkdtempSync(join(tmpdir(), 'box-cleanup-'))
const config = loadConfig({ ...process.env, ARBITER_DATA: data })
config.pool.size = 1
const settings = workerSettings(config)
const python = resolveLanguage(loadLanguages(), 'PYTHON3')
const ready = !!python && isProvisioned(settings.toolchains, python)

const job = (source: string): Job => ({ language: 'PYTHON3', source, input: '', timeLimitSec: 2, memoryLimitKb: 262144 })
/** Leaves 64 KB in its box and says so. */
const LITTER = "open('litter', 'wb').write(b'x' * (64 << 10))\nprint('littered')\n"
const LIST = "import os\nprint(sorted(os.listdir('.')))\n"
/** Prints the size of its box (the tmpfs at its work directory) in bytes and inodes. */
const SIZE = "import os\ns = os.statvfs('.')\nprint(s.f_blocks * s.f_frsize, s.f_files)\n"
/** Bytes of files and the inodes in use in a mounted box (1: its root folder). */
const used = (box: string) => {
  const s = statfsSync(box)
  return { bytes: (s.blocks - s.bfree) * s.bsize, inodes: s.files - s.ffree }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (check()) return true
  return check()
}

afterAll(() => rmSync(data, { recursive: true, force: true }))

describe.skipIf(!ready)('the box after a job', () => {
  it('a pool thread replaces the last job\'s box by an empty one though no job follows (it sleeps between jobs)', async () => {
    const pool = createPool(config)
    try {
      const r = await pool.run(job(LITTER))
      expect(r.run?.stdout).toBe('littered\n')
      const slots = readdirSync(settings.sandbox.runs).filter((s) => s.startsWith(`w${process.pid}-`) && !s.endsWith('-v'))
      expect(slots).toHaveLength(1)
      const box = join(settings.sandbox.runs, slots[0]!, 'box')
      // sent before the result: a request left for the thread's next wake would wait for the next job
      expect(await until(() => isMountPoint(box) && readdirSync(box).length === 0, 5000)).toBe(true)
      expect(used(box)).toEqual({ bytes: 0, inodes: 1 })
      // and the thread still runs jobs, each in a fresh box
      const next = await pool.run(job(LIST))
      expect(next.run?.stdout).toBe("['main.py']\n")
    } finally {
      await pool.close()
    }
  })

  it('a next job gets a box of the size it needs, whatever size the last one left', async () => {
    const slot = `box-size-${process.pid}`
    const runner = createJobRunner(settings, slot)
    const { workDirBytes: bytes, workDirInodes: inodes } = settings.limits
    // a job with an extra file needs more than the box the last plain job left
    const extra = { name: 'data.bin', contentBase64: Buffer.alloc(3 << 20, 7).toString('base64') }
    try {
      const sizes: string[] = []
      for (const j of [job(SIZE), job(SIZE), { ...job(SIZE), files: [extra] }, job(SIZE), job(LITTER), job(SIZE)]) sizes.push((await runner.run(j)).run!.stdout.trim())
      expect(sizes[0]).toBe(`${bytes} ${inodes}`)
      expect(sizes[1]).toBe(sizes[0])
      const [withFile, fileInodes] = sizes[2]!.split(' ').map(Number)
      expect(withFile).toBeGreaterThanOrEqual(bytes + (3 << 20))
      expect(fileInodes).toBe(inodes + 1)
      expect(sizes[3]).toBe(sizes[0])
      expect(sizes[4]).toBe('littered')
      expect(sizes[5]).toBe(sizes[0])
    } finally {
      await runner.close()
    }
  })

  it('a runner\'s next job sees a fresh box, and a closed runner leaves nothing mounted', async () => {
    const slot = `box-cleanup-${process.pid}`
    const runner = createJobRunner(settings, slot)
    const box = join(settings.sandbox.runs, slot, 'box')
    try {
      expect((await runner.run(job(LITTER))).run?.stdout).toBe('littered\n')
      expect((await runner.run(job(LIST))).run?.stdout).toBe("['main.py']\n")
      expect((await runner.run(job(LITTER))).run?.stdout).toBe('littered\n')
    } finally {
      await runner.close()
    }
    // close waited for the last job's unmount before it removed the slot
    expect(existsSync(box) && isMountPoint(box)).toBe(false)
    expect(existsSync(join(settings.sandbox.runs, slot))).toBe(false)
  })
})
