// Client of the resident native supervisor (sandbox/supervisor.c): one per worker thread, one
// step at a time, requests and replies as lines over its stdin/stdout.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { CgroupVersion } from './cgroups.ts'

/** A step's files and the limits the supervisor itself enforces, however the step is run. */
export interface StepIo {
  stdin: string
  stdout: string
  stderr: string
  /** File the jail's init writes its one-line report to (fd 3 inside the jail). */
  status: string
  cpuMs: number
  wallMs: number
  fsizeBytes: number
  /**
   * Instead of the stdin and stdout files: pipes to a step another supervisor runs at the same time
   * (sandbox/wire.c). 'serve' makes the pipes and waits at path (a unix socket in a root-only folder)
   * for the 'join' side, which takes its ends from there.
   */
  wire?: { role: 'serve' | 'join'; path: string }
}

/** The request lines of a step's files and limits. */
const ioFields = (io: StepIo) => [
  ...(io.wire ? [`wire_${io.wire.role} ${io.wire.path}`] : [`stdin ${io.stdin}`, `stdout ${io.stdout}`]),
  `stderr ${io.stderr}`,
  `status ${io.status}`,
  `cpu_ms ${Math.ceil(io.cpuMs)}`,
  `wall_ms ${Math.ceil(io.wallMs)}`,
  `fsize ${io.fsizeBytes}`,
]

/** A step through one nsjail start (or, for the benchmark, a bare run). */
export interface SupervisorRequest extends StepIo {
  exec: string
  argv: string[]
  /**
   * The run's memory limit, enforced on a memory group of its own that the supervisor makes, reads
   * and removes (nsjail's group then sits under it with a looser backstop: nsjail-args.ts).
   */
  memBytes?: number
  /** Bare runs for the benchmark only: exec the program chrooted here, with no jail. */
  chroot?: string
}

/** A run in a prepared jail (sandbox/prepared-jails.c): its fields come from prepared-jail.ts. */
export interface PreparedRunRequest extends StepIo {
  /** preparedRunFields(): the jail, the program's argv and env, the box and the limits. */
  fields: string[]
}

/** One prepared jail of the slot, as the supervisor reports it. */
export interface PreparedJailState {
  /** The root it serves (host path). */
  root: string
  /** nsjail's pid while it runs, else 0. */
  pid: number
  ready: boolean
  /** Runs served by the jails of this root, and how many times one was built. */
  runs: number
  builds: number
  /** How long the last one took to come up, in microseconds. */
  buildUs: number
}

/** What a box holds and has left, from statfs on it. */
export interface BoxUsage {
  usedBytes: number
  usedInodes: number
  freeBytes: number
  freeInodes: number
}

export interface SupervisorReply {
  exit: number
  signal: number
  cpuUs: number
  wallUs: number
  memKb: number
  oom: boolean
  limit: 'none' | 'cpu' | 'wall'
  maxRssKb: number
  /** A prepared jail's run: microseconds from the request to the program's start, and from its end to the reply. */
  setupUs?: number
  finishUs?: number
  /** When the supervisor saw the run end (CLOCK_MONOTONIC µs, shared by the host's supervisors): orders two wired runs' ends. */
  endUs?: number
}

/** What the supervisor said when it came up. */
export interface SupervisorReady {
  cgroup: CgroupVersion
  /**
   * The host uid (and gid) the jail's 65534 is to be mapped to: the slot's own, from the range it was
   * started with, or 65534. Absent: a supervisor from before per-slot uids (the benchmark's baseline),
   * which knows nothing of run groups either.
   */
  uid?: number
}

/** The host uids the supervisors claim one each from (see claim_uid in sandbox/supervisor.c). */
export interface JailUids {
  base: number
  count: number
}

export class Supervisor {
  private pending = new Map<string, { resolve: (r: SupervisorReply) => void; reject: (e: Error) => void }>()
  private seq = 0
  private chain: Promise<unknown> = Promise.resolve()
  private exited: Error | null = null
  readonly started: Promise<SupervisorReady>
  readonly ready: Promise<CgroupVersion>

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    const lines = createInterface({ input: child.stdout })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)))
    this.started = new Promise((resolve, reject) => {
      lines.on('line', (line) => {
        if (line.startsWith('ready ')) {
          const uid = /\buid=(\d+)\b/.exec(line)?.[1]
          return resolve({ cgroup: line.includes('cgroup=v2') ? 'v2' : 'v1', ...(uid !== undefined && { uid: Number(uid) }) })
        }
        this.onReply(line)
      })
      child.on('exit', (code, signal) => {
        this.exited = new Error(`supervisor exited (${signal ?? code}): ${stderr.trim()}`)
        reject(this.exited)
        for (const p of this.pending.values()) p.reject(this.exited)
        this.pending.clear()
      })
    })
    this.ready = this.started.then((r) => r.cgroup)
  }

  /**
   * init: the jail's init binary, copied by the supervisor onto the jails' own tmpfs. uids: the range
   * the supervisor claims the slot's own host uid from (needs init; without it the jail is 65534).
   */
  static start(binary: string, slot: string, cgroup?: CgroupVersion, init?: string, uids?: JailUids): Supervisor {
    const args = [slot, cgroup ?? 'auto', ...(init ? [init] : []), ...(init && uids ? [`${uids.base}:${uids.count}`] : [])]
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] })
    const sup = new Supervisor(child)
    sup.ready.catch(() => {}) // surfaced to callers of run()
    sup.started.catch(() => {})
    return sup
  }

  /** Runs one step; steps are serialised (the slot's cgroups and netns serve one jail at a time). */
  run(req: SupervisorRequest): Promise<SupervisorReply> {
    const next = this.chain.then(() => this.send(req))
    this.chain = next.catch(() => {})
    return next
  }

  private async send(req: SupervisorRequest): Promise<SupervisorReply> {
    await this.ready
    if (this.exited) throw this.exited
    if (this.child.stdin.writableEnded) throw new Error('supervisor stopped')
    const id = String(++this.seq)
    const fields = [
      `run ${id}`,
      `exec ${req.exec}`,
      ...req.argv.map((a) => `arg ${a}`),
      ...ioFields(req),
      ...(req.memBytes ? [`mem_bytes ${req.memBytes}`] : []),
      ...(req.chroot ? [`chroot ${req.chroot}`] : []),
      'end',
    ]
    // the protocol is line based: a newline inside a value would split it into two fields
    if (fields.some((f) => f.includes('\n'))) throw new Error('supervisor request values may not contain newlines')
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.child.stdin.write(fields.join('\n') + '\n')
    })
  }

  /**
   * The job's work directory as a tmpfs of its own (supervisor.c box_request): `mount` a fresh one
   * capped at bytes/inodes, `grow` it by that much over what is in it, `umount` it.
   */
  box(op: 'mount' | 'grow' | 'umount', path: string, bytes = 0, inodes = 0, sent?: () => void): Promise<BoxUsage> {
    return this.request<BoxUsage>((id) => [`box${op} ${id}`, `path ${path}`, `bytes ${bytes}`, `inodes ${inodes}`], sent)
  }

  /** Runs one step in a prepared jail (prepare() it first), serialised as run() is. */
  runPrepared(req: PreparedRunRequest): Promise<SupervisorReply> {
    return this.request<SupervisorReply>((id) => [
      `run ${id}`,
      ...req.fields,
      ...ioFields(req),
    ])
  }

  /**
   * Builds (or rebuilds, with a new description) the slot's prepared jail of a root: nsjail's argv
   * for it and the seccomp policy its runs get. Returns once the build has started.
   */
  prepare(root: string, exec: string, argv: string[], policy: string[], logFile: string): Promise<void> {
    return this.request<void>((id) => [`prepare ${id}`, `path ${root}`, `exec ${exec}`, ...argv.map((a) => `arg ${a}`), ...policy.map((l) => `policy ${l}`), `log ${logFile}`])
  }

  /** The slot's prepared jails. */
  pool(): Promise<PreparedJailState[]> {
    return this.request<PreparedJailState[]>((id) => [`pool ${id}`])
  }

  /** Loop-mounts a root's squashfs image read-only at mountPoint, unless it is mounted already. */
  mountRoot(mountPoint: string, image: string): Promise<void> {
    return this.request<void>((id) => [`rootmount ${id}`, `path ${mountPoint}`, `image ${image}`])
  }

  /** sent: called once the request is written to the supervisor (before its reply). */
  private request<T>(fieldsFor: (id: string) => string[], sent?: () => void): Promise<T> {
    const next = this.chain.then(async () => {
      await this.ready
      if (this.exited) throw this.exited
      const id = String(++this.seq)
      // a slot closed meanwhile (a job's requests queued behind its close): nothing to send to
      if (this.child.stdin.writableEnded) throw new Error('supervisor stopped')
      const fields = [...fieldsFor(id), 'end']
      if (fields.some((f) => f.includes('\n'))) throw new Error('supervisor request values may not contain newlines')
      return new Promise<T>((resolve, reject) => {
        this.pending.set(id, { resolve: resolve as never, reject })
        this.child.stdin.write(fields.join('\n') + '\n')
        sent?.()
      })
    })
    this.chain = next.catch(() => {})
    return next
  }

  private onReply(line: string) {
    const [kind, id, ...rest] = line.split(' ')
    const waiter = this.pending.get(id)
    if (!waiter) return
    this.pending.delete(id)
    if (kind === 'error') return waiter.reject(new Error(`supervisor: ${rest.join(' ')}`))
    const f = Object.fromEntries(rest.map((kv) => kv.split('=') as [string, string]))
    if (kind === 'rooted' || kind === 'prepared') return waiter.resolve(undefined as never)
    if (kind === 'pool') {
      const jails = rest.map((entry): PreparedJailState => {
        const kv = Object.fromEntries(entry.split(',').map((pair) => pair.split('=') as [string, string]))
        return { root: kv.jail, pid: Number(kv.pid), ready: kv.ready === '1', runs: Number(kv.runs), builds: Number(kv.builds), buildUs: Number(kv.build_us) }
      })
      return waiter.resolve(jails as never)
    }
    if (kind === 'boxed') {
      const usage: BoxUsage = { usedBytes: Number(f.used_bytes), usedInodes: Number(f.used_inodes), freeBytes: Number(f.free_bytes), freeInodes: Number(f.free_inodes) }
      return waiter.resolve(usage as never)
    }
    waiter.resolve({
      exit: Number(f.exit),
      signal: Number(f.signal),
      cpuUs: Number(f.cpu_us),
      wallUs: Number(f.wall_us),
      memKb: Number(f.mem_kb),
      oom: f.oom === '1',
      limit: f.limit as SupervisorReply['limit'],
      maxRssKb: Number(f.maxrss_kb),
      ...(f.setup_us !== undefined && { setupUs: Number(f.setup_us), finishUs: Number(f.finish_us) }),
      ...(f.end_us !== undefined && { endUs: Number(f.end_us) }),
    })
  }

  async stop(): Promise<void> {
    if (this.exited) return
    const done = new Promise((r) => this.child.once('exit', r))
    this.child.stdin.end()
    await done
  }
}
