import { afterEach, describe, expect, test } from 'vitest'
import { createFakePool, echo } from '../testing/fake-pool.ts'
import { enqueueDelivery } from '../jobs/outbox.ts'
import { outbox as outboxTable } from '../storage/schema.ts'
import { findClientBySecret } from '../clients/clients.ts'
import { jobSpecOf, protocolDataOf, rawResultOf, type Submission } from './model.ts'
import { protocolRegistry, type Protocol } from './protocols.ts'
import { acceptAndWait, acceptSubmission, evaluateWithin } from './submissions.ts'
import { addClient, createTestDeps, thrownAppError, until, type TestDeps } from '../testing/evaluation.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

/** A protocol that records its hooks' calls and enqueues a delivery when completed. */
function recorder(name: string, stagesShown: boolean, extra: Partial<Protocol> = {}) {
  const calls: { hook: string; row: Submission }[] = []
  const p: Protocol = {
    name,
    stagesShown,
    onCompiled: (_d, row) => void calls.push({ hook: 'compiled', row }),
    onCompleted(d, row) {
      calls.push({ hook: 'completed', row })
      enqueueDelivery(d.db, { kind: 'callback', subjectId: String(row.id), target: 'http://cb.test/', body: row.stdout ?? '', contentType: 'text/plain', headers: {}, groupKey: `s${row.id}`, dedupeKey: `s${row.id}` }, d.now())
    },
    ...extra,
  }
  return { p, calls }
}

describe('the protocol registry', () => {
  test('a name is registered once', () => {
    const { p } = recorder('x', false)
    expect(() => protocolRegistry([p, p])).toThrow(/twice/)
  })

  test('a submission of an unregistered protocol is refused before anything is stored', () => {
    deps = createTestDeps()
    const client = findClientBySecret(deps.db, addClient(deps))!
    expect(() => acceptSubmission(deps, client, { api: 'nope', lang: 'C', source: 's' })).toThrow(/not registered/)
  })

  test("the core calls the row's protocol hooks: compiled only when it shows stages, completed inside the completion", async () => {
    const shown = recorder('shown', true)
    const hidden = recorder('hidden', false)
    deps = createTestDeps({ protocols: protocolRegistry([shown.p, hidden.p]), senders: { callback: async () => {} } })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const a = acceptSubmission(deps, client, { api: 'shown', lang: 'C', source: 's', input: 'a' })
    const b = acceptSubmission(deps, client, { api: 'hidden', lang: 'C', source: 's', input: 'b' })
    await until(() => shown.calls.some((c) => c.hook === 'completed') && hidden.calls.some((c) => c.hook === 'completed'))
    expect(shown.calls.map((c) => c.hook)).toEqual(['compiled', 'completed'])
    expect(hidden.calls.map((c) => c.hook)).toEqual(['completed'])
    expect(shown.calls[1]!.row).toMatchObject({ id: a.id, state: 'completed', stdout: 'a' })
    expect(hidden.calls[0]!.row).toMatchObject({ id: b.id, state: 'completed', stdout: 'b' })
    // what the hook enqueued was committed with the completion
    expect(deps.db.select().from(outboxTable).all().map((r) => r.body).sort()).toEqual(['a', 'b'])
  })

  test('a protocol marked asynchronous queues its rows as asynchronous; the others are synchronous unless asked', () => {
    const sync = recorder('sync', false)
    const asyncP = recorder('later', false, { asynchronous: true })
    deps = createTestDeps({ protocols: protocolRegistry([sync.p, asyncP.p]), start: false })
    const client = findClientBySecret(deps.db, addClient(deps))!
    expect(acceptSubmission(deps, client, { api: 'sync', lang: 'C', source: 's' })).toMatchObject({ async: false, priority: 1 })
    expect(acceptSubmission(deps, client, { api: 'sync', lang: 'C', source: 's', async: true })).toMatchObject({ async: true, priority: 1 })
    expect(acceptSubmission(deps, client, { api: 'later', lang: 'C', source: 's' })).toMatchObject({ async: true, priority: 1 })
  })

  test('protocol data and the job spec are stored with the row and reach the job; the raw steps are stored at completion', async () => {
    const p = recorder('x', false)
    const pool = createFakePool({ size: 1 })
    deps = createTestDeps({ protocols: protocolRegistry([p.p]), pool })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const { row, done } = await acceptAndWait(
      deps,
      client,
      { api: 'x', lang: 'C', source: 's', input: 'hi', protocolData: { base64: true }, sourceFileName: 'prog.c', runArgv: ['./prog', '-v'], files: [{ name: 'data.txt', contentBase64: 'aGk=' }], processes: 3 },
      5000
    )
    expect(done).toBe(true)
    expect(protocolDataOf(row)).toEqual({ base64: true })
    // the files are stored beside the database, named by the row (storage/payloads.ts), and read where the job runs
    expect(jobSpecOf(row)).toEqual({ sourceFileName: 'prog.c', runArgv: ['./prog', '-v'], stored: [{ name: 'data.txt', bytes: 2 }], processes: 3 })
    expect(pool.jobs[0]).toMatchObject({ sourceFileName: 'prog.c', runArgv: ['./prog', '-v'], filesAt: [{ name: 'data.txt', bytes: 2 }], processes: 3 })
    expect(pool.files[0]).toEqual([{ name: 'data.txt', contentBase64: 'aGk=' }])
    expect(rawResultOf(row)).toMatchObject({ run: { status: 'ok', exitCode: 0 } })
  })

  test('acceptAndWait gives up at its deadline; the submission stays queued and runs later', async () => {
    const p = recorder('x', false)
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const pool = createFakePool({ size: 1, behave: async (job) => (await gate, echo(job)) })
    deps = createTestDeps({ protocols: protocolRegistry([p.p]), pool })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const started = Date.now()
    const { row, done } = await acceptAndWait(deps, client, { api: 'x', lang: 'C', source: 's', input: 'late' }, 150)
    expect(done).toBe(false)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
    expect(row.state).toBe('queued')
    release()
    const later = await deps.dispatcher.waitFor(row.id)
    expect(later.stdout).toBe('late')
  })

  test('evaluateWithin withdraws a submission that has not started by its deadline; one that started is waited for', async () => {
    const p = recorder('x', false)
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const pool = createFakePool({ size: 1, behave: async (job) => (job.input === 'first' ? (await gate, echo(job)) : echo(job)) })
    deps = createTestDeps({ protocols: protocolRegistry([p.p]), pool })
    const client = findClientBySecret(deps.db, addClient(deps))!
    const first = evaluateWithin(deps, client, { api: 'x', lang: 'C', source: 's', input: 'first' }, 100)
    await until(() => pool.jobs.length === 1)
    const second = await evaluateWithin(deps, client, { api: 'x', lang: 'C', source: 's', input: 'second' }, 100)
    expect(second.withdrawn).toBe(true)
    expect(second.row).toMatchObject({ state: 'completed', startedAt: null, failure: expect.stringMatching(/withdrawn/) })
    release()
    const done = await first
    expect(done.withdrawn).toBe(false)
    expect(done.row.stdout).toBe('first')
    await new Promise((r) => setTimeout(r, 50))
    expect(pool.jobs.map((j) => j.input)).toEqual(['first'])
  })

  test('a job spec that could leave the work directory is refused', () => {
    deps = createTestDeps()
    const client = findClientBySecret(deps.db, addClient(deps))!
    for (const name of ['../x', 'a/b', '.hidden', '', 'a\nb']) {
      expect(thrownAppError(() => acceptSubmission(deps, client, { api: 'v3', lang: 'C', source: 's', files: [{ name, contentBase64: '' }] })).code).toBe('InvalidArgument')
      expect(thrownAppError(() => acceptSubmission(deps, client, { api: 'v3', lang: 'C', source: 's', sourceFileName: name })).code).toBe('InvalidArgument')
    }
  })
})
