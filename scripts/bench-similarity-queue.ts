// What a similarity report costs the sandbox queue, and what the queue costs a report: the real server
// (real pool, real jail) holds 1,000 generated python submissions; then, in alternating rounds, it
// completes a round of queued v4 submissions (python3 hello) alone, a report over the 1,000 alone, and
// the same report with the same round of submissions sent while its analysis runs. Prints the queue's
// throughput alone and beside a report (their ratio is what a report costs the queue) and the report's
// time alone and beside the queue (the analysis waits while the jails have work).
//
//   npx tsx scripts/bench-similarity-queue.ts [--rounds 3] [--jobs 150] [--submissions 1000] [--json]
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { SIMILARITY_PATH } from '../src/similarity/reports.ts'
import { api, json, startServer } from '../src/testing/harness.ts'
import { generateSubmissions } from '../src/testing/similarity-submissions.ts'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    jobs: { type: 'string', default: '150' },
    submissions: { type: 'string', default: '1000' },
    json: { type: 'boolean', default: false },
  },
})
const ROUNDS = Number(values.rounds)
const JOBS = Number(values.jobs)
const PATH = '/v4/partner/code-evaluation/submissions/'

// the 1,000 go in at once: no per-client cap on queued work
const server = await startServer({ configToml: '[evaluation]\nmax_queued_per_client = 0\n' })
const secret = await server.createClient('bench-similarity-queue')
const http = api(server.url)
const headers = { 'client-secret': secret, 'content-type': 'application/json' }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Sends the sources (16 requests in flight) and waits until every one has completed; their he_ids. */
async function submitAll(sources: string[]) {
  const ids: string[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < sources.length) {
        const source = sources[next++]!
        const r = await json(await http.post(PATH, JSON.stringify({ lang: 'PYTHON3', source }), headers))
        if (!r.he_id) throw new Error(JSON.stringify(r))
        ids.push(r.he_id)
      }
    })
  )
  const marks = ids.map(() => '?').join(',')
  while (server.query<{ n: number }>(`select count(*) n from submissions where he_id in (${marks}) and state = 'completed'`, ...ids)[0]!.n < ids.length) await sleep(100)
  return ids
}

/** A round of JOBS hello worlds queued at once: jobs per second until the last completed, and how many were not AC. */
async function queueRound(tag: string) {
  const started = performance.now()
  const ids = await submitAll(Array.from({ length: JOBS }, (_, i) => `print("${tag} ${i}")`))
  const wallS = (performance.now() - started) / 1000
  const marks = ids.map(() => '?').join(',')
  const notAc = server.query<{ n: number }>(`select count(*) n from submissions where he_id in (${marks}) and (verdict is null or verdict != 'AC')`, ...ids)[0]!.n
  return { jobsPerSec: JOBS / wallS, notAc }
}

/** Asks for a report over `heIds`; resolves with its time once completed, and the stages it showed. */
async function report(heIds: string[], whileRunning?: () => Promise<unknown>) {
  const started = performance.now()
  const r = await json(await http.post(`${SIMILARITY_PATH}/`, JSON.stringify({ he_ids: heIds, language: 'python' }), headers))
  if (!r.report_id) throw new Error(JSON.stringify(r))
  const stages = new Set<string>()
  const poll = async () => {
    for (;;) {
      const s = await json(await http.get(`${SIMILARITY_PATH}/${r.report_id}/`, { 'client-secret': secret }))
      if (s.stage) stages.add(s.stage)
      if (s.status === 'completed' || s.status === 'failed') return s
      await sleep(50)
    }
  }
  let during: unknown
  if (whileRunning) {
    // once the analysis is under way (tokenizing, its busiest stage)
    for (;;) {
      const s = await json(await http.get(`${SIMILARITY_PATH}/${r.report_id}/`, { 'client-secret': secret }))
      if (s.status === 'running' && s.stage) break
      await sleep(20)
    }
    during = await whileRunning()
  }
  const done = await poll()
  if (done.status !== 'completed') throw new Error(`the report failed: ${JSON.stringify(done).slice(0, 300)}`)
  return { seconds: (performance.now() - started) / 1000, stages: [...stages], during }
}

const { files } = generateSubmissions({ count: Number(values.submissions), seed: 20261127, copyShare: 0.05 })
const heIds = await submitAll(files.map((f) => f.source))

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const queueAlone: number[] = []
const queueBeside: number[] = []
const reportAlone: number[] = []
const reportBeside: number[] = []
const stagesBeside = new Set<string>()
let notAc = 0
await queueRound('warm-up')
for (let round = 0; round < ROUNDS; round++) {
  const q = await queueRound(`alone-${round}`)
  queueAlone.push(q.jobsPerSec)
  reportAlone.push((await report(heIds)).seconds)
  const beside = await report(heIds, () => queueRound(`beside-${round}`))
  const b = beside.during as Awaited<ReturnType<typeof queueRound>>
  queueBeside.push(b.jobsPerSec)
  reportBeside.push(beside.seconds)
  beside.stages.forEach((s) => stagesBeside.add(s))
  notAc += q.notAc + b.notAc
}
await server.stop()
server.cleanup()

const row = {
  submissions_in_report: heIds.length,
  jobs_per_round: JOBS,
  rounds: ROUNDS,
  queue_alone_jobs_per_s: +median(queueAlone).toFixed(1),
  queue_beside_a_report_jobs_per_s: +median(queueBeside).toFixed(1),
  queue_ratio: +(median(queueBeside) / median(queueAlone)).toFixed(3),
  report_alone_s: +median(reportAlone).toFixed(2),
  report_beside_the_queue_s: +median(reportBeside).toFixed(2),
  stages_seen_beside: [...stagesBeside],
  not_ac: notAc,
  load_avg: +loadavg()[0]!.toFixed(1),
  each_round: { queue_alone: queueAlone.map((x) => +x.toFixed(1)), queue_beside: queueBeside.map((x) => +x.toFixed(1)), report_alone: reportAlone.map((x) => +x.toFixed(2)), report_beside: reportBeside.map((x) => +x.toFixed(2)) },
}
if (values.json) process.stdout.write(JSON.stringify(row, null, 2) + '\n')
else console.log(row)
