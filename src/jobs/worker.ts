// The evaluation worker: one job = write the source, compile in the jail, run in the jail (a graded
// job: run each test in a fresh box and judge its output). Runs in a
// Piscina worker thread (default export) or in-process (createJobRunner, for the CLI and tests).
// Imports only the sandbox and the language manifest: no database, no HTTP.
import { createHash } from 'node:crypto'
import { chownSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { isMainThread, parentPort, threadId, workerData } from 'node:worker_threads'
import { BASE_ENV, compileCommandOf, compileOverridesByCode, expandArgv, isProvisioned, loadLanguages, resolveLanguage, type Language } from '../languages.ts'
import { openSandbox, type Sandbox, type SandboxPaths } from '../sandbox/run.ts'
import type { PreparedJailState } from '../sandbox/supervisor.ts'
import { rootImagePath } from '../sandbox/root-image.ts'
import type { Limits, RunResult } from '../sandbox/types.ts'
import { copyMeasured, copyTree, DEFAULT_TREE_BOUNDS, measureTree, TreeRefused, type TreeBounds, type TreeSize } from '../sandbox/copy-tree.ts'
import { readRegularFile } from '../sandbox/host-files.ts'
import { compileCacheKey, lookupCompiled, storeCompiled, type CompiledOutput } from './compile-cache.ts'
import { isOutputValidator, isProgramChecker, type BuiltinChecker, type CheckerSpec, type KattisDefaultChecker, type OutputValidatorChecker, type ProgramChecker } from '../grading/checkers.ts'
import { checkerOutcome, interactiveOutcome, judgeTest, runFailure, SKIPPED, validatorOutcome, type ValidatorFeedback } from '../grading/judge-test.ts'
import { BUILD_ARGV, BUILD_FILE, RUN_ARGV } from '../grading/build-run.ts'
import type { RunHooks } from './pool-types.ts'
import { COMPILED_REPORT_DELAY_MS, deferCompiled, sendProgress, type ThreadProgress } from './progress.ts'
import { MAX_REPEAT, type CompileOutcome, type Job, type JobResult, type JobSpec, type RunFigures, type TestOutcome } from './types.ts'
import { readStoredFile, writeJobFiles, writeNewFile } from './job-files.ts'


export interface WorkerSettings {
  sandbox: SandboxPaths
  toolchains: string
  /** A manifest directory other than toolchains/languages (tests). */
  manifestDir?: string
  limits: {
    wallExtraSec: number
    processes: number
    openFiles: number
    outputCapBytes: number
    /** The largest outputBytes a job may ask for (a protocol's own cap, over outputCapBytes); absent: outputCapBytes. */
    outputCeilingBytes?: number
    compileFileSizeBytes: number
    /** The work directory's caps (a tmpfs per job): what a run step, and what a compile step, may write there. */
    workDirBytes: number
    workDirInodes: number
    compileWorkDirBytes: number
    compileWorkDirInodes: number
    /** limits.compile_time_sec / compile_memory_kb / compile_processes: for a manifest that gives none. */
    compileTimeSec: number
    compileMemoryKb: number
    compileProcesses: number
  }
  /** Per-code compile limits from the config, over the manifest's. */
  compileOverrides: Record<string, { time_sec?: number; memory_kb?: number; processes?: number }>
  /** A checker program's run limits (grading.checker_*), and how long a built-in checker may judge one test (grading.judge_time_sec). */
  checker: { timeSec: number; memoryKb: number; judgeTimeSec?: number }
  /** Where compiled programs are kept for resubmissions (absent: no cache). */
  compileCache?: { dir: string; maxBytes: number }
}

/** A job's source or input as the bytes the jail gets (JobSpec.inputEncoding). */
const asBytes = (s: string, spec: JobSpec): string | Buffer => (spec.inputEncoding === 'latin1' ? Buffer.from(s, 'latin1') : s)

/** Room for a job's extra files in its box, above the step's own cap. */
const filesBytes = (spec: JobSpec) =>
  (spec.files ?? []).reduce((n, f) => n + Math.ceil((f.contentBase64.length * 3) / 4) + 4096, 0) + (spec.filesAt ?? []).reduce((n, f) => n + f.bytes + 4096, 0)
const filesCount = (spec: JobSpec) => (spec.files?.length ?? 0) + (spec.filesAt?.length ?? 0)

/** A step's stdin and stdout wired to a step of another slot (Sandbox.runStep). */
type Wire = { role: 'serve' | 'join'; path: string }
/** A box's caps: the bytes and inodes its tmpfs may hold. */
type BoxSize = { bytes: number; inodes: number }

const redirected = (r: RunResult): RunResult => ({ ...r, stdout: r.stdout + r.stderr, stderr: '' })
/** A Kattis validator with a test's own flags (a package's group flags), else as it is. */
function withFlags<C extends CheckerSpec>(checker: C, flags: string[] | undefined): C {
  return flags && typeof checker === 'object' && (checker.type === 'kattis' || checker.type === 'output_validator') ? { ...checker, flags } : checker
}
const figuresOf = (r: RunResult): RunFigures => ({ cpuSec: r.cpuSec, wallSec: r.wallSec, memoryKb: r.memoryKb })

export interface JobRunner {
  run(job: Job, hooks?: RunHooks): Promise<JobResult>
  /** Builds the prepared jail of every provisioned root now, before the first job needs one. */
  prepare(): Promise<void>
  /** The slot's prepared jails (empty until a job or prepare() opened the slot). */
  pool(): Promise<PreparedJailState[]>
  close(): Promise<void>
}

/** Compiler output worth showing: stderr then stdout, as a compiler user would read it. */
const compilerMessage = (r: RunResult) =>
  [r.stderr, r.stdout].filter((s) => s.trim()).join('\n').trim()

/**
 * A run that checked its source first (JobSpec.compileCheckMarker) and found it does not compile: its
 * stderr starts with the marker line, the rest is the compiler's message, as a compile step's would be
 * (UTF-8 text, whatever the run's outputEncoding).
 */
function failedCheck(r: RunResult, marker: string, spec: JobSpec): CompileOutcome | undefined {
  if ((r.status !== 'ok' && r.status !== 'exit') || !r.stderr.startsWith(`${marker}\n`)) return undefined
  const text = (s: string) => (spec.outputEncoding === 'latin1' ? Buffer.from(s, 'latin1').toString('utf8') : s)
  const step: RunResult = { ...r, stdout: text(r.stdout), stderr: text(r.stderr.slice(marker.length + 1)) }
  return { ok: false, message: compilerMessage(step), step }
}

/** How a cut compiler message ends: the reply says it was cut, in the text HackerEarth clients read. */
export const cutNotice = (capBytes: number) => `[… the compiler's message was cut at ${capBytes} bytes]`

function compileFailureMessage(r: RunResult, limits: Limits, capBytes: number): string {
  const full = compilerMessage(r)
  const head = Buffer.from(full).subarray(0, capBytes).toString('utf8')
  const text = r.textCut || head.length < full.length ? `${head}\n${cutNotice(capBytes)}` : full
  // every status named, so a new one must say what it means for a compile (undefined: the message alone)
  const why: Record<RunResult['status'], string | undefined> = {
    ok: undefined,
    exit: undefined,
    internal: undefined,
    time: `compilation exceeded its time limit (${limits.cpuTimeSec} s)`,
    wall: `compilation exceeded its time limit (${limits.wallTimeSec} s wall clock)`,
    memory: `compilation exceeded its memory limit (${limits.memoryKb} KB)`,
    output: 'compilation wrote more than its file size or work directory cap',
    signal: `compiler killed by ${r.signal}`,
  }
  return [text, why[r.status]].filter(Boolean).join('\n') || `compiler exited with code ${r.exitCode}`
}

/**
 * A compile served from the cache, as the clients see it: what the compile printed when it ran (a
 * compiler prints its warnings every time), its status (only a compile that exited 0 is kept), and
 * zero time and memory: no compile step ran for this job.
 */
const replayedCompile = (output: CompiledOutput): RunResult => ({ status: 'ok', exitCode: 0, signal: null, cpuSec: 0, wallSec: 0, memoryKb: 0, ...output })

/** versions.json of the toolchains, re-read when provisioning rewrites it: a new compiler is a new cache key. */
let versions: { mtimeMs: number; languages: Record<string, { version?: string }> } | undefined
function toolchainVersion(toolchains: string, code: string): string {
  const file = join(toolchains, 'versions.json')
  try {
    const mtimeMs = statSync(file).mtimeMs
    if (versions?.mtimeMs !== mtimeMs) versions = { mtimeMs, languages: JSON.parse(readFileSync(file, 'utf8')).languages ?? {} }
    return `${versions.languages[code]?.version ?? '?'}@${mtimeMs}`
  } catch {
    return 'unknown'
  }
}

export function createJobRunner(settings: WorkerSettings, slot: string): JobRunner {
  const languages = loadLanguages(settings.manifestDir)
  const overrides = compileOverridesByCode(languages, settings.compileOverrides)
  let sandbox: Sandbox | undefined
  const open = () => (sandbox ??= openSandbox(settings.sandbox, slot))
  // an interactive problem's validator runs beside the submission, in a slot of its own (its own
  // supervisor, cgroups, jail uid and box), opened by the first such test
  let peer: Sandbox | undefined
  const openPeer = () => (peer ??= openSandbox(settings.sandbox, `${slot}-v`))
  // the last job's box is replaced after its result went back, off the path of its reply, by a fresh
  // empty one of the size that job's first box had: the next job (and close) waits for it first, so no
  // job sees another's box, and a next job whose first box is of that size finds it mounted
  let cleaning: Promise<void> = Promise.resolve()
  /** The fresh box the last job left mounted (nothing has run in it since), by its size. */
  let ready: BoxSize | undefined
  /** This job's: the box left ready, until its first box takes it, and the size of that first box. */
  let left: BoxSize | undefined
  let firstSize: BoxSize | undefined

  function stepLimits(lang: Language, job: Job, phase: 'compile' | 'run'): Limits {
    const { limits } = settings
    if (phase === 'compile') {
      const o = overrides[lang.code] ?? {}
      // compile_overrides (config, per language) > the manifest > the config's limits.compile_* defaults
      // a job's own compile limits (a protocol's, clamped to the config's caps) > compile_overrides > the manifest > the defaults
      const timeSec = job.compileTimeSec ?? o.time_sec ?? lang.compileLimits.timeSec ?? limits.compileTimeSec
      return {
        cpuTimeSec: timeSec,
        wallTimeSec: timeSec * 2 + limits.wallExtraSec,
        memoryKb: job.compileMemoryKb ?? o.memory_kb ?? lang.compileLimits.memoryKb ?? limits.compileMemoryKb,
        processes: o.processes ?? lang.compileLimits.processes ?? limits.compileProcesses,
        openFiles: Math.max(limits.openFiles, 256),
        fileSizeBytes: limits.compileFileSizeBytes,
      }
    }
    // with extra CPU time the run is stopped only at the limit plus the extra, and judged over the limit
    const extra = job.cpuExtraSec ?? 0
    const cpuTimeSec = job.timeLimitSec + extra
    return {
      cpuTimeSec,
      wallTimeSec: job.wallTimeSec ?? cpuTimeSec * 2 + limits.wallExtraSec,
      memoryKb: job.memoryLimitKb,
      processes: job.processes ?? lang.runProcesses ?? limits.processes,
      openFiles: lang.runOpenFiles ?? limits.openFiles,
      fileSizeBytes: Math.min(job.outputBytes ?? limits.outputCapBytes, limits.outputCeilingBytes ?? limits.outputCapBytes),
      ...(job.addressSpaceKb !== undefined && { addressSpaceKb: job.addressSpaceKb }),
      ...(extra > 0 && { judgedCpuSec: job.timeLimitSec }),
      ...(job.stackKb !== undefined && { stackKb: job.stackKb }),
    }
  }

  /** The cache key of a compile: whose it is, the toolchain's provisioned version, the language, the command, the limits, the source. */
  function compiledKey(lang: Language, argv: string[], limits: Limits, source: string, spec: JobSpec, scope: string): string {
    // the extra files and the source's name are part of what was compiled
    // (and whether warnings fail it: a compile kept without that rule must not serve one with it)
    // a stored file counts by its name and content (its path is the submission's own)
    const at = spec.filesAt?.map((f) => ({ name: f.name, sha256: createHash('sha256').update(readStoredFile(f)).digest('hex') }))
    const extra =
      spec.files?.length || at?.length || spec.sourceFileName || spec.compileStderrFails
        ? `\0${JSON.stringify([spec.sourceFileName ?? null, spec.files ?? [], !!spec.compileStderrFails, ...(at?.length ? [at] : [])])}`
        : ''
    // the same characters are other bytes when they are bytes (inputEncoding): another program
    const bytes = spec.inputEncoding ? `\0${spec.inputEncoding}` : ''
    // the output cap too: the compile's messages kept with the program were read back up to it
    const kept = { ...limits, readBackBytes: settings.limits.outputCapBytes }
    return compileCacheKey({ scope, version: toolchainVersion(settings.toolchains, lang.code), language: lang.code, argv, limits: kept, source: source + extra + bytes })
  }

  /**
   * What a compile step may leave to be kept (copied out to the cache, or for the tests): no more than
   * its box could hold, no sparse files, no deep folders (copy-tree.ts).
   */
  const keptBounds = (): TreeBounds => ({ ...DEFAULT_TREE_BOUNDS, maxBytes: settings.limits.compileWorkDirBytes, maxInodes: settings.limits.compileWorkDirInodes })

  /** The jail failed on our side; a root that is not provisioned (checked only then: it costs file system calls) says why. */
  const internalFailure = (lang: Language, message = '') =>
    new Error(isProvisioned(settings.toolchains, lang) ? `sandbox: ${message}` : `lang '${lang.code}' is not provisioned on this server`)

  /** What compileInBox leaves: the outcome, whether the box already has a run's room, and what the box holds. */
  type Compiled = { compile: CompileOutcome; roomy: boolean; measured?: ReturnType<typeof measureTree> }

  /**
   * Mounts a fresh box (a tmpfs of its own, owned by the jail's uid: nothing a previous program left is
   * visible, and no step can write more than its caps) holding source compiled for lang: from the
   * compile cache when it has it, else by a compile step (kept in the cache when it succeeds).
   */
  async function compileInBox(sb: Sandbox, lang: Language, source: string, memoryLimitKb: number, root: string, scope: string, spec: JobSpec = {}): Promise<Compiled> {
    const { limits: caps } = settings
    const box = sb.boxDir
    const memory = { memory_kb: memoryLimitKb, memory_mb: Math.max(1, Math.floor(memoryLimitKb / 1024)) }
    const argv = compileCommandOf(lang, spec)
    const compileArgv = argv ? expandArgv(argv, memory) : undefined
    const compileLimits = stepLimits(lang, { language: lang.code, source, input: '', timeLimitSec: 1, memoryLimitKb, compileTimeSec: spec.compileTimeSec, compileMemoryKb: spec.compileMemoryKb }, 'compile')
    const sourceFile = spec.sourceFileName ?? lang.sourceFile
    const writeSources = () => {
      // a program sent as it runs (Judge0's Executable) is executable; every other source is data
      writeNewFile(box, sourceFile, asBytes(source, spec), lang.sourceExecutable ? 0o755 : 0o644)
      writeJobFiles(box, spec.files, spec.filesAt)
    }
    const cache = settings.compileCache
    const cacheKey = cache && compileArgv ? compiledKey(lang, compileArgv, compileLimits, source, spec, scope) : undefined
    const cached = cache && cacheKey ? lookupCompiled(cache.dir, cacheKey, caps.outputCapBytes) : undefined
    if (cached) {
      // the program (and its source) as a compile of this same source left them; room to run already
      await firstBox(sb, caps.workDirBytes + cached.size.bytes, caps.workDirInodes + cached.size.inodes)
      try {
        copyTree(cached.tree, box, keptBounds())
        return { compile: { ok: true, message: '', cached: true, step: replayedCompile(cached.output) }, roomy: true }
      } catch {
        // an entry that is not what was stored (a partial copy, a changed bound): compiled again below
      }
    }
    // a box just mounted holds nothing: the source is written exclusively all the same
    if (!compileArgv) {
      await firstBox(sb, caps.workDirBytes + filesBytes(spec), caps.workDirInodes + filesCount(spec))
      writeSources()
      return { compile: { ok: true, message: '' }, roomy: true }
    }
    await firstBox(sb, caps.compileWorkDirBytes + filesBytes(spec), caps.compileWorkDirInodes + filesCount(spec))
    writeSources()
    // a compiler may write large binaries (its own file size cap) but its messages are read back
    // only up to the output cap: a 221-byte template error can print 35 MB
    const readBackBytes = settings.limits.outputCapBytes
    const env = { ...BASE_ENV, ...lang.env }
    const step = await sb.runStep({ root, argv: compileArgv, env, workDir: box, limits: compileLimits, readBackBytes })
    if (step.status === 'internal') throw internalFailure(lang, step.message)
    if (step.status !== 'ok') return { compile: { ok: false, message: compileFailureMessage(step, compileLimits, readBackBytes), step }, roomy: false }
    // not kept in the cache either: a later compile of the same source fails the same way
    if (spec.compileStderrFails && step.stderr.trim()) return { compile: { ok: false, message: compilerMessage(step), step }, roomy: false }
    // what the step left is measured once, before anything copies it: a tree that may not be kept
    // (sparse, too deep, too large) fails the compile, whatever the job would have done with it
    let measured
    try {
      measured = measureTree(box, keptBounds())
    } catch (err) {
      if (!(err instanceof TreeRefused)) throw err
      return { compile: { ok: false, message: `the compile step left what cannot be kept: ${err.message}`, step }, roomy: false }
    }
    if (cache && cacheKey) storeCompiled(cache.dir, cacheKey, box, cache.maxBytes, measured, { stdout: step.stdout, stderr: step.stderr, ...(step.textCut && { textCut: true }) })
    return { compile: { ok: true, message: '', step }, roomy: false, measured }
  }

  /**
   * A job's first box (a compile's, or a program's that needs none): the one the last job left when it
   * is of this size, else a fresh one mounted now (a checker's compile later in the job mounts anew).
   */
  async function firstBox(sb: Sandbox, bytes: number, inodes: number): Promise<void> {
    const fresh = sb === sandbox ? left : undefined
    if (sb === sandbox) {
      left = undefined
      firstSize ??= { bytes, inodes }
    }
    if (fresh?.bytes === bytes && fresh.inodes === inodes) return
    await sb.box('mount', bytes, inodes)
  }

  /** One run of a compiled program in the box. */
  async function runInBox(sb: Sandbox, lang: Language, root: string, stdin: string | Buffer, limits: Limits, memoryLimitKb: number, args: string[] = [], spec: JobSpec = {}, wire?: Wire): Promise<RunResult> {
    const memory = { memory_kb: memoryLimitKb, memory_mb: Math.max(1, Math.floor(memoryLimitKb / 1024)) }
    const env = { ...BASE_ENV, ...lang.env }
    const argv = [...expandArgv(spec.runArgv ?? lang.run, memory), ...args]
    // outputKeptBytes: only the head is read back; what the run wrote past it is dropped
    const r = await sb.runStep({ root, argv, env, workDir: sb.boxDir, stdin, limits, ...(spec.outputKeptBytes && { readBackBytes: spec.outputKeptBytes }), ...(spec.outputEncoding && { outputEncoding: spec.outputEncoding }) }, { memoryHeadroomKb: lang.runMemoryHeadroomKb, ...(wire && { wire }) })
    if (r.status === 'internal') throw internalFailure(lang, r.message)
    // a managed heap sized to the limit fails inside the runtime, before the cgroup would
    const status = lang.memoryErrorPattern && (r.status === 'exit' || r.status === 'signal') && new RegExp(lang.memoryErrorPattern).test(r.stderr) ? 'memory' : r.status
    // the jail reads the two streams apart: joined after the run, stdout first
    return spec.redirectStderrToStdout ? redirected({ ...r, status }) : { ...r, status }
  }

  /**
   * The last step's stdout as the bytes it wrote (RunResult.stdout is them decoded as UTF-8, where
   * distinct invalid bytes become the same U+FFFD): the slot's own io folder, which no jail sees.
   */
  function stdoutBytes(sb: Sandbox, r: RunResult, spec: JobSpec): Uint8Array {
    // stderr joined after the run is in r.stdout only
    if (spec.redirectStderrToStdout) return Buffer.from(r.stdout, 'utf8')
    try {
      return readRegularFile(join(sb.slotDir, 'io', 'stdout'), settings.limits.outputCapBytes)
    } catch {
      return Buffer.from(r.stdout, 'utf8')
    }
  }

  async function run(job: Job, hooks: RunHooks = {}): Promise<JobResult> {
    await cleaning
    left = ready
    ready = firstSize = undefined
    const lang = resolveLanguage(languages, job.language)
    if (!lang) throw new Error(`unknown language ${job.language}`)
    const sb = open()
    const box = sb.boxDir
    const { limits: caps } = settings
    const kept = join(sb.slotDir, 'compiled')
    const keptChecker = join(sb.slotDir, 'checker')
    const scope = job.cacheScope ?? ''
    try {
      if (job.checkerOnly) {
        const spec = job.checker && (isProgramChecker(job.checker) || isOutputValidator(job.checker)) ? job.checker : undefined
        if (!spec) return { compile: { ok: false, message: 'no checker program to compile' } }
        const prepared = await prepareChecker(sb, spec, keptChecker, scope)
        return { compile: 'error' in prepared ? { ok: false, message: prepared.error } : { ok: true, message: '' } }
      }
      const root = await sb.root(lang.root, rootImagePath(settings.toolchains, lang.root))
      const { compile, roomy, measured } = await compileInBox(sb, lang, job.source, job.memoryLimitKb, root, scope, job)
      // a run that checks the source itself says whether it compiled only when it has run
      const checkedInRun = compile.ok && !job.compileOnly && !job.tests && job.compileCheckMarker !== undefined
      if (!checkedInRun) hooks.onCompiled?.(compile)
      if (!compile.ok || job.compileOnly) return { compile }
      const runLimits = (timeLimitSec: number) => stepLimits(lang, { ...job, timeLimitSec }, 'run')

      if (!job.tests) {
        const times = Math.min(job.repeat ?? 1, MAX_REPEAT)
        // repeated: what the compile step left is kept outside the box, and each later run has a fresh
        // box holding only that (as a graded job's tests), so no run sees what an earlier one wrote
        const size = times > 1 ? (measured ? copyMeasured(box, kept, measured) : copyTree(box, kept, keptBounds())) : undefined
        // the compiled program stays; the run step may write its own cap more
        if (!roomy) await sb.box('grow', caps.workDirBytes, caps.workDirInodes)
        const limits = runLimits(job.timeLimitSec)
        const stdin = asBytes(job.input, job)
        let run = await runInBox(sb, lang, root, stdin, limits, job.memoryLimitKb, [], job)
        if (checkedInRun) {
          const failed = failedCheck(run, job.compileCheckMarker!, job)
          hooks.onCompiled?.(failed ?? compile)
          if (failed) return { compile: failed }
        }
        if (!size) return { compile, run }
        const repeats = [figuresOf(run)]
        while (repeats.length < times && run.status === 'ok') {
          await sb.box('mount', caps.workDirBytes + size.bytes, caps.workDirInodes + size.inodes)
          copyTree(kept, box, keptBounds())
          run = await runInBox(sb, lang, root, stdin, limits, job.memoryLimitKb, [], job)
          repeats.push(figuresOf(run))
        }
        return { compile, run, repeats }
      }

      // graded: what the compile step left is kept outside the box, and each test runs in a fresh
      // box holding only that, so no test sees what an earlier one wrote
      const size = measured ? copyMeasured(box, kept, measured) : copyTree(box, kept, keptBounds())
      const checker = job.checker ?? 'lines'
      const program = isProgramChecker(checker) || isOutputValidator(checker) ? await prepareChecker(sb, checker, keptChecker, scope) : undefined
      const judgeTimeMs = (settings.checker.judgeTimeSec ?? 10) * 1000
      const tests: TestOutcome[] = []
      let failed = false
      for (const [index, test] of job.tests.entries()) {
        let outcome = SKIPPED
        const timeLimitSec = test.timeLimitSec ?? job.timeLimitSec
        const limits = { timeLimitSec, memoryLimitKb: job.memoryLimitKb }
        if (failed && job.stopOnFirstFailure) {
          // not run
        } else if (program && isOutputValidator(checker) && (checker.interactive || checker.passes)) {
          outcome = await runPasses(sb, lang, root, program, withFlags(checker, test.checkerFlags), test.input, test.expectedOutput, runLimits(timeLimitSec), limits, () => freshBox(sb, size, kept), job)
          if (outcome.status !== 'AC') failed = true
        } else {
          await freshBox(sb, size, kept)
          const r = await runInBox(sb, lang, root, test.input, runLimits(timeLimitSec), job.memoryLimitKb, [], job)
          const failure = runFailure(r, limits)
          if (failure) outcome = failure
          else if (!program) outcome = judgeTest(r, test.expectedOutput, withFlags(checker as BuiltinChecker | KattisDefaultChecker, test.checkerFlags), limits, { stdoutBytes: stdoutBytes(sb, r, job), timeMs: judgeTimeMs })
          else if (isOutputValidator(checker)) outcome = await runValidator(sb, program, withFlags(checker, test.checkerFlags), test.input, test.expectedOutput, r, stdoutBytes(sb, r, job), job.validatorScores)
          else outcome = await runChecker(sb, program, test.input, test.expectedOutput, r, stdoutBytes(sb, r, job))
          if (outcome.status !== 'AC') failed = true
        }
        tests.push(outcome)
        hooks.onTest?.(index, outcome)
      }
      return { compile, tests }
    } finally {
      // every byte and inode the job wrote is freed with its tmpfs, replaced while the result goes
      // back: the next job (and close) waits for it. The request is written before the result is
      // returned, since a pool thread sleeps between jobs (piscina's atomics) and would send it late
      const unmounting = replaceBoxes(sb, firstSize)
      cleaning = unmounting.done
      // the kept copies are root's own, bounded in depth when they were made (most jobs make none:
      // looked for first, as rmSync's force reads an absent path through a thrown ENOENT)
      for (const dir of [kept, keptChecker, join(sb.slotDir, 'feedback')]) if (lstatSync(dir, { throwIfNoEntry: false })) rmSync(dir, { recursive: true, force: true })
      await unmounting.sent
    }
  }

  /**
   * The job's box replaced by a fresh empty one of `size` (the next job's, most likely: a supervisor's
   * mount detaches the old one first), or unmounted without a size; its interactive validator's
   * unmounted. Sent once both requests are written, done once both are answered.
   */
  function replaceBoxes(sb: Sandbox, size: BoxSize | undefined): { sent: Promise<unknown>; done: Promise<void> } {
    const boxes = [sb, ...(peer ? [peer] : [])].map((s) => {
      let sent!: () => void
      const written = new Promise<void>((resolve) => (sent = resolve))
      const fresh = s === sb ? size : undefined
      const request = fresh ? s.box('mount', fresh.bytes, fresh.inodes, sent).then(() => (ready = fresh)) : s.box('umount', 0, 0, sent)
      // a request that fails before it is written (a supervisor gone) settles it too
      const answered = request.then(() => undefined, () => undefined).finally(sent)
      return { written, answered }
    })
    return { sent: Promise.all(boxes.map((b) => b.written)), done: Promise.all(boxes.map((b) => b.answered)).then(() => undefined) }
  }

  /** A fresh box holding only what the compile step left (kept outside it). */
  async function freshBox(sb: Sandbox, size: TreeSize, kept: string): Promise<void> {
    const { limits: caps } = settings
    await sb.box('mount', caps.workDirBytes + size.bytes, caps.workDirInodes + size.inodes)
    copyTree(kept, sb.boxDir, keptBounds())
  }

  /** runArgv: a build/run validator's run step (build-run.ts), else the language's. */
  type PreparedChecker = { lang: Language; root: string; dir: string; size: TreeSize; runArgv?: string[] } | { error: string }

  /** Compiles a checker program (or output validator) once per job (the compile cache keeps it across jobs) into dir. */
  async function prepareChecker(sb: Sandbox, spec: ProgramChecker | OutputValidatorChecker, dir: string, scope: string): Promise<PreparedChecker> {
    const lang = resolveLanguage(languages, spec.lang)
    if (!lang || !isProvisioned(settings.toolchains, lang)) return { error: `checker language ${spec.lang} is not provisioned here` }
    const root = await sb.root(lang.root, rootImagePath(settings.toolchains, lang.root))
    const { compile, measured } = await compileInBox(sb, lang, spec.source, settings.checker.memoryKb, root, scope, isOutputValidator(spec) ? validatorSpec(lang, spec) : {})
    if (!compile.ok) return { error: `checker does not compile: ${compile.message}` }
    const size = measured ? copyMeasured(sb.boxDir, dir, measured) : copyTree(sb.boxDir, dir, keptBounds())
    return { lang, root, dir, size, ...(isOutputValidator(spec) && spec.build && { runArgv: RUN_ARGV }) }
  }

  /** The files a checker reads, in its box beside what its compile step left. */
  const CHECKER_FILES = ['input', 'expected', 'output'] as const

  /** The checker, in a fresh box of its own with the files input, expected and output (argv: input output expected). */
  async function runChecker(sb: Sandbox, checker: PreparedChecker, input: string, expected: string, program: RunResult, output: Uint8Array): Promise<TestOutcome> {
    const failed = (why: string) => checkerOutcome(program, { status: 'exit', exitCode: 3, stdout: '', stderr: why } as RunResult)
    if ('error' in checker) return failed(checker.error)
    const { limits: caps } = settings
    const files = Buffer.byteLength(input) + Buffer.byteLength(expected) + output.length + 3 * 4096
    await sb.box('mount', caps.workDirBytes + checker.size.bytes + files, caps.workDirInodes + checker.size.inodes + 3)
    copyTree(checker.dir, sb.boxDir, keptBounds())
    // root writes the test's files into a folder the checker's compile step filled: each is created
    // exclusively, so a link (or anything) it left under one of these names is refused, never followed
    const data = { input, expected, output }
    for (const name of CHECKER_FILES) {
      try {
        writeNewFile(sb.boxDir, name, Buffer.from(data[name]), 0o444)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
        return failed(`its compile step left a file named ${name}, where the test's files go (input, expected, output)`)
      }
    }
    const { timeSec, memoryKb } = settings.checker
    const limits = stepLimits(checker.lang, { language: checker.lang.code, source: '', input: '', timeLimitSec: timeSec, memoryLimitKb: memoryKb }, 'run')
    const r = await runInBox(sb, checker.lang, checker.root, '', limits, memoryKb, ['input', 'output', 'expected'])
    return checkerOutcome(program, r)
  }

  /**
   * An output validator's files lie beside its main source; in C and C++ the other source files are
   * compiled with it (as problemtools compiles every file of the validator's language).
   */
  function validatorSpec(lang: Language, spec: OutputValidatorChecker): JobSpec {
    const files = spec.files ?? []
    // a build/run folder: its build script is the source, run once as the compile step (build-run.ts)
    if (spec.build) return { sourceFileName: BUILD_FILE, compileArgv: BUILD_ARGV, ...(files.length && { files: files.map((f) => ({ name: f.name, contentBase64: Buffer.from(f.content).toString('base64') })) }) }
    if (!files.length) return {}
    const cFamily = /\.(c|cc|cpp|cxx|c\+\+|C)$/
    const extra = cFamily.test(lang.sourceFile) ? files.filter((f) => cFamily.test(f.name)).map((f) => f.name) : []
    return {
      files: files.map((f) => ({ name: f.name, contentBase64: Buffer.from(f.content).toString('base64') })),
      ...(extra.length && lang.compile && { compileArgv: lang.compile.flatMap((a) => (a === lang.sourceFile ? [a, ...extra] : [a])) }),
    }
  }

  /** What of a validator's feedback file is read back: a message's worth. */
  const FEEDBACK_BYTES = 64 * 1024

  /**
   * A Kattis/ICPC output validator, in a fresh box of its own beside what its compile step left: the
   * files input and judge_answer (root's, read-only), an empty folder feedback/ (the jail's), argv
   * input judge_answer feedback/ [flags], the program's output as its stdin.
   */
  async function runValidator(sb: Sandbox, validator: PreparedChecker, spec: OutputValidatorChecker, input: string, expected: string, program: RunResult, output: Uint8Array, scores?: Job['validatorScores']): Promise<TestOutcome> {
    const none = { status: 'exit', exitCode: 42, stdout: '', stderr: '' } as RunResult
    if ('error' in validator) return validatorOutcome(program, none, { broken: validator.error })
    const box = await validatorBox(sb, validator, input, expected)
    if ('broken' in box) return validatorOutcome(program, none, box)
    const r = await runInBox(sb, validator.lang, validator.root, Buffer.from(output), validatorLimits(validator), settings.checker.memoryKb, validatorArgs(spec), validatorRun(validator))
    return validatorOutcome(program, r, readFeedback(box.feedback), scores)
  }

  const validatorArgs = (spec: OutputValidatorChecker) => ['input', 'judge_answer', 'feedback/', ...(spec.flags ?? [])]
  const validatorRun = (validator: Exclude<PreparedChecker, { error: string }>): JobSpec => (validator.runArgv ? { runArgv: validator.runArgv } : {})
  const validatorLimits = (validator: Exclude<PreparedChecker, { error: string }>) => {
    const { timeSec, memoryKb } = settings.checker
    return stepLimits(validator.lang, { language: validator.lang.code, source: '', input: '', timeLimitSec: timeSec, memoryLimitKb: memoryKb }, 'run')
  }

  /**
   * A validator's fresh box in sb beside what its compile step left: the files input and judge_answer
   * (root's, read-only) and the folder feedback/ (the jail's), holding what keptFeedback holds (an
   * earlier pass's feedback) when it is given.
   */
  async function validatorBox(sb: Sandbox, validator: Exclude<PreparedChecker, { error: string }>, input: string | Buffer, expected: string, keptFeedback?: TreeSize & { dir: string }): Promise<{ feedback: string } | { broken: string }> {
    const { limits: caps } = settings
    const files = Buffer.byteLength(input) + Buffer.byteLength(expected) + 2 * 4096 + (keptFeedback?.bytes ?? 0)
    await sb.box('mount', caps.workDirBytes + validator.size.bytes + files, caps.workDirInodes + validator.size.inodes + 8 + (keptFeedback?.inodes ?? 0))
    copyTree(validator.dir, sb.boxDir, keptBounds())
    const data = { input, judge_answer: expected }
    const feedback = join(sb.boxDir, 'feedback')
    try {
      for (const name of ['input', 'judge_answer'] as const) writeNewFile(sb.boxDir, name, Buffer.from(data[name]), 0o444)
      mkdirSync(feedback, 0o700)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      return { broken: "its compile step left a file named input, judge_answer or feedback, where the test's files go" }
    }
    const uid = await sb.jailUid()
    chownSync(feedback, uid, uid)
    // copied in after the chown: what the copy makes belongs to the folder's owner, the validator's jail
    if (keptFeedback) copyTree(keptFeedback.dir, feedback, keptBounds())
    return { feedback }
  }

  /**
   * One test of a Kattis/ICPC problem whose validator is interactive or multi-pass, as problemtools
   * judges it. Interactive: the submission (this slot) and the validator (the peer slot) run at once,
   * each in its own jail, the validator's stdout wired to the submission's stdin and back (nothing
   * else shared). Multi-pass: a validator that accepts and leaves feedback/nextpass.in starts another
   * pass with it as the input, its feedback folder kept, up to spec.passes passes.
   */
  async function runPasses(sb: Sandbox, lang: Language, root: string, validator: PreparedChecker, spec: OutputValidatorChecker, input: string, expected: string, runLimits: Limits, limits: { timeLimitSec: number; memoryLimitKb: number }, fresh: () => Promise<void>, job: Job): Promise<TestOutcome> {
    const none = { status: 'exit', exitCode: 42, stdout: '', stderr: '' } as RunResult
    const notRun = { status: 'ok', exitCode: 0, signal: null, cpuSec: 0, wallSec: 0, memoryKb: 0, stdout: '', stderr: '' } as RunResult
    if ('error' in validator) return validatorOutcome(notRun, none, { broken: validator.error })
    const passes = spec.passes ?? 1
    const keptFeedback = join(sb.slotDir, 'feedback')
    let kept: (TreeSize & { dir: string }) | undefined
    let passInput: string | Buffer = input
    // the slowest pass's figures are the test's (each pass has the whole limit, as in problemtools)
    let slowest: RunResult | undefined
    const figures = (o: TestOutcome, r: RunResult): TestOutcome => {
      if (!slowest || r.cpuSec > slowest.cpuSec) slowest = r
      return { ...o, timeUsedSec: slowest.cpuSec, memoryUsedKb: Math.max(o.memoryUsedKb, Math.round(slowest.memoryKb)) }
    }
    for (let pass = 1; ; pass++) {
      const vsb = spec.interactive ? openPeer() : sb
      let program: RunResult
      let v: RunResult
      let feedbackDir: string
      if (spec.interactive) {
        await fresh()
        const box = await validatorBox(vsb, validator, passInput, expected, kept)
        if ('broken' in box) return validatorOutcome(notRun, none, box)
        feedbackDir = box.feedback
        const vLimits = validatorLimits(validator)
        // the validator outlives the submission's own limits: a validator waiting on a submission that
        // is stopped at its wall limit then sees end of file, rather than being stopped first
        const wire = { path: vsb.wirePath }
        ;[program, v] = await Promise.all([
          runInBox(sb, lang, root, '', runLimits, job.memoryLimitKb, [], job, { ...wire, role: 'join' }),
          runInBox(vsb, validator.lang, validator.root, '', { ...vLimits, wallTimeSec: Math.max(vLimits.wallTimeSec, runLimits.wallTimeSec + 2) }, settings.checker.memoryKb, validatorArgs(spec), validatorRun(validator), { ...wire, role: 'serve' }),
        ])
        const outcome = figures(interactiveOutcome(program, v, readFeedback(feedbackDir), limits, job.validatorScores), program)
        if (outcome.status !== 'AC') return outcome
        const next = nextPass(feedbackDir, spec, pass, passes, program, v)
        if (!next) return outcome
        if ('outcome' in next) return figures(next.outcome, program)
        passInput = next.input
      } else {
        await fresh()
        program = await runInBox(sb, lang, root, passInput, runLimits, job.memoryLimitKb, [], job)
        const failure = runFailure(program, limits)
        if (failure) return figures(failure, program)
        const output = stdoutBytes(sb, program, job)
        const box = await validatorBox(sb, validator, passInput, expected, kept)
        if ('broken' in box) return validatorOutcome(program, none, box)
        feedbackDir = box.feedback
        v = await runInBox(sb, validator.lang, validator.root, Buffer.from(output), validatorLimits(validator), settings.checker.memoryKb, validatorArgs(spec), validatorRun(validator))
        const outcome = figures(validatorOutcome(program, v, readFeedback(feedbackDir), job.validatorScores), program)
        if (outcome.status !== 'AC') return outcome
        const next = nextPass(feedbackDir, spec, pass, passes, program, v)
        if (!next) return outcome
        if ('outcome' in next) return figures(next.outcome, program)
        passInput = next.input
      }
      // the feedback folder goes on to the next pass (nextpass.in is its input, no longer a file of it)
      rmSync(keptFeedback, { recursive: true, force: true })
      mkdirSync(keptFeedback, { mode: 0o700 })
      kept = { ...copyTree(feedbackDir, keptFeedback, keptBounds()), dir: keptFeedback }
    }
  }

  /**
   * After an accepted pass of a multi-pass problem: the next pass's input (feedback/nextpass.in, taken
   * out of the folder), nothing when the validator wrote none (the test is accepted), or IE when it
   * wrote one on the last pass allowed or as something other than a file.
   */
  function nextPass(feedbackDir: string, spec: OutputValidatorChecker, pass: number, passes: number, program: RunResult, v: RunResult): { input: Buffer } | { outcome: TestOutcome } | undefined {
    if (!spec.passes) return undefined
    const file = join(feedbackDir, 'nextpass.in')
    if (!lstatSync(file, { throwIfNoEntry: false })) return undefined
    const ie = (why: string) => ({ outcome: validatorOutcome(program, v, { broken: why }) })
    if (pass >= passes) return ie(`wrote nextpass.in on pass ${pass}, the last one the problem allows (limits.validation_passes: ${passes})`)
    try {
      const input = readRegularFile(file, settings.limits.workDirBytes)
      rmSync(file)
      return { input }
    } catch {
      return ie(`left nextpass.in as something other than a file of at most ${settings.limits.workDirBytes} bytes`)
    }
  }

  /** The validator's feedback files, read without following a link (no jail process is left to change them). */
  function readFeedback(dir: string): ValidatorFeedback {
    const st = lstatSync(dir, { throwIfNoEntry: false })
    if (!st?.isDirectory()) return { broken: 'replaced its feedback folder' }
    const out: ValidatorFeedback = {}
    for (const name of ['judgemessage', 'teammessage', 'score'] as const) {
      try {
        out[name] = readRegularFile(join(dir, `${name}.txt`), FEEDBACK_BYTES).toString('utf8')
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
        return { broken: `left ${name}.txt as something other than a file of at most ${FEEDBACK_BYTES} bytes` }
      }
    }
    return out
  }

  /** Every root some provisioned language runs in, its image mounted and its prepared jail building. */
  async function prepare(): Promise<void> {
    const sb = open()
    const names = [...new Set([...languages.values()].filter((l) => isProvisioned(settings.toolchains, l)).map((l) => l.root))]
    const roots = await Promise.all(names.map((name) => sb.root(name, rootImagePath(settings.toolchains, name))))
    await sb.prepare(roots)
  }

  return {
    run,
    prepare,
    pool: async () => (sandbox ? sandbox.pool() : []),
    close: async () => {
      await cleaning
      await Promise.all([sandbox?.close(), peer?.close()])
    },
  }
}

// ── Piscina entry ──────────────────────────────────────────────────────────────────────────────

export interface WorkerTask {
  job: Job
  /**
   * The run's number when someone hears of its steps: a Progress message (pool-types.ts) goes to the
   * pool (piscina's 'message' event) at the end of the compile step (held COMPILED_REPORT_DELAY_MS) and
   * of each test. No port per job: a channel, its transfer and its close cost both threads on every job.
   */
  progressOf?: number
}


let runner: JobRunner | undefined
// a pool thread builds its slot's prepared jails as it starts, before its first job needs one
if (!isMainThread && (workerData as WorkerSettings | undefined)?.sandbox) {
  runner = createJobRunner(workerData as WorkerSettings, `w${process.pid}-${threadId}`)
  void runner.prepare().catch(() => undefined) // the first job builds what could not be built now, and says why
}

export default async function runTask({ job, progressOf }: WorkerTask): Promise<JobResult> {
  const settings = workerData as WorkerSettings
  runner ??= createJobRunner(settings, `w${process.pid}-${threadId}`)
  // no number: nobody hears of the steps (pool.ts numbers only jobs whose progress is relayed)
  const hooks =
    progressOf === undefined
      ? undefined
      : deferCompiled(
          sendProgress((progress) => parentPort!.postMessage({ progressOf, progress } satisfies ThreadProgress)),
          COMPILED_REPORT_DELAY_MS
        )
  try {
    return await runner.run(job, hooks ?? {})
  } finally {
    hooks?.settle()
  }
}
