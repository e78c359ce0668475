// The Piscina pool: config.pool.size worker threads, each with its own jail slot (supervisor,
// cgroups, network namespace). Kept short: the queue of record is the submissions table.
import { Piscina } from 'piscina'
import { removeEndedSlots } from '../sandbox/leftovers.ts'
import { jobCeilings, type Config } from '../config.ts'
import type { Pool, RunHooks } from './pool-types.ts'
import { isThreadProgress, relayProgress } from './progress.ts'
import type { Job, JobResult } from './types.ts'
import type { WorkerSettings, WorkerTask } from './worker.ts'

export function workerSettings(config: Config): WorkerSettings {
  const { paths, limits, languages } = config
  return {
    sandbox: { nsjail: paths.nsjail, supervisor: paths.supervisor, jailInit: paths.jail_init, runs: paths.runs, prepared: config.pool.prepared_jails },
    toolchains: paths.toolchains,
    limits: {
      wallExtraSec: limits.wall_extra_sec,
      processes: limits.processes,
      openFiles: limits.open_files,
      outputCapBytes: limits.output_cap_bytes,
      // a protocol's own cap may be larger (the Jobe API's): checked at its edge and by the jail daemon
      outputCeilingBytes: jobCeilings(config).outputBytes,
      compileFileSizeBytes: limits.compile_file_size_bytes,
      workDirBytes: limits.work_dir_bytes,
      workDirInodes: limits.work_dir_inodes,
      compileWorkDirBytes: limits.compile_work_dir_bytes,
      compileWorkDirInodes: limits.compile_work_dir_inodes,
      compileTimeSec: limits.compile_time_sec,
      compileMemoryKb: limits.compile_memory_kb,
      compileProcesses: limits.compile_processes,
    },
    compileOverrides: languages.compile_overrides,
    checker: { timeSec: config.grading.checker_time_sec, memoryKb: config.grading.checker_memory_kb, judgeTimeSec: config.grading.judge_time_sec },
    ...(config.compile_cache.max_bytes > 0 && { compileCache: { dir: paths.compile_cache, maxBytes: config.compile_cache.max_bytes } }),
  }
}

/** The jail slots a pool's threads opened (worker.ts names each `w<pid>-<threadId>`, and its interactive validators' `…-v`). */
const slotsOf = (piscina: Piscina) => piscina.threads.flatMap((t) => [`w${process.pid}-${t.threadId}`, `w${process.pid}-${t.threadId}-v`])

const startPiscina = (config: Config) =>
  new Piscina<WorkerTask, JobResult>({
    // the worker beside this file: worker.js in the build (plain node), worker.ts from the sources,
    // where tsx runs the worker threads too
    ...(import.meta.url.endsWith('.ts')
      ? { filename: new URL('./worker.ts', import.meta.url).href, execArgv: ['--import', 'tsx'] }
      : { filename: new URL('./worker.js', import.meta.url).href, execArgv: [] }),
    minThreads: config.pool.size,
    maxThreads: config.pool.size,
    // a worker owns a supervisor process and cgroups: keep it rather than recreate it
    idleTimeout: Number.MAX_SAFE_INTEGER,
    workerData: workerSettings(config),
  })

export function createPool(config: Config): Pool {
  let size = config.pool.size
  // the hooks of each run whose steps someone hears of (v4's stages, graded tests), by the number its
  // thread's progress messages carry; a message for a run that has ended is dropped (its result says all)
  const listening = new Map<number, RunHooks>()
  let lastRun = 0
  const start = (c: Config) =>
    startPiscina(c).on('message', (m: unknown) => {
      if (!isThreadProgress(m)) return
      const hooks = listening.get(m.progressOf)
      if (hooks) relayProgress(hooks, m.progress)
    })
  let piscina = start(config)
  const retiring = new Set<Promise<void>>()
  let busy = 0
  return {
    get size() {
      return size
    },
    get busy() {
      return busy
    },
    async run(job: Job, hooks: RunHooks = {}) {
      // a number only for a run whose steps someone hears of: a synchronous run's face hears nothing
      const progressOf = hooks.onCompiled || hooks.onTest ? ++lastRun : undefined
      if (progressOf !== undefined) listening.set(progressOf, hooks)
      busy++
      try {
        return await piscina.run(progressOf === undefined ? { job } : { job, progressOf })
      } finally {
        busy--
        if (progressOf !== undefined) listening.delete(progressOf)
      }
    },
    // a worker reads its settings once: new limits take a fresh set of threads; the old ones finish
    // their jobs (and stop their supervisors) in the background
    reconfigure(next: Config) {
      const old = piscina
      const oldSlots = slotsOf(old)
      piscina = start(next)
      size = next.pool.size
      const closing: Promise<void> = old
        .close()
        .then(() => removeEndedSlots(config.paths.runs, oldSlots))
        .finally(() => retiring.delete(closing))
      retiring.add(closing)
    },
    // a fixed set of threads on this machine: any language while a slot is free, none resumed after a restart
    resumesInFlight: false,
    available: () => undefined,
    onCapacity() {},
    async close() {
      await Promise.allSettled([...retiring])
      const slots = slotsOf(piscina)
      await piscina.destroy()
      // a graceful stop leaves nothing for the next start to sweep
      await removeEndedSlots(config.paths.runs, slots)
    },
  }
}
