// The room's service: the languages it offers, the shared editor state (code, language, input) kept in
// SQLite, and a run of that code through this appliance's own sandbox (deps.pool) with the room's small
// limits, its outcome read by the same verdict rules as the code-evaluation API.
import { eq, sql } from 'drizzle-orm'
import { createHash, randomBytes } from 'node:crypto'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { InternalFailure, verdictOf } from '../grading/verdict.ts'
import { offeredLanguages as sharedOffered } from '../languages.ts'
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

/**
 * The languages the editor offers: the same rule as the evaluation API (languages.ts offeredLanguages:
 * languages.enabled when set, each with its toolchain provisioned).
 */
export function offeredLanguages(deps: RoomDeps): { code: string; name: string }[] {
  return sharedOffered(deps.languages, deps.config).map((l) => ({ code: l.code, name: l.name }))
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

/**
 * Runs the room's code once in the sandbox. One run at a time per interview, and no more room runs at
 * once than the pool has slots, so a room can never queue work ahead of the evaluation API.
 */
export async function runCode(
  deps: RoomDeps & Pick<Deps, 'pool' | 'log'>,
  hub: RoomHub,
  interviewId: string,
  by: string,
  change: Omit<RoomState, 'version'>
): Promise<RunOutput> {
  checkChange(deps, change)
  if (hub.runs >= deps.pool.size) throw new AppError('RoomBusy', 'the sandbox is busy; try again in a moment')
  if (!hub.startRun(interviewId)) throw new AppError('RoomBusy', 'a run of this room is still in progress')
  try {
    const limits = {
      timeLimitSec: Math.min(deps.config.room.time_limit_sec, deps.config.limits.max_time_sec),
      memoryLimitKb: Math.min(deps.config.room.memory_limit_kb, deps.config.limits.max_memory_kb),
    }
    const base = { id: randomBytes(8).toString('hex'), by, language: change.language, at: deps.now().toISOString() }
    let output: RunOutput
    try {
      // a room's compiles are cached for that room only: no one learns another's code by a compile's speed
      const cacheScope = `room:${createHash('sha256').update(interviewId).digest('hex').slice(0, 32)}`
      const result = await deps.pool.run({ language: change.language, source: change.code, input: change.input, ...limits, cacheScope })
      const v = verdictOf(result, limits)
      const out = cut(v.stdout)
      const err = cut(v.stderr)
      output = {
        ...base,
        status: v.verdict ?? 'CE',
        status_detail: v.statusDetail,
        compile_output: v.verdict === 'CE' ? cut(v.compileStatus).text : '',
        stdout: out.text,
        stderr: err.text,
        time_used: v.timeUsedSec,
        memory_used_kb: v.memoryUsedKb,
        exit_code: v.exitCode,
        truncated: out.cut || err.cut,
      }
    } catch (e) {
      // the user's program never throws here (its faults are verdicts); this is the jail failing
      if (!(e instanceof InternalFailure)) deps.log.error('room run failed', { interviewId, err: String(e) })
      output = { ...base, status: 'IE', status_detail: 'the sandbox could not run this; please try again', compile_output: '', stdout: '', stderr: '', time_used: 0, memory_used_kb: 0, exit_code: null, truncated: false }
    }
    deps.db.update(roomStates).set({ lastRunJson: JSON.stringify(output) }).where(eq(roomStates.interviewId, interviewId)).run()
    return output
  } finally {
    hub.endRun(interviewId)
  }
}
