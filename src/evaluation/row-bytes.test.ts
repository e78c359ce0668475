// What the main thread reads of a submission: a job's files never enter the row, and its
// source and stdin are read from SQLite once (at the claim), not at every step — counted as the bytes
// every SQLite statement run in this thread hands back, not timed. Before, a job with 4 MiB of files,
// 256 KiB of source and 1 MiB of stdin cost ~28 MB of reads (the files as base64 in the row, read back
// by the insert, the claim, the completion and the synchronous wait).
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { findClientBySecret } from '../clients/clients.ts'
import { payloadsDir } from '../storage/payloads.ts'
import { addClient, createTestDeps, type TestDeps } from '../testing/evaluation.ts'
import { createDispatcher } from './dispatcher.ts'
import { jobSpecOf } from './model.ts'
import { acceptSubmission, evaluateV3, type SubmissionInput } from './submissions.ts'

let deps: TestDeps | undefined
afterEach(async () => {
  await deps?.stop()
  deps = undefined
})

/** Bytes of strings and buffers in what a statement handed back. */
function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length
  if (Buffer.isBuffer(v)) return v.length
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + sizeOf(x), 0)
  if (v && typeof v === 'object') return Object.values(v).reduce((n: number, x) => n + sizeOf(x), 0)
  return 0
}

/** Counts the bytes every better-sqlite3 statement of this process returns while fn runs. */
async function bytesRead<T>(d: TestDeps, fn: () => Promise<T>): Promise<{ result: T; bytes: number }> {
  const proto = Object.getPrototypeOf(d.db.$client.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>
  const methods = ['get', 'all', 'run', 'iterate'] as const
  const originals = methods.map((m) => proto[m]!)
  let bytes = 0
  methods.forEach((m, i) => {
    proto[m] = function (this: unknown, ...args: unknown[]) {
      const r = originals[i]!.apply(this, args)
      if (m !== 'iterate') bytes += sizeOf(r)
      return r
    }
  })
  try {
    return { result: await fn(), bytes }
  } finally {
    methods.forEach((m, i) => (proto[m] = originals[i]!))
  }
}

const MiB = 1 << 20
const files = [
  { name: 'a.bin', content: Buffer.alloc(3 * MiB, 0xa5) },
  { name: 'b.bin', content: Buffer.from(Array.from({ length: MiB }, (_, i) => i & 0xff)) },
]
const big = (): SubmissionInput => ({
  api: 'v3',
  lang: 'PYTHON3',
  source: `print(1)\n#${'s'.repeat(256 * 1024 - 12)}\n`,
  input: 'i'.repeat(MiB),
  files: files.map((f) => ({ name: f.name, contentBase64: f.content.toString('base64') })),
})

describe('a submission\'s bytes on the main thread', () => {
  test('a synchronous run with 4 MiB of files, 256 KiB of source and 1 MiB of stdin: its files out of the row, its source and stdin read once', async () => {
    deps = createTestDeps()
    const client = findClientBySecret(deps.db, addClient(deps))!
    const input = big()
    const { result: done, bytes } = await bytesRead(deps, () => evaluateV3(deps!, client, input))
    expect(done.state).toBe('completed')
    // the worker got every byte, from the stored files
    expect(deps.pool.files[0]).toEqual(files.map((f) => ({ name: f.name, contentBase64: f.content.toString('base64') })))
    expect(deps.pool.jobs[0]!.files).toBeUndefined()
    // the row names the files, it does not hold them
    expect(done.jobSpecJson!.length).toBeLessThan(200)
    expect(jobSpecOf(done).stored).toEqual([{ name: 'a.bin', bytes: 3 * MiB }, { name: 'b.bin', bytes: MiB }])
    // the reply still has the whole row
    expect(done.source).toBe(input.source)
    expect(done.input).toBe(input.input)
    // one read of the source and the stdin (the claim), a few KB of everything else
    const once = input.source.length + input.input!.length
    expect(bytes, `${bytes} bytes read for a job of ${once} bytes of source and stdin and 4 MiB of files`).toBeGreaterThanOrEqual(once)
    expect(bytes).toBeLessThan(once + 64 * 1024)
    // its stored files go with its completion
    expect(existsSync(join(payloadsDir(deps.config.dataDir), done.publicId))).toBe(false)
  })

  test('an accepted job\'s files outlive a stop before it ran: the next start runs it with them, and sweeps only files no waiting row names', async () => {
    deps = createTestDeps({ start: false })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const row = acceptSubmission(deps, client, big())
    // a folder a crash left between writing an accept's files and committing its row
    const orphan = join(payloadsDir(deps.config.dataDir), 'not-a-submission')
    mkdirSync(orphan, { recursive: true })
    // the next start: a new dispatcher over the same database and data directory
    const dispatcher = createDispatcher(deps)
    dispatcher.start()
    const done = await dispatcher.waitFor(row.id, 10_000)
    await dispatcher.stop()
    expect(done?.state).toBe('completed')
    expect(deps.pool.files[0]).toEqual(files.map((f) => ({ name: f.name, contentBase64: f.content.toString('base64') })))
    expect(existsSync(orphan)).toBe(false)
    expect(readdirSync(payloadsDir(deps.config.dataDir)).filter((n) => n === row.publicId)).toEqual([])
  })

  test('a refused accept (quota) leaves no stored files', async () => {
    deps = createTestDeps()
    const client = findClientBySecret(deps.db, addClient(deps, { quota: 1 }))!
    await evaluateV3(deps, client, { api: 'v3', lang: 'PYTHON3', source: 'print(1)' })
    const before = existsSync(payloadsDir(deps.config.dataDir)) ? readdirSync(payloadsDir(deps.config.dataDir)).length : 0
    expect(() => acceptSubmission(deps!, client, big())).toThrow(/quota/)
    const after = existsSync(payloadsDir(deps.config.dataDir)) ? readdirSync(payloadsDir(deps.config.dataDir)).length : 0
    expect(after).toBe(before)
  })
})
