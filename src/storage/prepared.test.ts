import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { inTransaction, preparedPerDb, writtenLimit } from './prepared.ts'

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

describe('inTransaction', () => {
  const open = () => {
    const db = { $client: new Database(':memory:') }
    db.$client.exec('create table t (v integer not null)')
    return db
  }
  const values = (db: ReturnType<typeof open>) => db.$client.prepare('select v from t order by v').pluck().all()

  it('commits what fn wrote and hands back what it returns', () => {
    const db = open()
    const insert = db.$client.prepare('insert into t (v) values (?)')
    expect(inTransaction(db, () => (insert.run(1), insert.run(2), db.$client.inTransaction))).toBe(true)
    expect(db.$client.inTransaction).toBe(false)
    expect(values(db)).toEqual([1, 2])
  })

  it('rolls everything back when fn throws, and a nested one back to its savepoint', () => {
    const db = open()
    const insert = db.$client.prepare('insert into t (v) values (?)')
    expect(() =>
      inTransaction(db, () => {
        insert.run(1)
        throw new Error('refused')
      })
    ).toThrow('refused')
    expect(values(db)).toEqual([])
    inTransaction(db, () => {
      insert.run(1)
      expect(() => inTransaction(db, () => (insert.run(2), assertNever()))).toThrow('inner')
      insert.run(3)
    })
    expect(values(db)).toEqual([1, 3])
  })
})

function assertNever(): never {
  throw new Error('inner')
}

describe('writtenLimit', () => {
  it('writes the LIMIT into the statement instead of binding it (a bound LIMIT recompiles the statement at every run)', async () => {
    const { drizzle } = await import('drizzle-orm/better-sqlite3')
    const { integer, sqliteTable } = await import('drizzle-orm/sqlite-core')
    const t = sqliteTable('t', { v: integer() })
    const db = drizzle(new Database(':memory:'))
    const bound = db.select().from(t).limit(2).toSQL()
    expect(bound.sql).toMatch(/limit \?$/)
    const written = db.select().from(t).limit(writtenLimit(2)).toSQL()
    expect(written.sql).toMatch(/limit 2$/)
    expect(written.params).toEqual([])
  })

  it('takes only whole numbers from 0', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => writtenLimit(bad)).toThrow(/not a limit/)
    expect(() => writtenLimit(0)).not.toThrow()
  })
})
