// The life of an interview with a movable clock: the minute sweep (schedule.ts) moves it upcoming →
// ongoing → completed after the maximum duration, an interviewer's End completes it at once, the status
// never goes back, and the report callback is enqueued exactly once when it concludes.
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { sweep } from '../schedule.ts'
import { interviews, outbox, roomSessions } from '../storage/schema.ts'
import { endInterview, submitFeedback } from './lifecycle.ts'
import { reportSecret } from './report.ts'
import { createBody, seedCompany, testApp, testDeps } from '../testing/interviews.ts'
import { openSession } from '../room/sessions.ts'

const P = '/partner/service/interviews'
const MIN = 60_000
const HOOK = 'http://partner.test/hook'

async function setup(over: Record<string, unknown> = { callback_url: HOOK }) {
  const deps = testDeps({ max_duration_min: 60 })
  let wakes = 0
  deps.outbox = { ...deps.outbox, wake: () => void wakes++ }
  const seed = seedCompany(deps)
  const { call } = testApp(deps)
  const created = await call('POST', `${P}/`, createBody(seed.admin, deps.now(), over))
  expect(created.status).toBe(201)
  const id: string = created.json.interview_id
  const row = () => deps.db.select().from(interviews).where(eq(interviews.id, id)).get()!
  const reports = () => deps.db.select().from(outbox).where(eq(outbox.kind, 'interview_report')).all()
  // the status as stored: what the sweep recorded, without a read settling it
  const stored = () => {
    const r = row()
    return r.endedAt ? 'completed' : r.startedAt ? 'ongoing' : 'upcoming'
  }
  const report = async () => (await call('POST', `${P}/report/`, { ...seed.admin, interview_id: id })).json
  return { deps, seed, call, id, created: created.json, row, reports, stored, report, wakes: () => wakes }
}

describe('the sweep', () => {
  it('moves upcoming → ongoing at the start → completed after max_duration_min, and sends the report once', async () => {
    const t = await setup()
    sweep(t.deps)
    expect(t.stored()).toBe('upcoming')

    t.deps.advance(60 * MIN) // the start (createBody: one hour ahead)
    sweep(t.deps)
    expect(t.stored()).toBe('ongoing')
    expect(t.row().startedAt).toEqual(t.row().startAt)
    expect(t.reports()).toEqual([])

    t.deps.advance(60 * MIN - 1)
    sweep(t.deps)
    expect(t.stored()).toBe('ongoing')

    const wakesBefore = t.wakes()
    t.deps.advance(1)
    sweep(t.deps)
    expect(t.stored()).toBe('completed')
    expect(t.row().endedAt).toEqual(new Date(t.row().startAt.getTime() + 60 * MIN))
    // the report is an outbox row for callback_url, and the outbox is told at once
    expect(t.wakes()).toBeGreaterThan(wakesBefore)
    const [rep, ...more] = t.reports()
    expect(more).toEqual([])
    expect(rep).toMatchObject({ target: HOOK, state: 'pending', groupKey: `report:${t.id}`, kind: 'interview_report', subjectId: t.id })
    // the signing secret is found from the subject, whatever the group key says
    expect(reportSecret(t.deps, { subjectId: t.id })).toEqual(expect.any(String))
    expect(reportSecret(t.deps, { subjectId: null })).toBeNull()
    const body = JSON.parse(rep.body)
    expect(body).toEqual({ ...(await t.report()), interview_id: t.id })
    expect(body).toMatchObject({ mcode: 'success', status: 'completed', interviewer_feedbacks: expect.any(Object) })

    // later sweeps and reads change nothing and send nothing more
    t.deps.advance(24 * 60 * MIN)
    sweep(t.deps)
    await t.report()
    expect(t.reports()).toHaveLength(1)
  })

  it('an interview first seen after its end (the server was down) completes with its report', async () => {
    const t = await setup()
    t.deps.advance(10 * 60 * MIN)
    sweep(t.deps)
    expect(t.stored()).toBe('completed')
    expect(t.reports()).toHaveLength(1)
  })

  it('drops expired room sessions', async () => {
    const t = await setup()
    openSession(t.deps, t.created.candidate_interview_link.slice(-43))
    t.deps.advance(t.deps.config.room.session_ttl_min * MIN)
    sweep(t.deps)
    expect(t.deps.db.select().from(roomSessions).all()).toEqual([])
  })

  it('without a callback_url it completes and nothing is sent', async () => {
    const t = await setup({})
    t.deps.advance(3 * 60 * MIN)
    sweep(t.deps)
    expect(t.stored()).toBe('completed')
    expect(t.reports()).toEqual([])
  })

  it('a deleted interview is not swept', async () => {
    const t = await setup()
    await t.call('POST', `${P}/delete/`, { ...t.seed.admin, interview_id: t.id })
    t.deps.advance(3 * 60 * MIN)
    sweep(t.deps)
    expect(t.row().startedAt).toBeNull()
    expect(t.reports()).toEqual([])
  })
})

describe('never going back', () => {
  it('an ongoing interview moved to a later start stays ongoing, and still ends max_duration after its real start', async () => {
    const t = await setup()
    t.deps.advance(60 * MIN)
    sweep(t.deps)
    const later = createBody(t.seed.admin, t.deps.now(), { start_datetime: new Date(t.deps.now().getTime() + 5 * 60 * MIN).toISOString() })
    expect((await t.call('PUT', `${P}/${t.id}/`, later)).status).toBe(200)
    expect((await t.report()).status).toBe('ongoing')
    t.deps.advance(60 * MIN)
    sweep(t.deps)
    expect((await t.report()).status).toBe('completed')
    // and a completed one can be neither updated nor deleted
    expect((await t.call('PUT', `${P}/${t.id}/`, createBody(t.seed.admin, t.deps.now()))).json.ecode).toEqual(['ENDEDINTERVIEWUPDATIONDENIED'])
    expect((await t.call('POST', `${P}/delete/`, { ...t.seed.admin, interview_id: t.id })).json.ecode).toEqual(['ENDEDINTERVIEWDELETIONDENIED'])
    expect((await t.report()).status).toBe('completed')
  })
})

describe('End interview', () => {
  it('completes it at once, even before its start; twice changes nothing', async () => {
    const t = await setup()
    expect(endInterview(t.deps, t.id)).toEqual({ status: 'completed', ended: true })
    expect(t.row().startedAt).toEqual(t.deps.now())
    expect(t.row().endedAt).toEqual(t.deps.now())
    expect((await t.report()).status).toBe('completed')
    expect(t.reports()).toHaveLength(1)
    expect(endInterview(t.deps, t.id)).toEqual({ status: 'completed', ended: false })
    t.deps.advance(3 * 60 * MIN)
    sweep(t.deps)
    expect(t.reports()).toHaveLength(1)
    expect(t.row().endedAt!.getTime()).toBeLessThan(t.deps.now().getTime())
  })

  it('feedback given after the end is sent as an updated report, after the first', async () => {
    const t = await setup()
    endInterview(t.deps, t.id)
    submitFeedback(t.deps, t.id, 'ivan1@acme.test', { result: 'NO', ratings: { DEBUGGABILITY: { rating: 2, comment: '' } }, eval_params_ratings: {} })
    const [first, second] = t.reports()
    expect(JSON.parse(first.body).interviewer_feedbacks['ivan1@acme.test'].result).toBeNull()
    expect(JSON.parse(second.body).interviewer_feedbacks['ivan1@acme.test']).toMatchObject({
      result: 'NO',
      ratings: { DEBUGGABILITY: { rating: '2', verbose_name: 'Debuggability', rating_message: 'Found bugs only when shown' } },
    })
    expect(second.groupKey).toBe(first.groupKey)
  })
})
