// A write with RETURNING whose commit fails is an error, not a row handed back as if stored: outside a
// transaction such a statement commits when better-sqlite3's get() resets it, and that reset's error
// was dropped (a full disk lost the room's saved state this way while answering 200).
import { expect, test } from 'vitest'
import { openMemoryDb } from './db.ts'

test("a write's commit that fails at the statement's end throws from get() and stores nothing", () => {
  const db = openMemoryDb()
  // a deferred foreign key is checked at commit: the same place a full disk fails
  db.$client.exec('create table p (id integer primary key); create table c (id integer primary key, p integer references p(id) deferrable initially deferred)')
  expect(() => db.$client.prepare('insert into c values (1, 99) returning *').get()).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }))
  expect(db.$client.prepare('select * from c').all()).toEqual([])
  expect(db.$client.inTransaction).toBe(false)
  // a write that commits returns its row; a read still stops at its first row
  db.$client.exec('insert into p values (7)')
  expect(db.$client.prepare('insert into c values (2, 7) returning *').get()).toEqual({ id: 2, p: 7 })
  expect(db.$client.prepare('select id from p union all select id from c').pluck().get()).toBe(7)
  // inside a transaction the row comes back at once and the transaction's own commit decides
  db.$client.transaction(() => expect(db.$client.prepare('update c set p = 7 where id = 2 returning id').raw().get()).toEqual([2]))()
})
