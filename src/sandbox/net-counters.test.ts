// Network figures are a run's own: one run makes thousands of failed sends and connects and leaves
// sockets behind (bound, listening, in flight), and the next run in the same slot reads every network
// figure it can reach (every file under /proc/net and /proc/sys/net, the interfaces) and finds them
// as a fresh network namespace shows them. Through the worker with prepared jails and without, a
// graded job's tests, and the root jail daemon. With a network namespace per slot (as before), the
// reader saw the polluter's OutNoRoutes, sockets and abstract names. A prepared jail makes a new
// namespace only after a run that made a socket (sandbox/jail-prepared.c): the last tests try to
// leave something with what that shortcut could miss (only UNIX sockets, held by a process that
// outlives the program or in flight; writes under /proc/sys/net and /proc/net without any socket;
// sockets the policy refuses) and check that a run without a socket keeps the namespace as it was.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig, parseConfig } from '../config.ts'
import { verdictOf } from '../grading/verdict.ts'
import { startJailDaemon } from '../jobs/jail-daemon.ts'
import { createJailPool } from '../jobs/jail-pool.ts'
import { createPool, workerSettings } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { createJobRunner } from '../jobs/worker.ts'
import { silentLog } from '../log.ts'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-net-counters-test' })
const settings = workerSettings(config)
settings.limits.wallExtraSec = 0.5
const SENDS = 4321

// One program, two roles chosen by its input. "pollute" moves every kind of per-namespace figure it
// can: failed IPv4/IPv6 sends (OutNoRoutes), failed connects, sockets open and bound, an abstract
// name listening, all gone when it exits (the check before this looked only for sockets left alive,
// in flight: src/sandbox/reuse.test.ts). "read" prints a digest of every network file it can read.
const PROGRAM = String.raw`import hashlib, json, os, re, socket, sys, time
role = sys.stdin.read().strip()
if role == 'pollute':
    failed = 0
    for family, address in [(socket.AF_INET, ('10.1.2.3', 9)), (socket.AF_INET6, ('2001:db8::1', 9, 0, 0))]:
        s = socket.socket(family, socket.SOCK_DGRAM)
        for i in range(${SENDS}):
            try: s.sendto(b'x', address)
            except OSError: failed += 1
    for i in range(200):
        t = socket.socket()
        try: t.connect(('127.0.0.1', 9))
        except OSError: failed += 1
        t.close()
    kept = [socket.socket(socket.AF_INET, k) for k in (socket.SOCK_STREAM, socket.SOCK_DGRAM) for _ in range(20)]
    u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); u.bind('\0arbiter-net-left'); u.listen(1)
    snmp = open('/proc/net/snmp').read().split('\n')
    names, values = snmp[0].split(), snmp[1].split()  # the Ip: lines
    print('failed', failed, 'OutNoRoutes', values[names.index('OutNoRoutes')])
    sys.stdout.flush()
    os._exit(0)
def unix_sockets():
    return len(open('/proc/net/unix').read().strip().split('\n')) - 1
if role == 'unix':
    # UNIX sockets only: an abstract name listening, kept alive in flight (its descriptor queued in
    # a pair that holds itself), and a detached process holding more, alive when the program exits
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind('\0arbiter-net-left'); s.listen(1)
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); d.bind('\0arbiter-net-left-dgram')
    a, b = socket.socketpair()
    socket.send_fds(a, [b'x'], [s.fileno(), d.fileno(), a.fileno(), b.fileno()])
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            held = [socket.socketpair() for _ in range(10)]
            h = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); h.bind('\0arbiter-net-held'); h.listen(1)
            os.write(w, b'x')
            time.sleep(60)
        os._exit(0)
    os.read(r, 1)
    print(os.readlink('/proc/self/ns/net'), 'unix sockets', unix_sockets())
    sys.stdout.flush()
    os._exit(0)
if role == 'quiet':
    # no socket at all: writes every file under /proc/sys/net and /proc/net it can open for writing
    # (its own value back, or 1), asks for the sockets the policy refuses, and reads the namespace
    written = tried = 0
    for top in ['/proc/sys/net/', '/proc/net/']:
        for d, dirs, files in os.walk(top):
            for f in files:
                p = os.path.join(d, f)
                tried += 1
                try:
                    old = open(p).read()
                except OSError:
                    old = '1'
                try:
                    with open(p, 'w') as out: out.write(old if old.strip() else '1')
                    written += 1
                except OSError:
                    pass
    refused = 0
    for family, kind in [(socket.AF_NETLINK, socket.SOCK_RAW), (socket.AF_PACKET, socket.SOCK_RAW), (socket.AF_INET, socket.SOCK_RAW), (socket.AF_INET6, socket.SOCK_RAW)]:
        try: socket.socket(family, kind)
        except OSError: refused += 1
    print(json.dumps({'tried': tried > 100, 'written': written, 'refused': refused, 'ns': os.readlink('/proc/self/ns/net')}))
    sys.exit(0)
# host-wide figures, the same in every namespace (per-CPU packet counts, the route cache's entries;
# TCP's orphans and allocated sockets, the protocols' buffer memory, in normal() below): they move
# with the host's own traffic, and a run moves none of them, its namespace has no interface up
HOST_WIDE = {'/proc/net/softnet_stat', '/proc/net/stat/rt_cache'}
def normal(path, text):
    if path == '/proc/net/netlink':  # the kernel's own sockets: drop their addresses and inode numbers
        return '\n'.join(' '.join(l.split()[1:-1]) for l in text.split('\n'))
    if path in ('/proc/net/sockstat', '/proc/net/sockstat6'):  # TCP's orphans, allocated sockets, buffer pages
        return re.sub(r' (orphan|alloc|mem) \d+', '', text)
    if path == '/proc/net/protocols':  # each protocol's buffer memory and memory pressure
        return '\n'.join(' '.join(f for i, f in enumerate(l.split()) if i not in (3, 4)) for l in text.split('\n'))
    return text
seen = {'ns': os.readlink('/proc/self/ns/net')}  # which namespace: not a figure, left out of the comparison
for top in ['/proc/net/', '/proc/sys/net/']:
    for d, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            if p in HOST_WIDE: continue
            try: text = open(p).read()
            except OSError as e: text = 'error %d' % e.errno
            seen[p] = hashlib.sha1(normal(p, text).encode()).hexdigest()[:12]
try: seen['interfaces'] = str(socket.if_nameindex())
except OSError as e: seen['interfaces'] = 'error %d' % e.errno  # netlink: refused by the policy
import fcntl, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
seen['lo flags'] = str(struct.unpack('H', fcntl.ioctl(s, 0x8913, struct.pack('16sH14s', b'lo', 0, b''))[16:18])[0])
seen['snmp'] = open('/proc/net/snmp').read()
try: socket.socket(socket.AF_UNIX).connect('\0arbiter-net-left'); seen['abstract'] = 'connected'
except OSError as e: seen['abstract'] = 'refused %d' % e.errno
print(json.dumps(seen, sort_keys=True))
`

// 30 s of CPU: reading (and, without a socket, writing back) every network file took over 10 s in the
// cgroup v2 check's emulated VM on a loaded host (a few hundred ms here); time is not what is under test
const job = (input: string, opts: Partial<Job> = {}): Job => ({ language: 'PYTHON3', source: PROGRAM, input, timeLimitSec: 30, memoryLimitKb: 262144, ...opts })
type Run = (job: Job) => Promise<import('../jobs/types.ts').JobResult>

async function ran(run: Run, input: string) {
  const j = job(input)
  const v = verdictOf(await run(j), j)
  expect(v.verdict, JSON.stringify({ ...v, stdout: v.stdout.slice(0, 300), stderr: v.stderr.slice(0, 800) })).toBe('AC')
  return v.stdout
}

/** What the reader sees as the first run of a slot of its own: a namespace nothing else entered. */
let fresh: Record<string, string> | undefined
async function freshView(): Promise<Record<string, string>> {
  if (fresh) return fresh
  const runner = createJobRunner(settings, `net-fresh-${process.pid}`)
  try {
    fresh = JSON.parse(await ran(runner.run, 'read')) as Record<string, string>
  } finally {
    await runner.close()
  }
  return fresh
}

/**
 * The polluter's own view proves it moved the figures the reader reads: every IPv4 send and connect
 * found no route (IPv6's count in snmp6), and from a fresh namespace's 0 (a shared one would add up).
 */
function polluted(out: string) {
  expect(out.trim()).toBe(`failed ${2 * SENDS + 200} OutNoRoutes ${SENDS + 200}`)
}

async function expectFresh(readerOut: string) {
  const { ns: _ns, ...seen } = JSON.parse(readerOut) as Record<string, string>
  const { ns: _wantNs, ...want } = await freshView()
  // every figure as in a fresh namespace; the files named, to say which one differs
  expect(seen.snmp).toBe(want.snmp)
  expect(seen.abstract).toBe('refused 111')
  expect(Object.keys(seen).length).toBeGreaterThan(50)
  expect(seen).toEqual(want)
}

describe('a run reads no network figure an earlier run in its slot moved', () => {
  const runners: { close(): Promise<void> }[] = []
  afterAll(async () => {
    for (const r of runners) await r.close()
  })

  it('through the worker, with prepared jails (the same jail serves both runs)', async () => {
    const runner = createJobRunner(settings, `net-prepared-${process.pid}`)
    runners.push(runner)
    polluted(await ran(runner.run, 'pollute'))
    const jail = (await runner.pool()).find((j) => j.root.endsWith('/trixie'))!
    const reader = await ran(runner.run, 'read')
    const after = (await runner.pool()).find((j) => j.root.endsWith('/trixie'))!
    // one prepared jail served both: its reuse is what is under test
    expect(after.builds).toBe(jail.builds)
    expect(after.runs).toBe(jail.runs + 1)
    await expectFresh(reader)
  })

  it('through the worker, with prepared jails off (one nsjail per run)', async () => {
    const runner = createJobRunner({ ...settings, sandbox: { ...settings.sandbox, prepared: false } }, `net-plain-${process.pid}`)
    runners.push(runner)
    polluted(await ran(runner.run, 'pollute'))
    await expectFresh(await ran(runner.run, 'read'))
  })

  it("between the tests of one graded job", async () => {
    for (const prepared of [true, false]) {
      const runner = createJobRunner({ ...settings, sandbox: { ...settings.sandbox, prepared } }, `net-graded-${prepared}-${process.pid}`)
      runners.push(runner)
      const result = await runner.run(job('', { tests: [{ input: 'pollute', expectedOutput: '' }, { input: 'read', expectedOutput: '' }] }))
      expect(result.tests?.map((t) => t.status), JSON.stringify(result.tests).slice(0, 2000)).toEqual(['WA', 'WA'])
      polluted(result.tests![0].stdout)
      await expectFresh(result.tests![1].stdout)
    }
  })

  it('through the root jail daemon (one slot)', async () => {
    const base = mkdtempSync(join(tmpdir(), 'arbiter-net-daemon-'))
    const daemonConfig = parseConfig(
      { paths: config.paths, pool: { size: 1, jail_socket: join(base, 'run', 'jail.sock'), jail_group: '0' } },
      {},
      join(base, 'data')
    )
    const daemon = await startJailDaemon(daemonConfig, createPool(daemonConfig), silentLog())
    try {
      const pool = createJailPool(daemonConfig)
      const run: Run = (j) => pool.run(j)
      polluted(await ran(run, 'pollute'))
      await expectFresh(await ran(run, 'read'))
    } finally {
      await daemon.close()
      rmSync(base, { recursive: true, force: true })
    }
  })
  it('with prepared jails, a run that made a socket of any kind (UNIX only, kept past the program) leaves the next run nothing', async () => {
    const runner = createJobRunner(settings, `net-unix-${process.pid}`)
    runners.push(runner)
    const out = await ran(runner.run, 'unix')
    // the polluter's own namespace holds its UNIX sockets: the listener, the datagram one, the pair, the detached process's
    expect(Number(out.trim().split(' ').at(-1))).toBeGreaterThanOrEqual(24)
    const reader = await ran(runner.run, 'read')
    await expectFresh(reader)
    // the kernel's collector frees what was in flight soon after the run, so the figures alone could
    // pass by a race: the reader must be in a new namespace, as after any socket
    expect((JSON.parse(reader) as Record<string, string>).ns).not.toBe(out.trim().split(' ')[0])
    // the same jail served both
    expect((await runner.pool()).find((j) => j.root.endsWith('/trixie'))!.builds).toBe(1)
  })

  it('with prepared jails, a run without a socket changes nothing the next run reads (and keeps its namespace for it)', async () => {
    const runner = createJobRunner(settings, `net-quiet-${process.pid}`)
    runners.push(runner)
    const quiet = async () => JSON.parse(await ran(runner.run, 'quiet')) as { tried: boolean; written: number; refused: number; ns: string }
    const first = await quiet()
    // every write refused (/proc is read-only to a run, no capability), every socket the policy refuses refused
    expect({ ...first, ns: undefined }).toEqual({ tried: true, written: 0, refused: 4, ns: undefined })
    const second = await quiet()
    // no socket, so no new namespace: the saving this shortcut is for (a new one costs ~1.4 ms)
    expect(second.ns).toBe(first.ns)
    const reader = JSON.parse(await ran(runner.run, 'read')) as Record<string, string>
    expect(reader.ns).toBe(first.ns)
    await expectFresh(JSON.stringify(reader))
    // the reader made sockets: the run after it is in a new namespace
    expect((await quiet()).ns).not.toBe(first.ns)
    expect((await runner.pool()).find((j) => j.root.endsWith('/trixie'))!.builds).toBe(1)
  })
})
