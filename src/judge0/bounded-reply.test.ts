// A reply's size estimate costs what its tokens cost, not what the client has stored: the lengths query
// finds the named submissions by the public id's unique index. SQLite's planner took the client's own
// index before, then read every submission the client ever made to find one token (a wait=true reply
// or GET took ~0.85 ms at 2,000 submissions, growing with each). The plan is what is checked: timing it
// would be a timed unit test. Which rows it returns (another client's token, a v4 he_id) is checked by
// routes.test.ts through the API.
import { describe, expect, test } from 'vitest'
import { openMemoryDb } from '../storage/db.ts'
import { lengthsSelect, type Sized } from './bounded-reply.ts'

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
