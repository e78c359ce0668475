// The outbox's slots shared by client, destination and e-mail, through the real outbox: real callbacks
// over loopback to a receiver that accepts and never answers and to a healthy one, and fake senders
// for the turn and the e-mail share.
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { parseConfig } from '../config.ts'
import { silentLog } from '../log.ts'
import { openMemoryDb, type Db } from '../storage/db.ts'
import { outbox as outboxTable } from '../storage/schema.ts'
import { callbackSender, createOutbox, enqueueDelivery, type Outbox, type Senders } from './outbox.ts'
import { destinationHealth, shareOf, slotCaps } from './outbox-shares.ts'

let box: Outbox | undefined
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()))
  await box?.stop()
  box = undefined
})

const config = (outbox: Record<string, unknown> = {}) => parseConfig({ outbox: { backoff_ms: 200, ...outbox } }, {}, '/nonexistent')

async function until(cond: () => boolean, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 5))
  }
}

/** A loopback HTTP receiver; `dead` accepts every request and never answers. */
async function receiver(dead: boolean) {
  const arrivals: { path: string; at: number }[] = []
  let open = 0
  let peak = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((req, res) => {
    open++
    peak = Math.max(peak, open)
    res.on('close', () => open--)
    req.resume()
    req.on('end', () => {
      arrivals.push({ path: req.url ?? '', at: Date.now() })
      if (!dead) res.writeHead(200).end()
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      })
  )
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    get open() {
      return open
    },
    get peak() {
      return peak
    },
  }
}

const callback = (db: Db, owner: string, target: string, body = 'x') =>
  enqueueDelivery(db, { kind: 'callback', target, body, contentType: 'text/plain', owner }, new Date())
const email = (db: Db, to: string) => enqueueDelivery(db, { kind: 'email', target: to, body: '{}', contentType: 'application/json' }, new Date())

function start(db: Db, senders: Senders, outbox: Record<string, unknown> = {}) {
  box = createOutbox({ db, log: process.env.DBG ? ({ info: console.log, warn: console.log, error: console.log, debug: () => {}, child: () => ({}) } as never) : silentLog(), config: config(outbox), now: () => new Date() }, senders)
  box.start()
  return box
}

describe('outbox shares', () => {
  test("one client's dead receiver flooded with 45 callbacks does not delay another client's healthy delivery", async () => {
    const dead = await receiver(true)
    const healthy = await receiver(false)
    const db = openMemoryDb()
    const cfg = config({ timeout_ms: 3000 })
    start(db, { callback: callbackSender(cfg) }, { timeout_ms: 3000 })
    for (let i = 0; i < 45; i++) callback(db, 'client:1', `${dead.url}/a${i}`)
    box!.wake()
    // A's first deliveries are hanging at the dead receiver, holding what they may
    await until(() => dead.open > 0)
    await new Promise((r) => setTimeout(r, 200))
    const enqueued = Date.now()
    callback(db, 'client:2', `${healthy.url}/b`)
    box!.wake()
    await until(() => healthy.arrivals.length === 1)
    const delay = healthy.arrivals[0]!.at - enqueued
    // measured 2026-11-28 on the shared 2-core machine: single-digit to low tens of ms; without the
    // shares B's row waits behind A's 45 for two rounds of timeouts (>= 6 s here)
    expect(delay).toBeLessThan(1500)
    // A never held more than one share of the slots (16 slots: 6 for a client, 3 for one destination)
    expect(dead.peak).toBeLessThanOrEqual(slotCaps(16).perDestination)
    console.log(`healthy delivery delay behind a flooded dead receiver: ${delay} ms`)
  }, 30_000)

  test('a destination that timed out is held back, then probed with one slot at a time; its other client is not blocked either', async () => {
    const dead = await receiver(true)
    const healthy = await receiver(false)
    const db = openMemoryDb()
    start(db, { callback: callbackSender(config({ timeout_ms: 300 })) }, { timeout_ms: 300, backoff_ms: 100, backoff_max_ms: 400, max_attempts: 50 })
    // two clients call back to the same dead receiver
    for (let i = 0; i < 20; i++) callback(db, `client:${1 + (i % 2)}`, `${dead.url}/x${i}`)
    box!.wake()
    // the first round: up to 3 per client (6); from then on one probe at a time
    await until(() => dead.arrivals.length >= 12, 15_000)
    const firstRound = dead.peak
    expect(firstRound).toBeLessThanOrEqual(2 * slotCaps(16).perDestination)
    const before = dead.arrivals.length
    await new Promise((r) => setTimeout(r, 1500))
    // held back between probes (backoff by streak, 100-400 ms, plus the 300 ms timeout): far fewer than
    // 20 rows x 1500 ms / 300 ms if every row were retried on its own
    expect(dead.arrivals.length - before).toBeLessThan(10)
    expect(dead.open).toBeLessThanOrEqual(1)
    // client 2 also has a healthy receiver: it is served at once
    const t0 = Date.now()
    callback(db, 'client:2', `${healthy.url}/ok`)
    box!.wake()
    await until(() => healthy.arrivals.length === 1)
    expect(healthy.arrivals[0]!.at - t0).toBeLessThan(1000)
  }, 30_000)

  test('clients take the slots in turn: a backlog of one client does not go first', async () => {
    const db = openMemoryDb()
    const order: string[] = []
    start(
      db,
      {
        callback: async (row) => {
          order.push(row.body)
          await new Promise((r) => setTimeout(r, 10))
        },
      },
      { concurrency: 1 }
    )
    for (let i = 0; i < 8; i++) callback(db, 'client:1', 'http://a.example/cb', `A${i}`)
    callback(db, 'client:2', 'http://b.example/cb', 'B0')
    callback(db, 'client:2', 'http://b.example/cb', 'B1')
    box!.wake()
    await until(() => order.length === 10)
    expect(order.slice(0, 4)).toEqual(['A0', 'B0', 'A1', 'B1'])
  })

  test('e-mails have their own share: hanging callbacks of many clients do not hold them, and a hanging SMTP server does not hold callbacks', async () => {
    const db = openMemoryDb()
    const mailed: string[] = []
    const called: string[] = []
    let release!: () => void
    const hang = new Promise<void>((r) => (release = r))
    closers.push(async () => release())
    start(db, {
      callback: async (row) => {
        if (row.target.includes('dead')) await hang
        called.push(row.target)
      },
      email: async (row) => {
        if (row.target.startsWith('stuck')) await hang
        mailed.push(row.target)
      },
    })
    // ten clients, each flooding its own dead receivers on several hosts: every callback slot hangs
    for (let c = 0; c < 10; c++) for (let i = 0; i < 10; i++) callback(db, `client:${c}`, `http://dead${i}.example/cb`)
    box!.wake()
    await until(() => box!.inFlight >= slotCaps(16).callbacks)
    email(db, 'ok@example.org')
    box!.wake()
    await until(() => mailed.length === 1, 2000)
    // and the other way: e-mails hanging at the SMTP server leave callback slots alone
    const db2 = openMemoryDb()
    release()
    await box!.stop()
    mailed.length = 0
    let release2!: () => void
    const hang2 = new Promise<void>((r) => (release2 = r))
    closers.push(async () => release2())
    start(db2, {
      callback: async (row) => void called.push(row.target),
      email: async (row) => {
        if (row.target.startsWith('stuck')) await hang2
        mailed.push(row.target)
      },
    })
    for (let i = 0; i < 30; i++) email(db2, `stuck${i}@example.org`)
    box!.wake()
    await until(() => box!.inFlight === slotCaps(16).email)
    callback(db2, 'client:1', 'http://fine.example/cb')
    box!.wake()
    await until(() => called.includes('http://fine.example/cb'), 2000)
    expect(box!.inFlight).toBe(slotCaps(16).email)
  }, 30_000)

  test('rows are stored with their share and destination (e-mails: one share, the SMTP server)', () => {
    const db = openMemoryDb()
    callback(db, 'client:7', 'HTTP://Hook.Example:8080/a?b')
    email(db, 'x@example.org')
    expect(db.select({ share: outboxTable.share, destination: outboxTable.destination }).from(outboxTable).all()).toEqual([
      { share: 'client:7', destination: 'http://hook.example:8080' },
      { share: 'email', destination: 'smtp' },
    ])
    expect(shareOf('callback', 'not a url', undefined)).toEqual({ share: 'destination:not a url', destination: 'not a url' })
  })

  test('caps for 16 slots, and for 1', () => {
    expect(slotCaps(16)).toEqual({ email: 4, callbacks: 12, perShare: 6, perDestination: 3 })
    expect(slotCaps(1)).toEqual({ email: 1, callbacks: 1, perShare: 1, perDestination: 1 })
    const h = destinationHealth((streak) => 100 * streak)
    expect(h.cap('d', 3, 0)).toBe(3)
    h.timedOut('d', 0)
    expect([h.cap('d', 3, 50), h.cap('d', 3, 100), h.streak('d'), h.nextRelease(0)]).toEqual([0, 1, 1, 100])
    h.timedOut('d', 100)
    expect([h.cap('d', 3, 250), h.cap('d', 3, 300)]).toEqual([0, 1])
    h.answered('d')
    expect(h.cap('d', 3, 0)).toBe(3)
  })
})
