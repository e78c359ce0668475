import { afterEach, expect, test, vi } from 'vitest'
import { callbackConnections, IDLE_MS, IDLE_PER_ORIGIN, IDLE_TOTAL } from './callback-connections.ts'

const opts = { maxHeaderSize: 8192, maxResponseSize: 4096 }

afterEach(() => vi.useRealTimers())

test('a connection given back is taken again for its own origin only', () => {
  const c = callbackConnections(opts)
  const a = c.take('http://127.0.0.1:1', 1000)
  c.give('http://127.0.0.1:1', a)
  expect(c.take('http://127.0.0.1:2', 1000)).not.toBe(a)
  expect(c.take('http://127.0.0.1:1', 1000)).toBe(a)
  expect(c.take('http://127.0.0.1:1', 1000)).not.toBe(a)
})

test('idle connections are capped per origin and in all, whatever callback URLs the clients give', () => {
  const c = callbackConnections(opts)
  // one origin: a burst of deliveries to it leaves at most IDLE_PER_ORIGIN open
  const many = Array.from({ length: IDLE_PER_ORIGIN * 3 }, () => c.take('http://127.0.0.1:1', 1000))
  for (const k of many) c.give('http://127.0.0.1:1', k)
  expect(c.idle()).toBe(IDLE_PER_ORIGIN)
  expect(many.filter((k) => k.destroyed)).toHaveLength(IDLE_PER_ORIGIN * 2)
  // a client naming a new port for every callback: never more than IDLE_TOTAL held
  for (let port = 2; port < IDLE_TOTAL * 2; port++) {
    const origin = `http://127.0.0.1:${port}`
    c.give(origin, c.take(origin, 1000))
  }
  expect(c.idle()).toBe(IDLE_TOTAL)
})

test('idle connections unused for IDLE_MS are closed; none are kept without keep-alive', () => {
  vi.useFakeTimers()
  const c = callbackConnections(opts)
  const a = c.take('http://127.0.0.1:1', 1000)
  c.give('http://127.0.0.1:1', a)
  vi.advanceTimersByTime(IDLE_MS / 2)
  const b = c.take('http://127.0.0.1:2', 1000)
  c.give('http://127.0.0.1:2', b)
  vi.advanceTimersByTime(IDLE_MS / 2 + 1000)
  expect(a.destroyed).toBe(true)
  expect(b.destroyed).toBe(false)
  expect(c.idle()).toBe(1)
  vi.advanceTimersByTime(IDLE_MS)
  expect(b.destroyed).toBe(true)
  expect(c.idle()).toBe(0)

  const once = callbackConnections({ ...opts, keepAlive: false })
  const k = once.take('http://127.0.0.1:1', 1000)
  once.give('http://127.0.0.1:1', k)
  expect(once.idle()).toBe(0)
  expect(k.destroyed).toBe(true)
})
