import { describe, expect, it, onTestFinished } from 'vitest'
import { AppError } from '../errors.ts'
import { openDb } from '../storage/db.ts'
import { consumeRate } from './rate-limit.ts'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function clock(start = '2030-01-01T00:00:30Z') {
  let now = new Date(start)
  return { now: () => new Date(now), advance: (ms: number) => (now = new Date(now.getTime() + ms)) }
}

const refused = (fn: () => void): number | null => {
  try {
    fn()
    return null
  } catch (e) {
    expect((e as AppError).code).toBe('RATELIMITEXCEEDED')
    return (e as AppError).data.retryAfterSec as number
  }
}

describe('consumeRate', () => {
  const limits = { perMinute: 60, perDay: 5000 }

  it('refuses the 61st call in a minute, whatever the wall clock, and allows again after it', () => {
    const db = openDb(':memory:')
    const c = clock('2030-01-01T00:00:59.500Z') // a burst across a minute boundary still counts as one window
    const deps = { db, now: c.now }
    for (let i = 0; i < 60; i++) {
      expect(refused(() => consumeRate(deps, 'user:1', limits))).toBeNull()
      c.advance(10)
    }
    expect(refused(() => consumeRate(deps, 'user:1', limits))).toBe(60)
    expect(refused(() => consumeRate(deps, 'user:2', limits))).toBeNull() // per subject
    c.advance(60_000)
    expect(refused(() => consumeRate(deps, 'user:1', limits))).toBeNull()
  })

  it('refuses past the daily limit even when each minute is under its own', () => {
    const db = openDb(':memory:')
    const c = clock()
    const deps = { db, now: c.now }
    const small = { perMinute: 3, perDay: 5 }
    let ok = 0
    for (let i = 0; i < 10; i++) {
      if (refused(() => consumeRate(deps, 's', small)) === null) ok++
      c.advance(30_000)
    }
    expect(ok).toBe(5)
    c.advance(86_400_000)
    expect(refused(() => consumeRate(deps, 's', small))).toBeNull()
  })

  it('keeps counting across a restart (counters are in the database file)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-rate-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'a.db')
    const c = clock()
    let db = openDb(file)
    for (let i = 0; i < 3; i++) consumeRate({ db, now: c.now }, 'u', { perMinute: 3, perDay: 100 })
    db.$client.close()
    db = openDb(file)
    expect(refused(() => consumeRate({ db, now: c.now }, 'u', { perMinute: 3, perDay: 100 }))).toBeGreaterThan(0)
    db.$client.close()
  })

  it('does not count refused calls', () => {
    const db = openDb(':memory:')
    const c = clock()
    const deps = { db, now: c.now }
    const small = { perMinute: 2, perDay: 3 }
    consumeRate(deps, 'u', small)
    consumeRate(deps, 'u', small)
    for (let i = 0; i < 5; i++) refused(() => consumeRate(deps, 'u', small))
    c.advance(61_000)
    expect(refused(() => consumeRate(deps, 'u', small))).toBeNull() // day count is 3 now, not 8
    expect(refused(() => consumeRate(deps, 'u', small))).not.toBeNull()
  })
})
