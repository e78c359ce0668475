import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import type { Progress } from './pool-types.ts'
import { deferCompiled, isThreadProgress, sendProgress } from './progress.ts'

describe('a compile report held back (deferCompiled)', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())
  const ok = { ok: true, message: '' }

  test('a run still going after the delay hears of its compile step then, once', () => {
    const sent: Progress[] = []
    const hooks = deferCompiled(sendProgress((m) => sent.push(m)), 100)
    hooks.onCompiled!(ok)
    vi.advanceTimersByTime(99)
    expect(sent).toEqual([])
    vi.advanceTimersByTime(1)
    expect(sent).toEqual([{ type: 'compiled', outcome: ok }])
    hooks.settle()
    vi.advanceTimersByTime(1000)
    expect(sent).toHaveLength(1)
  })

  test('a job that ends sooner sends no message: its result carries the compile step', () => {
    const sent: Progress[] = []
    const hooks = deferCompiled(sendProgress((m) => sent.push(m)), 100)
    hooks.onCompiled!({ ok: false, message: 'error: expected ;' })
    vi.advanceTimersByTime(50)
    hooks.settle()
    vi.advanceTimersByTime(1000)
    expect(sent).toEqual([])
  })

  test("a test's end sends the waiting compile report first, then the test, in that order", () => {
    const sent: Progress[] = []
    const hooks = deferCompiled(sendProgress((m) => sent.push(m)), 100)
    hooks.onCompiled!(ok)
    const outcome = { verdict: 'AC' } as never
    hooks.onTest!(0, outcome)
    hooks.onTest!(1, outcome)
    expect(sent.map((m) => m.type)).toEqual(['compiled', 'test', 'test'])
    vi.advanceTimersByTime(1000)
    expect(sent).toHaveLength(3)
  })
})

test("a pool thread's progress message is told from piscina's own and anything else", () => {
  expect(isThreadProgress({ progressOf: 3, progress: { type: 'compiled', outcome: { ok: true, message: '' } } })).toBe(true)
  for (const m of [null, 'x', 3, {}, { progressOf: '3', progress: {} }, { progressOf: 3 }, { progressOf: 3, progress: 'compiled' }]) expect(isThreadProgress(m)).toBe(false)
})
