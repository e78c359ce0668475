// The similarity queue: one report at a time, in a child process (runner.ts), claimed from the
// similarity_reports table (the queue of record). At start, reports left running by a crash or a stop go
// back to the queue and run again from the start; a report whose analysis keeps killing its process is
// failed after MAX_ATTEMPTS instead of being retried for ever.
import type { BackgroundQueue, Deps } from '../deps.ts'
import { AnalysisFailed, runAnalysis, SOURCE_BATCH_BYTES } from './runner.ts'
import { claimNext, completeReport, recordProgress, requeueRunning, sourceBatches, storedOf, type ReportRow } from './reports.ts'

type QueueDeps = Pick<Deps, 'config' | 'db' | 'log' | 'now' | 'outbox'> & {
  /** True while this machine's own jails have work: the analysis then waits (runner.ts yieldTo). */
  sandboxBusy?: () => boolean
}

const MAX_ATTEMPTS = 3

/** Runs one claimed report to its end: completed, failed, or (when stopped) left for requeueing. */
export async function runReport(deps: QueueDeps, row: ReportRow, signal?: AbortSignal, onProgress?: (fraction: number, stage: string) => void): Promise<void> {
  const cfg = deps.config.similarity
  if (row.attempt > MAX_ATTEMPTS) {
    completeReport(deps, row, { failure: `the analysis was interrupted ${MAX_ATTEMPTS} times` })
    return
  }
  const stored = storedOf(deps, row)
  if (stored.length < 2) {
    completeReport(deps, row, { failure: 'fewer than two of its submissions are still stored' })
    return
  }
  let lastWrite = 0
  let lastStage = ''
  try {
    const outcome = await runAnalysis(
      {
        language: row.language,
        // read from the database as they are sent: the server holds one batch of sources, not all of them
        batches: sourceBatches(deps, row, stored, SOURCE_BATCH_BYTES),
        ...(row.template && { template: row.template }),
        minSimilarity: row.minSimilarity,
        maxPairs: cfg.max_pairs,
        maxFingerprintShare: cfg.max_fingerprint_share,
        fileParseSec: cfg.file_parse_sec,
      },
      { timeSec: cfg.time_limit_sec, memoryMb: cfg.memory_mb, ...(deps.sandboxBusy && { yieldTo: deps.sandboxBusy }) },
      (fraction, stage) => {
        // a few writes a second at most (pollers need no more), and each new stage; the end is completeReport's
        const now = Date.now()
        if (fraction < 1 && (stage !== lastStage || now - lastWrite > 250)) {
          lastWrite = now
          lastStage = stage
          recordProgress(deps, row, fraction, stage)
        }
        // after the write: what the hook is told is what a poller reads
        onProgress?.(fraction, stage)
      },
      signal
    )
    completeReport(deps, row, outcome)
    deps.log.info('similarity report completed', { report: row.publicId, submissions: stored.length, ms: outcome.ms, max_rss_kb: outcome.maxRssKb })
  } catch (err) {
    if (signal?.aborted) return // stopping: left running, requeued at the next start
    const failure = err instanceof AnalysisFailed ? err.message : 'the analysis failed on our side'
    if (!(err instanceof AnalysisFailed)) deps.log.error('similarity report failed', { report: row.publicId, err: String(err), stack: (err as Error).stack })
    completeReport(deps, row, { failure })
  }
}

export function createSimilarityQueue(deps: QueueDeps): BackgroundQueue {
  let running: Promise<void> | undefined
  let stopped = false
  let again = false
  const abort = new AbortController()

  const loop = async () => {
    do {
      again = false
      for (let row = claimNext(deps); row && !stopped; row = stopped ? undefined : claimNext(deps)) {
        await runReport(deps, row, abort.signal)
      }
    } while (again && !stopped)
  }
  const wake = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    // cleared when the loop ends (not inside it: with nothing queued it ends before `running` is even set)
    running = loop()
      .catch((err: Error) => deps.log.error('similarity queue', { err: String(err), stack: err.stack }))
      .finally(() => (running = undefined))
  }
  return {
    start() {
      const requeued = requeueRunning(deps)
      if (requeued) deps.log.info('similarity reports requeued after a restart', { reports: requeued })
      wake()
    },
    wake,
    async stop() {
      stopped = true
      abort.abort()
      await running
      // what was running goes back to the queue now rather than waiting for the next start
      requeueRunning(deps)
    },
  }
}
