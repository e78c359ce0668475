import { describe, expect, it } from 'vitest'
import { preparedPerDb } from './prepared.ts'

describe('preparedPerDb', () => {
  it('prepares once per database, and apart for each database', () => {
    let calls = 0
    const stmts = preparedPerDb((db: { name: string }) => ({ of: db.name, n: ++calls }))
    const a = { name: 'a' }
    const b = { name: 'b' }
    expect(stmts(a)).toBe(stmts(a))
    expect(stmts(b)).toEqual({ of: 'b', n: 2 })
    expect(stmts(a)).toEqual({ of: 'a', n: 1 })
    expect(calls).toBe(2)
  })
})
