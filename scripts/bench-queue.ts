// Benchmark of the queue itself, no HTTP and no jail: a SQLite database on disk (WAL, as the server
// opens it) with --queued submissions waiting from --clients clients, each accepted through the same
// service as the API (acceptSubmission: cap check, fair round, quota, insert). Prints the cost of an
// accept and of a claim (the one UPDATE … RETURNING, fair order) at that depth, and the claim limited
// to languages (what the sandbox hosts' claims run), each as median and p99 in microseconds.
// Usage: npx tsx scripts/bench-queue.ts [--queued 10000] [--clients 20] [--claims 2000] [--json]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { parseConfig } from '../src/config.ts'
import { createClient } from '../src/clients/clients.ts'
import { claimNext } from '../src/evaluation/queue.ts'
import { acceptSubmission } from '../src/evaluation/submissions.ts'
import { loadLanguages } from '../src/languages.ts'
import { silentLog } from '../src/log.ts'
import { createProtocols } from '../src/protocols.ts'
import { openDb } from '../src/storage/db.ts'

const { values } = parseArgs({
  options: {
    queued: { type: 'string', default: '10000' },
    clients: { type: 'string', default: '20' },
    claims: { type: 'string', default: '2000' },
    json: { type: 'boolean', default: false },
  },
})
const QUEUED = Number(values.queued)
const CLIENTS = Number(values.clients)
const CLAIMS = Number(values.claims)

const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-queue-'))
const db = openDb(join(dir, 'arbiter.db'))
// the cap is lifted only when one client must hold more than its default share of the depth
const perClient = Math.ceil(QUEUED / CLIENTS)
const config = parseConfig({ evaluation: { max_queued_per_client: perClient > 500 ? 0 : 500 } }, {}, dir)
const deps = {
  config,
  db,
  log: silentLog(),
  languages: loadLanguages(),
  protocols: createProtocols(),
  now: () => new Date(),
  dispatcher: { start() {}, wake() {}, waitFor: () => new Promise<never>(() => {}), stop: async () => {}, inFlight: 0 },
  outbox: { start() {}, wake() {}, stop: async () => {} },
}
const clients = Array.from({ length: CLIENTS }, (_, i) => createClient(db, new Date(), { name: `c${i}` }).client)

const stats = (us: number[]) => {
  const s = [...us].sort((a, b) => a - b)
  return { median: s[Math.floor(s.length / 2)]!, p99: s[Math.floor(s.length * 0.99)]! }
}
const time = (fn: () => unknown) => {
  const t = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - t) / 1000
}

// a burst per client, as a class's deadline would bring: client 0 first with all of its rows, then the next…
const accept: number[] = []
for (const c of clients)
  for (let i = 0; i < perClient && accept.length < QUEUED; i++)
    accept.push(time(() => acceptSubmission(deps as never, c, { api: 'v4', lang: i % 2 ? 'C' : 'PYTHON3', source: 'print(1)' })))

const claim: number[] = []
for (let i = 0; i < CLAIMS; i++) {
  let row
  claim.push(time(() => (row = claimNext(db, new Date()))))
  // keep the depth: the claimed row waits again (its round stays, as a retried row's does)
  db.$client.prepare("update submissions set state = 'queued' where id = ?").run(row!.id)
}
const hosts: number[] = []
const py = new Set(['PYTHON3'])
for (let i = 0; i < CLAIMS; i++) {
  let row
  hosts.push(time(() => (row = claimNext(db, new Date(), py))))
  db.$client.prepare("update submissions set state = 'queued' where id = ?").run(row!.id)
}
// fairness at this depth: the first CLIENTS claims from an empty queue of rounds take one row per client
db.$client.prepare("update submissions set state = 'queued'").run()
const firstRound = new Set(Array.from({ length: CLIENTS }, () => claimNext(db, new Date())!.clientId)).size

const result = {
  queued: accept.length,
  clients: CLIENTS,
  acceptUs: stats(accept),
  claimUs: stats(claim),
  hostClaimUs: stats(hosts),
  distinctClientsInFirstRound: firstRound,
}
db.$client.close()
rmSync(dir, { recursive: true, force: true })
if (values.json) console.log(JSON.stringify(result))
else {
  console.log(`${result.queued} queued from ${CLIENTS} clients (each client's rows accepted in one burst)`)
  console.log(`accept (cap, round, quota, insert): median ${result.acceptUs.median.toFixed(0)} µs, p99 ${result.acceptUs.p99.toFixed(0)} µs`)
  console.log(`claim (fair order):                 median ${result.claimUs.median.toFixed(0)} µs, p99 ${result.claimUs.p99.toFixed(0)} µs`)
  console.log(`claim limited to PYTHON3 (hosts):   median ${result.hostClaimUs.median.toFixed(0)} µs, p99 ${result.hostClaimUs.p99.toFixed(0)} µs`)
  console.log(`the first ${CLIENTS} claims took rows of ${firstRound} different clients`)
}
