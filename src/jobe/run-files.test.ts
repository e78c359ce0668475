import { describe, expect, test } from 'vitest'
import { JobeError } from './run-spec.ts'
import { runFiles, type RunFileSource } from './run-files.ts'

const limits = { files_max_count: 64, files_max_bytes: 1 << 20 }

/** A store of fixed contents that counts what is asked of it. */
function countingStore(files: Record<string, Buffer>, client = 1) {
  const calls = { size: 0, get: 0 }
  const store: RunFileSource = {
    size(c, id) {
      calls.size++
      return c === client ? files[id]?.length : undefined
    },
    locate(c, id) {
      calls.get++
      return c === client && files[id] ? { path: `/store/${id}`, bytes: files[id].length } : undefined
    },
  }
  return { store, calls }
}

const refusal = (f: () => unknown) => {
  try {
    f()
  } catch (err) {
    if (err instanceof JobeError) return { status: err.status, body: err.message }
    throw err
  }
  throw new Error('not refused')
}

const named = (id: string, n: number) => Array.from({ length: n }, (_, i) => [id, `f${i}.txt`] as const)

describe('a run\'s file_list, bounded before any work', () => {
  test('one upload named many times, each name within the count cap, past the byte cap in all: 413 before a byte is read', () => {
    // the attack: 16 MB named 24 times was read and base64-encoded 24 times before the core said 413;
    // here with a 100 KB file: each cap alone holds, the sum does not
    for (const n of [11, 24, 64]) {
      const { store, calls } = countingStore({ big000001: Buffer.alloc(100_000, 1) })
      expect(refusal(() => runFiles(store, 1, named('big000001', n), limits))).toEqual({ status: 413, body: `the files of file_list come to more than ${limits.files_max_bytes} bytes` })
      expect(calls.get).toBe(0)
      // one size lookup per distinct id, not per entry
      expect(calls.size).toBe(1)
    }
  })

  test('more entries than limits.files_max_count: 413 before the store is asked anything', () => {
    const { store, calls } = countingStore({ tiny0001: Buffer.from('x') })
    expect(refusal(() => runFiles(store, 1, named('tiny0001', 65), limits))).toEqual({ status: 413, body: 'file_list has more than 64 entries' })
    expect(calls).toEqual({ size: 0, get: 0 })
  })

  test('within the caps: each distinct id is located once (no byte read), every entry naming its file', () => {
    const a = Buffer.from([0, 0xff, 0xfe, 0x0a, 0x41])
    const { store, calls } = countingStore({ aaaaaaaa: a, bbbbbbbb: Buffer.from('b') })
    const files = runFiles(store, 1, [...named('aaaaaaaa', 10), ['bbbbbbbb', 'b.txt']], limits)
    expect(calls).toEqual({ size: 2, get: 2 })
    expect(files).toHaveLength(11)
    expect(files[0]).toEqual({ name: 'f0.txt', linkFrom: '/store/aaaaaaaa', bytes: 5 })
    expect(files.at(-1)).toEqual({ name: 'b.txt', linkFrom: '/store/bbbbbbbb', bytes: 1 })
  })

  test('exactly at the byte cap is accepted; one byte more is refused', () => {
    const { store } = countingStore({ quarter1: Buffer.alloc(limits.files_max_bytes / 4) })
    expect(runFiles(store, 1, named('quarter1', 4), limits)).toHaveLength(4)
    const { store: s2, calls } = countingStore({ quarter1: Buffer.alloc(limits.files_max_bytes / 4 + 1) })
    expect(refusal(() => runFiles(s2, 1, named('quarter1', 4), limits)).status).toBe(413)
    expect(calls.get).toBe(0)
  })

  test("an unknown id (or another client's) is Jobe's 404 before anything is read, even beside a file too large", () => {
    const { store, calls } = countingStore({ big000001: Buffer.alloc(100_000) })
    expect(refusal(() => runFiles(store, 1, [...named('big000001', 20), ['unknown01', 'u.txt']], limits))).toEqual({ status: 404, body: 'One or more of the specified files is missing/unavailable' })
    expect(calls.get).toBe(0)
    expect(refusal(() => runFiles(store, 2, named('big000001', 1), limits)).status).toBe(404)
  })

  test('content that is not the size the index holds (changed underneath) is missing, never more than was counted', () => {
    const store: RunFileSource = { size: () => 10, locate: () => ({ path: '/store/grown', bytes: 1 << 21 }) }
    expect(refusal(() => runFiles(store, 1, named('grown001', 1), limits)).status).toBe(404)
  })
})
