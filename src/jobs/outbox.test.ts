import { afterEach, describe, expect, test } from 'vitest'
import { parseConfig } from '../config.ts'
import { silentLog } from '../log.ts'
import { openMemoryDb, type Db } from '../storage/db.ts'
import { outboxAttempts, outbox as outboxTable } from '../storage/schema.ts'
import { PermanentFailure } from './callback.ts'
import { backoffMs, createOutbox, enqueueDelivery, type Outbox, type OutboxRow, type Sender } from './outbox.ts'

let box: Outbox | undefined

const testConfig = (raw: Record<string, Record<string, unknown>> = {}) => parseConfig(raw, {}, '/nonexistent')

async function until(cond: () => boolean, timeoutMs = 3000) {
  const end = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 5))
  }
}
afterEach(() => box?.stop())

function setup(sender: Sender, outboxCfg: Record<string, unknown> = {}) {
  const db = openMemoryDb()
  const config = testConfig({ outbox: { backoff_ms: 5, backoff_max_ms: 20, max_attempts: 3, ...outboxCfg } })
  box = createOutbox({ db, log: silentLog(), config, now: () => new Date() }, { callback: sender })
  box.start()
  return { db, box }
}

const put = (db: Db, n: string, extra: { groupKey?: string; dedupeKey?: string } = {}) =>
  enqueueDelivery(db, { kind: 'callback', target: `http://x/${n}`, body: n, contentType: 'text/plain', ...extra }, new Date())

const rows = (db: Db) => db.select().from(outboxTable).all()

/** An outbox whose sender holds the row 'compiled' until releaseFirst(); order: each send's start and end. */
function withHeldCompiled() {
  const order: string[] = []
  let release!: () => void
  const { db, box } = setup(async (row: OutboxRow) => {
    order.push(`start ${row.body}`)
    if (row.body === 'compiled') await new Promise<void>((r) => (release = r))
    order.push(`end ${row.body}`)
  })
  return { order, releaseFirst: () => release(), db, box }
}

describe('outbox', () => {
  test('delivers, and retries a failing receiver with backoff until it answers', async () => {
    let calls = 0
    const { db, box } = setup(async () => {
      if (++calls < 3) throw new Error('HTTP 503')
    })
    put(db, 'a')
    box.wake()
    await until(() => rows(db)[0].state === 'delivered')
    expect(rows(db)[0]).toMatchObject({ attempts: 3, lastError: null })
  })

  test('gives up after max_attempts, keeping the last error', async () => {
    const { db, box } = setup(async () => {
      throw new Error('HTTP 500')
    })
    put(db, 'a')
    box.wake()
    await until(() => rows(db)[0].state === 'failed')
    expect(rows(db)[0]).toMatchObject({ attempts: 3, lastError: 'HTTP 500' })
  })

  test('a permanent failure is not retried', async () => {
    const { db, box } = setup(async () => {
      throw new PermanentFailure('not a URL')
    })
    put(db, 'a')
    box.wake()
    await until(() => rows(db)[0].state === 'failed')
    expect(rows(db)[0].attempts).toBe(1)
  })

  test('a group goes out in order: the second row waits while the first is in flight', async () => {
    const { order, releaseFirst, db, box } = withHeldCompiled()
    put(db, 'compiled', { groupKey: 'g' })
    put(db, 'completed', { groupKey: 'g' })
    put(db, 'other')
    box.wake()
    await until(() => order.includes('end other'))
    expect(order).not.toContain('start completed')
    releaseFirst()
    await until(() => rows(db).every((r) => r.state === 'delivered'))
    expect(order.indexOf('end compiled')).toBeLessThan(order.indexOf('start completed'))
  })

  test("a group's next row waits for the one in flight also when it is the only row due", async () => {
    // one due row takes a shorter way than the window query (outbox.ts, dueFew): the group's order too
    const { order, releaseFirst, db, box } = withHeldCompiled()
    put(db, 'compiled', { groupKey: 'g' })
    box.wake()
    await until(() => order.includes('start compiled'))
    put(db, 'completed', { groupKey: 'g' })
    for (let i = 0; i < 5; i++) {
      box.wake()
      await new Promise((r) => setTimeout(r, 10))
    }
    expect(order).toEqual(['start compiled'])
    releaseFirst()
    await until(() => rows(db).every((r) => r.state === 'delivered'))
    expect(order).toEqual(['start compiled', 'end compiled', 'start completed', 'end completed'])
  })

  test('a delivery that ends well with nothing waiting is not followed by another read of the table', async () => {
    const { db, box } = setup(async () => {})
    await until(() => box.looks === 1) // the start's look
    put(db, 'a')
    box.wake()
    await until(() => rows(db)[0].state === 'delivered')
    await new Promise((r) => setTimeout(r, 30))
    expect(box.looks).toBe(2)
    // a row of a group: its end asks the group (one indexed read) and finds no next row
    put(db, 'b', { groupKey: 'g' })
    box.wake()
    await until(() => rows(db)[1].state === 'delivered')
    await new Promise((r) => setTimeout(r, 30))
    expect(box.looks).toBe(3)
  })

  test('rows left behind by the slots go out as sends end, with no other wake', async () => {
    const sent: string[] = []
    const { db, box } = setup(
      async (row) => {
        await new Promise((r) => setTimeout(r, 5))
        sent.push(row.body)
      },
      { concurrency: 1 }
    )
    for (const n of ['a', 'b', 'c', 'd']) put(db, n)
    box.wake()
    await until(() => rows(db).every((r) => r.state === 'delivered'))
    expect(sent).toEqual(['a', 'b', 'c', 'd'])
  })

  test('a failed row with a newer row in its group is dropped, and the newer row is sent', async () => {
    const sent: string[] = []
    const { db, box } = setup(async (row) => {
      if (row.body === 'compiled') throw new Error('HTTP 400')
      sent.push(row.body)
    })
    put(db, 'compiled', { groupKey: 'g' })
    put(db, 'completed', { groupKey: 'g' })
    box.wake()
    await until(() => rows(db)[1].state === 'delivered')
    expect(rows(db).map((r) => r.state)).toEqual(['superseded', 'delivered'])
    expect(sent).toEqual(['completed'])
  })

  describe('a lead (a delivery sent once just before its row: v4 CODE_COMPILED with REQUEST_COMPLETED)', () => {
    const withLead = (db: Db) =>
      enqueueDelivery(db, { kind: 'callback', target: 'http://x/', body: 'completed', headers: { e: 'C' }, lead: { body: 'compiled', headers: { e: 'L' } }, contentType: 'text/plain', groupKey: 'g' }, new Date())
    const seen = (row: OutboxRow) => {
      const h = JSON.parse(row.headersJson!) as Record<string, string>
      return `${row.body} ${h.e} ${h['x-arbiter-delivery'] ?? row.id}`
    }

    test('goes first, with a delivery id of its own; the row is one row, recorded once', async () => {
      const sent: string[] = []
      const { db, box } = setup(async (row) => void sent.push(seen(row)))
      withLead(db)
      box.wake()
      await until(() => rows(db)[0].state === 'delivered')
      const id = rows(db)[0].id
      expect(sent).toEqual([`compiled L ${id}.1`, `completed C ${id}`])
      expect(rows(db)[0]).toMatchObject({ attempts: 1, lastError: null })
      expect(db.select().from(outboxAttempts).all()).toHaveLength(1)
    })

    test('one that fails is dropped and the row sent at once, as a superseded row of its own would be', async () => {
      const sent: string[] = []
      const { db, box } = setup(async (row) => {
        sent.push(row.body)
        if (row.body === 'compiled') throw new Error('HTTP 400')
      })
      withLead(db)
      box.wake()
      await until(() => rows(db)[0].state === 'delivered')
      expect(sent).toEqual(['compiled', 'completed'])
      expect(rows(db)[0]).toMatchObject({ attempts: 1, lastError: null })
    })

    test('a sender that sends a lead with its row (callbacks: pipelined) gets both in one call; its failed lead is dropped, the row recorded once', async () => {
      const sent: string[] = []
      const single: string[] = []
      const sender: Sender = Object.assign(async (row: OutboxRow) => void single.push(seen(row)), {
        withLead: async (row: OutboxRow, lead: OutboxRow) => {
          sent.push(`${seen(lead)} + ${seen(row)}`)
          return { leadFailure: new Error('HTTP 500') }
        },
      })
      const { db, box } = setup(sender)
      withLead(db)
      box.wake()
      await until(() => rows(db)[0].state === 'delivered')
      const id = rows(db)[0].id
      expect(sent).toEqual([`compiled L ${id}.1 + completed C ${id}`])
      expect(single).toEqual([])
      expect(rows(db)[0]).toMatchObject({ attempts: 1, lastError: null })
      expect(db.select().from(outboxAttempts).all()).toHaveLength(1)
    })

    test('a pair that timed out fails the attempt, and the row tried again goes alone, without its lead', async () => {
      const calls: string[] = []
      const sender: Sender = Object.assign(async (row: OutboxRow) => void calls.push(`alone ${row.body}`), {
        withLead: async (row: OutboxRow, lead: OutboxRow) => {
          calls.push(`pair ${lead.body} ${row.body}`)
          const err = new Error('timed out')
          err.name = 'TimeoutError'
          throw err
        },
      })
      const { db, box } = setup(sender)
      withLead(db)
      box.wake()
      await until(() => rows(db)[0].state === 'delivered')
      expect(calls).toEqual(['pair compiled completed', 'alone completed'])
      expect(rows(db)[0]).toMatchObject({ attempts: 2 })
    })

    test('is not sent again when the row is tried again; one that timed out fails the attempt (the destination held back)', async () => {
      const sent: string[] = []
      let calls = 0
      const { db, box } = setup(async (row) => {
        sent.push(row.body)
        calls++
        if (calls === 1) {
          const err = new Error('timed out')
          err.name = 'TimeoutError'
          throw err
        }
        if (calls === 2) throw new Error('HTTP 503')
      })
      withLead(db)
      box.wake()
      await until(() => rows(db)[0].state === 'delivered')
      // the lead timed out (attempt 1), the row failed (attempt 2), then went (attempt 3): the lead once
      expect(sent).toEqual(['compiled', 'completed', 'completed'])
      expect(rows(db)[0]).toMatchObject({ attempts: 3 })
      expect(db.select().from(outboxAttempts).all().map((a) => a.error)).toEqual(['timed out after 5000 ms', 'HTTP 503', null])
    })
  })

  test('dedupe key: a second insert is ignored', () => {
    const db = openMemoryDb()
    put(db, 'a', { dedupeKey: 'k' })
    put(db, 'b', { dedupeKey: 'k' })
    expect(rows(db).map((r) => r.body)).toEqual(['a'])
  })

  test('rows left pending by a crash are sent by the next outbox', async () => {
    const db = openMemoryDb()
    put(db, 'a')
    const sent: string[] = []
    const config = testConfig()
    box = createOutbox({ db, log: silentLog(), config, now: () => new Date() }, { callback: async (r) => void sent.push(r.body) })
    box.start()
    await until(() => sent.length === 1)
  })

  test('a paused kind left pending does not hold others back; a row due later goes out when it falls due; every attempt is recorded', async () => {
    const db = openMemoryDb()
    const sent: string[] = []
    const config = testConfig({ outbox: { backoff_ms: 5, backoff_max_ms: 20, max_attempts: 3 } })
    let failures = 0
    box = createOutbox({ db, log: silentLog(), config, now: () => new Date() }, { callback: async (r) => {
      if (r.body === 'flaky' && ++failures < 2) throw new Error('HTTP 503')
      sent.push(r.body)
    } }, { paused: ['email'] })
    box.start()
    enqueueDelivery(db, { kind: 'email', target: 'a@example.org', body: 'mail', contentType: 'message/rfc822' }, new Date())
    put(db, 'now')
    // due in 150 ms: no wake() will find it due before then, the timer does
    enqueueDelivery(db, { kind: 'callback', target: 'http://x/later', body: 'later', contentType: 'text/plain' }, new Date(Date.now() + 150))
    put(db, 'flaky')
    box.wake()
    await until(() => sent.length === 3)
    expect(sent.slice(0, 2).sort()).toEqual(['flaky', 'now'])
    expect(sent[2]).toBe('later')
    expect(rows(db).find((r) => r.body === 'mail')).toMatchObject({ state: 'pending', attempts: 0 })
    const attempts = db.select().from(outboxAttempts).all()
    const flaky = rows(db).find((r) => r.body === 'flaky')!
    expect(attempts.filter((a) => a.outboxId === flaky.id).map((a) => [a.attempt, a.error])).toEqual([[1, 'HTTP 503'], [2, null]])
    expect(attempts.every((a) => a.at instanceof Date && a.ms >= 0)).toBe(true)
  })

  test('a row of an unknown kind fails for good', async () => {
    const { db, box } = setup(async () => {})
    // a row no sender knows (say, written by a newer version before a downgrade)
    enqueueDelivery(db, { kind: 'pigeon' as never, target: 't', body: 'b', contentType: 'text/plain' }, new Date())
    box.wake()
    await until(() => rows(db)[0].state === 'failed')
  })

  test('backoff doubles, with jitter, up to the cap', () => {
    const cfg = testConfig().outbox
    expect(backoffMs(1, cfg, () => 0.5)).toBe(1000)
    expect(backoffMs(3, cfg, () => 0.5)).toBe(4000)
    expect(backoffMs(30, cfg, () => 0.5)).toBe(cfg.backoff_max_ms)
    expect(backoffMs(1, cfg, () => 0)).toBe(800)
  })
})

describe("a delivered row's record", () => {
  const attempts = (db: Db) => db.select().from(outboxAttempts).all()

  test('deliveries within a window are recorded together after it, never sent again meanwhile', async () => {
    const sent: string[] = []
    const { db, box } = setup(async (row) => void sent.push(row.body))
    for (const n of ['a', 'b', 'c', 'd']) put(db, n)
    box.wake()
    await until(() => sent.length === 4)
    // answered, not yet written: still pending in the table, and a look at the table does not send them again
    expect(rows(db).map((r) => r.state)).toEqual(['pending', 'pending', 'pending', 'pending'])
    box.wake()
    await new Promise((r) => setTimeout(r, 10))
    expect(sent).toHaveLength(4)
    // written in one commit: the first record seen comes with all the others
    await until(() => rows(db).some((r) => r.state === 'delivered'))
    expect(rows(db).map((r) => r.state)).toEqual(['delivered', 'delivered', 'delivered', 'delivered'])
    expect(sent).toEqual(['a', 'b', 'c', 'd'])
    expect(rows(db).map((r) => r.attempts)).toEqual([1, 1, 1, 1])
    expect(attempts(db).map((a) => [a.outboxId, a.attempt, a.error])).toEqual(rows(db).map((r) => [r.id, 1, null]))
  })

  test("a group's next row goes as soon as its predecessor is answered, not when the predecessor's record is written", async () => {
    const sent: string[] = []
    const { db, box } = setup(async (row) => void sent.push(row.body))
    put(db, 'compiled', { groupKey: 'g' })
    box.wake()
    await until(() => sent.length === 1)
    put(db, 'completed', { groupKey: 'g' })
    box.wake()
    await until(() => sent.length === 2)
    // the first row's record is still waiting: the second did not wait for it
    expect(rows(db)[0]!.state).toBe('pending')
    await until(() => rows(db).every((r) => r.state === 'delivered'))
    expect(sent).toEqual(['compiled', 'completed'])
  })

  test('stop() writes the waiting records', async () => {
    const sent: string[] = []
    const { db, box } = setup(async (row) => void sent.push(row.body))
    put(db, 'a')
    box.wake()
    await until(() => sent.length === 1)
    expect(rows(db)[0]!.state).toBe('pending')
    await box.stop()
    expect(rows(db)[0]).toMatchObject({ state: 'delivered', attempts: 1 })
    expect(attempts(db)).toHaveLength(1)
  })

  test('records the table refuses (a full disk) wait for a later try: the rows are not sent again meanwhile', async () => {
    const sent: string[] = []
    const { db, box } = setup(async (row) => void sent.push(row.body))
    db.$client.exec(`create temp trigger refuse before insert on outbox_attempts begin select raise(abort, 'database or disk is full'); end`)
    put(db, 'a')
    box.wake()
    await until(() => sent.length === 1)
    await new Promise((r) => setTimeout(r, 150))
    expect(rows(db)[0]!.state).toBe('pending')
    put(db, 'b')
    box.wake()
    await until(() => sent.length === 2)
    expect(sent).toEqual(['a', 'b'])
    db.$client.exec('drop trigger refuse')
    await until(() => rows(db).every((r) => r.state === 'delivered'), 5000)
    expect(sent).toEqual(['a', 'b'])
    expect(attempts(db)).toHaveLength(2)
  })
})
