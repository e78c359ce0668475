// The submission core's model, shared by every wire protocol: the stored row, what a protocol may add
// to a job beyond language/source/input/limits (JobSpec, stored as JSON with the row), and the raw
// outcome of each step kept with the row (RawResult) so each protocol maps statuses its own way.
import type { submissions } from '../storage/schema.ts'
import type { RunStatus } from '../sandbox/types.ts'
import type { JobFile, JobSpec, RunFigures } from '../jobs/types.ts'
import type { StoredFile } from '../storage/payloads.ts'

export type { JobFile, JobSpec }

export type Submission = typeof submissions.$inferSelect

/** One step as the jail reported it (the run's stdout/stderr are in the row's own columns). */
export interface RawStep {
  status: RunStatus
  exitCode: number | null
  signal: string | null
  cpuSec: number
  wallSec: number
  memoryKb: number
}

export interface RawResult {
  /** null for a language without a compile step (and for a program from the compile cache in rows stored before its output was kept). A cached compile: its kept output, zero time and memory. */
  compile: (RawStep & { stdout: string; stderr: string }) | null
  run: RawStep | null
  /** A repeated run (JobSpec.repeat): each run's figures in order; run is the last. */
  repeats?: RunFigures[]
}

/** The spec as the row keeps it: the job's files stored on disk at accept (storage/payloads.ts) are named in `stored`; rows from before kept them inline in `files`. */
export type StoredJobSpec = JobSpec & { stored?: StoredFile[] }

export const jobSpecOf = (row: Pick<Submission, 'jobSpecJson'>): StoredJobSpec => (row.jobSpecJson ? (JSON.parse(row.jobSpecJson) as StoredJobSpec) : {})
export const rawResultOf = (row: Pick<Submission, 'rawResultJson'>): RawResult | undefined =>
  row.rawResultJson ? (JSON.parse(row.rawResultJson) as RawResult) : undefined
export const protocolDataOf = (row: Pick<Submission, 'protocolJson'>): unknown => (row.protocolJson ? JSON.parse(row.protocolJson) : undefined)
