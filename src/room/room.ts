// The room's service: the languages it offers, the shared editor state (code, language, input) kept in
// SQLite, and a run of that code with the room's small limits, queued like every other job (its own
// class, evaluation/room-runs.ts) so it runs wherever jobs run — a local slot or a sandbox host.
import { eq, sql } from 'drizzle-orm'
import { randomBytes } from 'node:crypto'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { queueRoomRun } from '../evaluation/room-runs.ts'
import type { Submission } from '../evaluation/model.ts'
import { offeredEverywhere as sharedOffered } from '../languages.ts'
import { roomStates } from '../storage/schema.ts'
import type { RoomHub } from './hub.ts'

export type RoomDeps = Pick<Deps, 'config' | 'db' | 'languages' | 'now'>

export interface RoomState {
  language: string
  code: string
  input: string
  version: number
}

/** A run as the room shows it. */
export interface RunOutput {
  id: string
  by: string
  language: string
  /** AC, TLE, MLE, RE, CE, or IE when the sandbox failed on our side. */
  status: string
  status_detail: string
  compile_output: string
  stdout: string
  stderr: string
  time_used: number
  memory_used_kb: number
  exit_code: number | null
  /** stdout or stderr was cut to DISPLAY_BYTES. */
  truncated: boolean
  at: string
}

/** What a browser is sent of one output stream; the sandbox's own cap is far larger. */
const DISPLAY_BYTES = 64 * 1024
const PREFERRED = 'PYTHON3'

/** A language as the room offers it; editorMode is its manifest entry's editor_mode (the editor's highlighting). */
export interface RoomLanguage {
  code: string
  name: string
  editorMode?: string
}

/**
 * The languages the editor offers: the same rule as the evaluation API (languages.ts offeredEverywhere:
 * languages.enabled when set, each with its toolchain provisioned, not one of Judge0's own forms).
 */
export function offeredLanguages(deps: RoomDeps): RoomLanguage[] {
  return sharedOffered(deps.languages, deps.config).map((l) => ({ code: l.code, name: l.name, ...(l.editorMode ? { editorMode: l.editorMode } : {}) }))
}

const defaultLanguage = (deps: RoomDeps) => {
  const offered = offeredLanguages(deps)
  return offered.find((l) => l.code === PREFERRED)?.code ?? offered[0]?.code ?? PREFERRED
}

export function roomState(deps: RoomDeps, interviewId: string): RoomState & { lastRun: RunOutput | null } {
  const row = deps.db.select().from(roomStates).where(eq(roomStates.interviewId, interviewId)).get()
  if (!row) return { language: defaultLanguage(deps), code: '', input: '', version: 0, lastRun: null }
  return { language: row.language, code: row.code, input: row.input, version: row.version, lastRun: row.lastRunJson ? (JSON.parse(row.lastRunJson) as RunOutput) : null }
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8')

/** Checks an editor change: an offered language, code and input within room.max_code_bytes. */
export function checkChange(deps: RoomDeps, change: Omit<RoomState, 'version'>): void {
  if (!offeredLanguages(deps).some((l) => l.code === change.language)) throw new AppError('RoomBadRequest', `language ${change.language} is not offered here`)
  const max = deps.config.room.max_code_bytes
  if (bytes(change.code) > max) throw new AppError('RoomTooLarge', `the code is larger than ${max} bytes`)
  if (bytes(change.input) > max) throw new AppError('RoomTooLarge', `the input is larger than ${max} bytes`)
}

/** Stores the editor's new content (last writer wins) and returns it with its new version. */
export function saveState(deps: RoomDeps, interviewId: string, change: Omit<RoomState, 'version'>): RoomState {
  checkChange(deps, change)
  const now = deps.now()
  const row = deps.db
    .insert(roomStates)
    .values({ interviewId, ...change, version: 1, updatedAt: now })
    .onConflictDoUpdate({ target: roomStates.interviewId, set: { ...change, version: sql`${roomStates.version} + 1`, updatedAt: now } })
    .returning()
    .get()
  return { language: row.language, code: row.code, input: row.input, version: row.version }
}

const cut = (s: string) => (bytes(s) <= DISPLAY_BYTES ? { text: s, cut: false } : { text: Buffer.from(s).subarray(0, DISPLAY_BYTES).toString('utf8'), cut: true })

/** What the room shows of a completed run: the same verdict as the API's, IE when we failed on our side. */
function outputOf(row: Submission, base: Pick<RunOutput, 'id' | 'by' | 'language' | 'at'>): RunOutput {
  if (row.failure)
    return { ...base, status: 'IE', status_detail: 'the sandbox could not run this; please try again', compile_output: '', stdout: '', stderr: '', time_used: 0, memory_used_kb: 0, exit_code: null, truncated: false }
  const out = cut(row.stdout ?? '')
  const err = cut(row.stderr ?? '')
  return {
    ...base,
    status: row.verdict ?? 'CE',
    status_detail: row.statusDetail ?? 'NA',
    compile_output: row.verdict === 'CE' ? cut(row.compileStatus ?? '').text : '',
    stdout: out.text,
    stderr: err.text,
    time_used: row.timeUsedSec ?? 0,
    memory_used_kb: row.memoryUsedKb ?? 0,
    exit_code: row.exitCode,
    truncated: out.cut || err.cut,
  }
}

/**
 * Runs the room's code once: queued in the room's class (ahead of the APIs' asynchronous work) and
 * waited on. One run at a time per interview; a run that fails on our side is retried like any job.
 */
export async function runCode(
  deps: RoomDeps & Pick<Deps, 'dispatcher' | 'log'>,
  hub: RoomHub,
  interviewId: string,
  by: string,
  change: Omit<RoomState, 'version'>
): Promise<RunOutput> {
  checkChange(deps, change)
  if (!hub.startRun(interviewId)) throw new AppError('RoomBusy', 'a run of this room is still in progress')
  try {
    const base = { id: randomBytes(8).toString('hex'), by, language: change.language, at: deps.now().toISOString() }
    const row = queueRoomRun(deps, {
      interviewId,
      language: change.language,
      source: change.code,
      input: change.input,
      timeLimitSec: Math.min(deps.config.room.time_limit_sec, deps.config.limits.max_time_sec),
      memoryLimitKb: Math.min(deps.config.room.memory_limit_kb, deps.config.limits.max_memory_kb),
    })
    const done = await deps.dispatcher.waitFor(row.id)
    if (done.failure) deps.log.error('room run failed', { interviewId, reason: done.failure })
    const output = outputOf(done, base)
    deps.db.update(roomStates).set({ lastRunJson: JSON.stringify(output) }).where(eq(roomStates.interviewId, interviewId)).run()
    return output
  } finally {
    hub.endRun(interviewId)
  }
}
