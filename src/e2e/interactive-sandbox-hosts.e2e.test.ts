// Interactive and multi-pass grading through a sandbox host: an API host with pool.size = 0 sends each
// graded v4 submission, its output validator marked interactive or multi-pass, over BullMQ on a real
// (private) Redis to a `cli worker` process, which runs the validator and the submission wired in its
// own jails and sends each test's outcome back. The who-decides rules come back as a local run gives
// them, hostile programs included, once from a host with prepared jails and once from a host with
// pool.prepared_jails = false. A prober looks for the API host, Redis and both data directories.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'
import { DOUBLER, INTERACTIVE_MULTI, MULTI, prober, SUB, VALIDATOR } from '../testing/interactive-programs.ts'
import { startRedis, type TestRedis } from '../testing/redis-server.ts'
import { testSandboxToml } from '../testing/sandbox-bin.ts'
import { apiHostToml, startWorker, stopAll, type WorkerProcess } from '../testing/sandbox-host-harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'

let redis: TestRedis
let server: RunningServer
let secret: string
const workers: WorkerProcess[] = []

beforeAll(async () => {
  redis = await startRedis()
  server = await startServer({ configToml: apiHostToml(redis.url) })
  secret = await server.createClient('interactive-hosts')
}, 120_000)

afterAll(() => stopAll({ workers, server, redis }), 120_000)

const http = () => api(server.url)
const health = async () => json(await http().get('/health'))
type Checker = Record<string, unknown>
const interactive: Checker = { type: 'output_validator', lang: 'C', source: VALIDATOR, interactive: true }

/** A graded v4 submission: one test per input, the validator judging (expected outputs are not read). */
const submit = async (source: string, inputs: string[], checker: Checker = interactive) => {
  const body = { lang: 'C', source, time_limit: 1, test_cases: inputs.map((input) => ({ input: `${input}\n`, expected_output: '' })), checker }
  const r = await http().post(PATH, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' })
  expect(r.status, await r.clone().text()).toBe(200)
  return (await json(r)).he_id as string
}
const row = (publicId: string) => server.query<{ state: string }>('select state from submissions where he_id = ?', publicId)[0]
type Test = { status: string; checker_message: string }
const tests = async (publicId: string): Promise<Test[]> => (await json(await http().get(`${PATH}${publicId}/`, { 'client-secret': secret }))).result.tests

const IE_WALL = /^output validator exceeded its wall limit/
const message = (m: string | RegExp) => (m instanceof RegExp ? expect.stringMatching(m) : m)

for (const prepared of [true, false]) {
  describe(`a sandbox host ${prepared ? 'with prepared jails' : 'with pool.prepared_jails = false'}`, () => {
    test('grades interactive and multi-pass submissions as a local run does: the validator\'s fault IE, an early rejection WA, then TLE, then RE; hostile ends; nextpass.in', { timeout: 600_000 }, async () => {
      const host = await startWorker({ redisUrl: redis.url, id: `interactive-${prepared ? 'p' : 'n'}`, slots: 2, langs: ['C'], configToml: `${testSandboxToml()}\n[pool]\nprepared_jails = ${prepared}\n` })
      workers.push(host)
      await waitUntil(async () => (await health()).queue.hosts.some((h: { id: string }) => h.id === host.id), 20_000, 'the host to advertise')

      const cases: { source: string; inputs: string[]; checker?: Checker; want: [string, (string | RegExp)?][] }[] = [
        {
          source: SUB.good,
          inputs: ['play 21', 'early 1', 'crash 5', 'exit7 5', 'hang 5', 'spew 5'],
          want: [['AC', 'well played'], ['WA', 'rejected at once'], ['IE', /^output validator killed by SIGABRT/], ['IE', /^output validator exited with 7/], ['IE', IE_WALL], ['IE', IE_WALL]],
        },
        { source: SUB.wrong, inputs: ['play 21'], want: [['WA', 'got 43, not 42']] },
        { source: SUB.closes, inputs: ['play 21'], want: [['WA', 'no answer']] },
        { source: SUB.crashes, inputs: ['play 21'], want: [['RE']] },
        // both hang: bounded, the validator's fault
        { source: SUB.hangs, inputs: ['play 21', 'hang 5'], want: [['TLE'], ['IE', IE_WALL]] },
        { source: SUB.floods, inputs: ['play 21'], want: [['WA', 'got 1, not 42']] },
        { source: SUB.drains, inputs: ['flood 5'], want: [['AC', 'well played']] },
        // looks for the API host's port, Redis, and the data directories of both hosts
        { source: prober([server.port, redis.port], [server.dataDir, host.dataDir]), inputs: ['play 21'], want: [['AC', 'well played']] },
        { source: DOUBLER, inputs: ['twice 5', 'always 5'], checker: { type: 'output_validator', lang: 'C', source: MULTI, passes: 3 }, want: [['AC', 'pass 1 ok;pass 2 ok;'], ['IE', /wrote nextpass\.in on pass 3, the last one the problem allows/]] },
        { source: SUB.good, inputs: ['play 4'], checker: { ...interactive, source: INTERACTIVE_MULTI, passes: 3 }, want: [['AC', 'well played']] },
      ]
      const ids = await Promise.all(cases.map((c) => submit(c.source, c.inputs, c.checker)))
      await waitUntil(() => ids.every((id) => row(id)?.state === 'completed'), 400_000, 'every submission to complete')
      for (const [i, c] of cases.entries()) {
        const got = await tests(ids[i]!)
        expect(got.map((t) => ({ status: t.status, checker_message: t.checker_message })), `case ${i}`).toEqual(
          c.want.map(([status, m]) => (m === undefined ? expect.objectContaining({ status }) : { status, checker_message: message(m) }))
        )
      }
      // the host ran them: the API host has no jail (pool.size = 0)
      expect(host.output()).not.toMatch(/job refused/)
      await host.stop()
    })
  })
}
