// A reply's size estimate costs what its tokens cost, not what the client has stored: the lengths query
// finds the named submissions by the public id's unique index. SQLite's planner took the client's own
// index before, then read every submission the client ever made to find one token (a wait=true reply
// or GET took ~0.85 ms at 2,000 submissions, growing with each). The plan is what is checked: timing it
// would be a timed unit test. Which rows it returns (another client's token, a v4 he_id) is checked by
// routes.test.ts through the API.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import type { AddressInfo } from 'node:net'
import { describe, expect, test } from 'vitest'
import { openMemoryDb } from '../storage/db.ts'
import { jsonParts, lengthsSelect, ONE_WRITE_BYTES, type Sized } from './bounded-reply.ts'

const FIELD_SETS: Sized[][] = [['stdout'], ['source_code', 'stdin', 'expected_output', 'stdout', 'stderr', 'compile_output', 'message', 'additional_files']]

describe('the lengths query of a reply', () => {
  test.each(FIELD_SETS)('reads the named submissions by their public id, not the client’s (%s …)', (...chosen) => {
    const db = openMemoryDb()
    const { sql, params } = lengthsSelect(db, chosen).toSQL()
    const args = params.map((p) => ((p as { name?: string }).name === 'tokens' ? '["a","b"]' : (p as { name?: string }).name === 'clientId' ? 1 : p))
    const plan = (db.$client.prepare(`explain query plan ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ')
    expect(plan).toMatch(/SEARCH submissions USING INDEX submissions_heId_unique \(he_id=\?\)/)
    expect(plan).not.toMatch(/submissions_client|SCAN submissions/)
  })
})

// How a reply of parts reaches the socket, through node-server as the server serves it: every wait=true
// reply is one part, and a streamed one cost a write for its headers and one a part. Counted: the
// socket's flushes to the kernel (_write, _writev).
describe('a reply of parts', () => {
  const flushesOf = async (parts: Buffer[]) => {
    const app = new Hono().get('/', () => jsonParts(parts, 201))
    let flushes = 0
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    server.on('connection', (socket) => {
      for (const m of ['_write', '_writev'] as const) {
        const own = (socket as unknown as Record<string, (...a: unknown[]) => unknown>)[m]!
        ;(socket as unknown as Record<string, unknown>)[m] = function (this: unknown, ...a: unknown[]) {
          flushes++
          return own.apply(this, a)
        }
      }
    })
    try {
      await new Promise((r) => server.once('listening', r))
      const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { connection: 'close' } })
      return { flushes, status: r.status, length: r.headers.get('content-length'), body: Buffer.from(await r.arrayBuffer()) }
    } finally {
      server.close()
    }
  }

  test('one part, or small parts: the headers and the body in one write', async () => {
    const one = Buffer.from('{"stdout":"hello\\n"}')
    expect(await flushesOf([one])).toEqual({ flushes: 1, status: 201, length: String(one.length), body: one })
    const small = [Buffer.from('{"submissions":['), one, Buffer.from(','), one, Buffer.from(']}')]
    expect(await flushesOf(small)).toMatchObject({ flushes: 1, body: Buffer.concat(small) })
  })

  test('large parts: streamed as they are, their bytes all sent', async () => {
    const big = Buffer.alloc(ONE_WRITE_BYTES, 'a')
    const got = await flushesOf([Buffer.from('['), big, Buffer.from(']')])
    expect(got.flushes).toBeGreaterThan(1)
    expect(got.body.equals(Buffer.concat([Buffer.from('['), big, Buffer.from(']')]))).toBe(true)
  })
})
