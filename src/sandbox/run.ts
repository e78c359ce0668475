// runStep(): one jailed step through the slot's supervisor. Writes stdin to a file, lets nsjail run
// the program with stdout/stderr going straight to files (capped by RLIMIT_FSIZE), reads them back.
import { chmodSync, closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { detectCgroups } from './cgroups.ts'
import { JAIL_UID, nsjailArgs } from './nsjail-args.ts'
import { isMountPoint, JAIL_FS_INIT, rootMountPoint } from './root-image.ts'
import { toRunResult } from './outcome.ts'
import { claimSlot, deadSlots, isDeadSlot, removeSlotCgroups, removeSlotDir } from './leftovers.ts'
import { baseJailConfig, preparedJailArgs, preparedJailConfig, preparedRunFields, seccompPolicy } from './prepared-jail.ts'
import { Supervisor, type BoxUsage, type JailUids, type PreparedJailState, type StepIo, type SupervisorReply } from './supervisor.ts'
import type { RunResult, Step } from './types.ts'

export interface SandboxPaths {
  nsjail: string
  supervisor: string
  /** Static init run as PID 1 of each jail (sandbox/jail-init.c). */
  jailInit: string
  /** Scratch root; this slot uses <runs>/<slot>/. Never visible inside a jail but for /work. */
  runs: string
  /** The base policy, when not the checkout's sandbox/jail.cfg (the benchmark's baseline only). */
  jailConfig?: string
  /**
   * Where nsjail binds the init from: the supervisor's copy on the jails' own tmpfs (JAIL_FS_INIT),
   * unless the benchmark's baseline runs an older init (and supervisor) of its own.
   */
  initBindSource?: string
  /**
   * false: the supervisor predates box requests (the benchmark's baseline): dead slots are left to
   * others and closing unmounts no box (it would wait for a reply that never comes).
   */
  boxRequests?: boolean
  /** The host uids the slots claim theirs from (default DEFAULT_JAIL_UIDS). */
  jailUids?: JailUids
  /**
   * Run steps in prepared jails (sandbox/prepared-jails.c: one per root, built once, each run a clone
   * inside it) rather than one nsjail start per step. Default true; false for a supervisor from before
   * them (boxRequests false) and for the benchmark's comparison.
   */
  prepared?: boolean
  /** Sees each step's reply from the supervisor (the benchmark's breakdown of where time goes). */
  observe?: (reply: SupervisorReply) => void
}

/**
 * Each slot's jails run as a host uid of their own, claimed by its supervisor from this range, so the
 * kernel's per-user quotas are never shared between two jobs. Above the ids distributions hand out
 * to users, subordinate ids and containers' ranges (systemd's end at 1878982656), below 2^31.
 */
export const DEFAULT_JAIL_UIDS: JailUids = { base: 2_000_000_000, count: 4096 }

export interface Sandbox {
  readonly slot: string
  readonly slotDir: string
  /** The job's work directory, `<slotDir>/box`: a tmpfs of its own while a job runs (box()). */
  readonly boxDir: string
  /** The host uid (and gid) of this slot's jails and of what is in its box (known once the supervisor is up). */
  jailUid(): Promise<number>
  /**
   * wire: the step's stdin and stdout are pipes to a step another slot runs at the same time (an
   * interactive problem's validator and submission): this slot 'serve's them at the other's wirePath,
   * or 'join's them there (sandbox/wire.c). Its stdin is then unused and its stdout read back empty.
   */
  runStep(step: Step, opts?: { memoryHeadroomKb?: number; wire?: { role: 'serve' | 'join'; path: string } }): Promise<RunResult>
  /** Where this slot serves a wired step's pipes (a unix socket in its root-only io folder). */
  readonly wirePath: string
  /**
   * Bounds the work directory: 'mount' a fresh tmpfs of bytes/inodes (whatever was there is gone),
   * 'grow' it by bytes/inodes over what it holds (the next step may write that much more), 'umount' it.
   * sent: called once the request is on its way to the supervisor (the promise settles on its reply).
   */
  box(op: 'mount' | 'grow' | 'umount', bytes?: number, inodes?: number, sent?: () => void): Promise<BoxUsage>
  /** The host path a step's root is: root `name`'s image, mounted by the supervisor if it is not yet. */
  root(name: string, image: string): Promise<string>
  /** Starts building the prepared jails of these roots (host paths) now, off the first run's path. */
  prepare(roots: string[]): Promise<void>
  /** The slot's prepared jails (none when steps run through one nsjail each). */
  pool(): Promise<PreparedJailState[]>
  /** Stops the supervisor and removes the slot's folder: a closed slot leaves nothing behind. */
  close(): Promise<void>
}

/** A work directory with no byte or no inode left: the step wrote all it may (verdict as a full output file). */
function isFull(dir: string): boolean {
  try {
    const fs = statfsSync(dir)
    return fs.bfree === 0 || fs.ffree === 0
  } catch {
    return false
  }
}

/**
 * nsjail execs argv[0] as a path, without a PATH search: do the search here, in the root's view.
 * lstat, not stat: a link such as /usr/bin/java -> /etc/alternatives/java points into the root,
 * and following it on the host would look in the host's /etc.
 */
export function resolveInRoot(root: string, command: string, path = ''): string {
  if (command.includes('/')) return command
  for (const dir of path.split(':').filter((d) => d.startsWith('/'))) {
    try {
      lstatSync(join(root, dir, command))
      return `${dir}/${command}`
    } catch {
      // not in this directory
    }
  }
  return command
}

const sizeOf = (path: string) => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/** Reads at most `cap` bytes of a file, never the rest (a compiler's message can be tens of MB). */
export function readHead(path: string, cap: number, encoding: 'utf8' | 'latin1' = 'utf8'): { text: string; cut: boolean } {
  let fd: number | undefined
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
    // sized by what the file holds, not by the cap: a 1 MiB buffer per read for a few bytes of output
    // made V8 run a full collection every few dozen runs (external memory), a third of Node's time
    const buf = Buffer.allocUnsafe(Math.min(fstatSync(fd).size, cap) + 1)
    let n = 0
    for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, n)
    return { text: buf.subarray(0, Math.min(n, cap)).toString(encoding), cut: n > cap }
  } catch {
    return { text: '', cut: false }
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

export function openSandbox(paths: SandboxPaths, slot: string): Sandbox {
  const cg = detectCgroups()
  if (!cg.version) throw new Error(`sandbox: ${cg.detail}`)
  const slotDir = join(paths.runs, slot)
  const io = join(slotDir, 'io')
  // the slot dir must be traversable by the jail's uid (its box is bind-mounted from in here);
  // io/ holds stdin, stdout, stderr and the log, and only we may enter it
  for (const dir of [paths.runs, slotDir]) {
    mkdirSync(dir, { recursive: true })
    chmodSync(dir, 0o711)
  }
  mkdirSync(io, { recursive: true, mode: 0o700 })
  claimSlot(slotDir) // before the supervisor makes the slot's cgroups
  const supervisor = Supervisor.start(paths.supervisor, slot, undefined, paths.jailInit, paths.jailUids ?? DEFAULT_JAIL_UIDS)
  // what killed processes left (their slots' mounted boxes, folders, cgroups) is cleaned before this
  // slot's first step: the supervisor's requests run in order. Each step checks again that the slot
  // is still dead: another process may have claimed the same name since (names include the pid, so
  // only a reused pid or a fixed name could)
  for (const dead of paths.boxRequests === false ? [] : deadSlots(paths.runs)) {
    const stillDead = () => (isDeadSlot(paths.runs, dead) ? Promise.resolve() : Promise.reject(new Error('claimed')))
    void stillDead()
      .then(() => supervisor.box('umount', join(paths.runs, dead, 'box')).catch(() => undefined))
      .then(stillDead)
      .then(() => removeSlotCgroups(dead))
      .then(stillDead)
      .then(() => removeSlotDir(paths.runs, dead))
      .catch(() => undefined) // best effort: the next start tries again
  }
  const file = (name: string) => join(io, name)
  const boxDir = join(slotDir, 'box')
  mkdirSync(boxDir, { recursive: true, mode: 0o755 })
  const usePrepared = paths.prepared !== false && paths.boxRequests !== false
  // roots whose prepared jail the supervisor has been told how to build (it rebuilds it itself)
  const prepared = new Map<string, Promise<void>>()
  const ensurePrepared = (root: string) => {
    let done = prepared.get(root)
    if (!done) {
      done = (async () => {
        const started = await supervisor.started
        const text = baseJailConfig(paths.jailConfig)
        const configFile = file('prepared-jail.cfg')
        writeFileSync(configFile, preparedJailConfig(text), { mode: 0o600 })
        const logFile = file(`prepared-${basename(root)}.log`)
        const argv = preparedJailArgs(root, { uid: started.uid ?? JAIL_UID, configFile, logFile, jailInit: paths.initBindSource ?? JAIL_FS_INIT })
        await supervisor.prepare(root, paths.nsjail, argv, seccompPolicy(text), logFile)
      })()
      done.catch(() => prepared.delete(root)) // told again by the next step
      prepared.set(root, done)
    }
    return done
  }

  /** One step through one nsjail start (steps in prepared jails skip all of this). */
  async function runThroughNsjail(step: Step, argv: string[], io: StepIo, headroom: number): Promise<[SupervisorReply, string]> {
    writeFileSync(file('nsjail.log'), '') // nsjail appends
    // the supervisor's child makes these anew, but one that fails before opening them (exit 120, 121:
    // the network namespace, the cgroup) would leave the last step's, maybe another client's, to be read
    // back as this step's output and its init's report
    for (const name of ['stdout', 'stderr', 'status']) rmSync(file(name), { force: true })
    const started = await supervisor.started
    // a supervisor that names a uid also makes each run's memory group (both came together)
    const runGroup = started.uid !== undefined
    const layout = {
      slot,
      cgroup: started.cgroup,
      uid: started.uid ?? JAIL_UID,
      runGroup,
      swapAccounting: cg.swapAccounting,
      logFile: file('nsjail.log'),
      jailInit: paths.initBindSource ?? JAIL_FS_INIT,
      jailConfig: paths.jailConfig,
    }
    const reply = await supervisor.run({
      ...io,
      exec: paths.nsjail,
      argv: nsjailArgs({ ...step, argv }, layout, headroom, { wired: io.wire !== undefined }),
      ...(runGroup && { memBytes: (step.limits.memoryKb + headroom) * 1024 }),
    })
    return [reply, readHead(layout.logFile, 1 << 20).text]
  }

  return {
    slot,
    slotDir,
    boxDir,
    wirePath: file('wire'),
    jailUid: () => supervisor.started.then((s) => s.uid ?? JAIL_UID),
    async runStep(step, opts = {}) {
      const headroom = opts.memoryHeadroomKb ?? 0
      // a new file, not a truncated one (ext4 flushes a file truncated to 0 when it is closed)
      rmSync(file('stdin'), { force: true })
      writeFileSync(file('stdin'), step.stdin ?? '', { flag: 'wx' })
      // a wired step writes no stdout file: an earlier step's must not be read back as its own
      if (opts.wire) rmSync(file('stdout'), { force: true })
      const argv = [resolveInRoot(step.root, step.argv[0], step.env.PATH), ...step.argv.slice(1)]
      const io: StepIo = {
        stdin: file('stdin'),
        stdout: file('stdout'),
        stderr: file('stderr'),
        status: file('status'),
        cpuMs: step.limits.cpuTimeSec * 1000,
        wallMs: step.limits.wallTimeSec * 1000,
        fsizeBytes: step.limits.fileSizeBytes,
        ...(opts.wire && { wire: opts.wire }),
      }
      let reply: SupervisorReply
      let log = ''
      if (usePrepared) {
        await ensurePrepared(step.root)
        reply = await supervisor.runPrepared({ ...io, fields: preparedRunFields({ ...step, argv }, headroom) })
      } else {
        ;[reply, log] = await runThroughNsjail(step, argv, io, headroom)
      }
      paths.observe?.(reply)
      const cap = step.limits.fileSizeBytes
      // what is read back is capped apart from what may be written: a compile step may write large
      // binaries, but its messages are read back only up to readBackBytes
      const readBack = Math.min(cap, step.readBackBytes ?? cap)
      const [stdout, stderr] = [readHead(file('stdout'), readBack, step.outputEncoding), readHead(file('stderr'), readBack, step.outputEncoding)]
      const out = { stdout: stdout.text, stderr: stderr.text, ...((stdout.cut || stderr.cut) && { textCut: true }) }
      // runtimes that ignore SIGXFSZ (the JVM, CPython, node) see EFBIG instead: a full file is the proof
      const capped = [file('stdout'), file('stderr')].some((f) => sizeOf(f) >= cap) || isFull(step.workDir)
      const evidence = { log, status: readHead(file('status'), 256).text, outputCapped: capped }
      return toRunResult(reply, evidence, step.limits, out, headroom)
    },
    box: (op, bytes = 0, inodes = 0, sent) => supervisor.box(op, boxDir, bytes, inodes, sent),
    async prepare(roots) {
      if (usePrepared) await Promise.all(roots.map(ensurePrepared))
    },
    pool: () => (usePrepared ? supervisor.pool() : Promise.resolve([])),
    async root(name, image) {
      const mountPoint = rootMountPoint(name, image)
      // checked every job (two stat calls): re-provisioning unmounts a replaced image
      if (isMountPoint(mountPoint)) return mountPoint
      if (!existsSync(image)) throw new Error(`the image of toolchain root '${name}' (${image}) is missing: run scripts/setup.sh`)
      await supervisor.mountRoot(mountPoint, image)
      return mountPoint
    },
    async close() {
      if (paths.boxRequests !== false) await supervisor.box('umount', boxDir).catch(() => undefined)
      await supervisor.stop()
      rmSync(slotDir, { recursive: true, force: true })
    },
  }
}
