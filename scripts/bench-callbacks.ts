// Benchmark: what a v4 job's two callbacks (CODE_COMPILED, then REQUEST_COMPLETED) cost both ends, sent
// as the outbox sends them (postCallbackWithLead: written together on one keep-alive connection) against
// one after the other (postCallback twice, each waiting for its answer). The receiver is a node:http
// server in a process of its own (answers 200 with no body and parses the REQUEST_COMPLETED's JSON, as
// a client's receiver would); this process sends. Windows of the two ways alternate; each window's CPU
// a pair, this process's (the sender) and the receiver's, and its wall time a pair; medians over the
// windows, and pipelined ÷ one after the other. No server, no outbox rows: the exchanges alone.
// Usage: npx tsx scripts/bench-callbacks.ts [--pairs 2000] [--windows 6] [--concurrency 1,4] [--json]
import { fork } from 'node:child_process'
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { postCallback, postCallbackWithLead } from '../src/jobs/callback.ts'

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '2000' },
    windows: { type: 'string', default: '6' },
    concurrency: { type: 'string', default: '1,4' },
    json: { type: 'boolean', default: false },
  },
})
const PAIRS = Number(values.pairs)
const WINDOWS = Number(values.windows)
const LEVELS = values.concurrency.split(',').map(Number)
if (!(PAIRS > 0) || !(WINDOWS > 0) || LEVELS.some((c) => !(c > 0))) throw new Error('usage: --pairs N --windows N --concurrency 1,4')

const RECEIVER = `
const { createServer } = require('node:http')
const s = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    res.writeHead(200).end()
    if (req.headers['x-arbiter-event'] === 'REQUEST_COMPLETED') JSON.parse(body)
  })
})
s.keepAliveTimeout = 60000
s.listen(0, '127.0.0.1', () => process.send(s.address().port))
`
const dir = mkdtempSync(join(tmpdir(), 'bench-callbacks-'))
writeFileSync(join(dir, 'receiver.cjs'), RECEIVER)
const receiver = fork(join(dir, 'receiver.cjs'))
const port = await new Promise<number>((resolve) => receiver.once('message', (m) => resolve(m as number)))
const url = `http://127.0.0.1:${port}/cb`

// a v4 REQUEST_COMPLETED's size (a python3 hello's, ~1 KB) for both
const body = JSON.stringify({
  request_status: { code: 'REQUEST_COMPLETED', message: 'Your request has been completed successfully' },
  he_id: '6a1f3f9e-0000-4000-8000-000000000000',
  status_update_url: `http://127.0.0.1:${port}/v4/partner/code-evaluation/submissions/6a1f3f9e-0000-4000-8000-000000000000/`,
  context: '',
  result: { run_status: { memory_used: '7036', status: 'AC', time_used: '0.013', signal: 'OTHER', exit_code: '0', status_detail: 'NA', stderr: '', output: 'x'.repeat(400) }, compile_status: 'OK' },
})
const request = { url, body, contentType: 'application/json', timeoutMs: 10_000, headers: { 'x-arbiter-event': 'REQUEST_COMPLETED' } }
const lead = { body, headers: { 'x-arbiter-event': 'CODE_COMPILED' } }
const ways = {
  one_after_the_other: async () => {
    await postCallback({ ...request, ...lead })
    await postCallback(request)
  },
  pipelined: async () => {
    await postCallbackWithLead(request, lead)
  },
}
type Way = keyof typeof ways

/** A process's CPU time so far (ms), from /proc (10 ms ticks: windows are long enough for them). */
const cpuOf = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(f[11]) + Number(f[12])) * 10
}

const rows: Record<string, unknown>[] = []
try {
  for (const c of LEVELS) {
    const got: Record<Way, { sender: number[]; receiver: number[]; wall: number[] }> = {
      one_after_the_other: { sender: [], receiver: [], wall: [] },
      pipelined: { sender: [], receiver: [], wall: [] },
    }
    // a first window of each, not counted: connections opened, code warmed
    for (let w = -1; w < WINDOWS; w++)
      for (const way of Object.keys(ways) as Way[]) {
        const own = process.cpuUsage()
        const theirs = cpuOf(receiver.pid!)
        const started = performance.now()
        let left = PAIRS
        await Promise.all(
          Array.from({ length: c }, async () => {
            while (left-- > 0) await ways[way]()
          })
        )
        const wall = performance.now() - started
        const sender = process.cpuUsage(own)
        if (w < 0) continue
        got[way].sender.push((sender.user + sender.system) / 1000 / PAIRS)
        got[way].receiver.push((cpuOf(receiver.pid!) - theirs) / PAIRS)
        got[way].wall.push(wall / PAIRS)
      }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const r3 = (x: number) => Math.round(x * 1000) / 1000
    const both = (way: Way) => median(got[way].sender.map((s, i) => s + got[way].receiver[i]!))
    for (const way of Object.keys(ways) as Way[])
      rows.push({
        concurrency: c,
        way,
        cpu_both_ms: r3(both(way)),
        cpu_sender_ms: r3(median(got[way].sender)),
        cpu_receiver_ms: r3(median(got[way].receiver)),
        wall_ms: r3(median(got[way].wall)),
        ...(way === 'pipelined' && {
          cpu_vs_one_after_the_other: Math.round((both('pipelined') / both('one_after_the_other')) * 100) / 100,
          wall_vs_one_after_the_other: Math.round((median(got.pipelined.wall) / median(got.one_after_the_other.wall)) * 100) / 100,
        }),
      })
  }
} finally {
  receiver.kill()
  rmSync(dir, { recursive: true, force: true })
}
if (values.json) console.log(JSON.stringify(rows, null, 2))
else {
  console.log(`a v4 job's two callbacks, ${PAIRS} pairs a window, ${WINDOWS} windows of each way, alternating (medians; ms a pair)`)
  console.table(rows)
}
process.exit(0)
