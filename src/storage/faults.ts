// Storage faults as values: a full disk (SQLITE_FULL, ENOSPC, EDQUOT), a read-only one (EROFS,
// SQLITE_READONLY), a permission the server's user lacks (EACCES, EPERM) or an I/O error are not bugs
// but "try later": each protocol's edge answers them with its own busy reply (StorageUnavailable), the
// log and /metrics name the cause, and /health shows the last one.
import { AppError } from '../errors.ts'
import type { Log } from '../log.ts'

export type StorageCause = 'disk_full' | 'read_only' | 'permission' | 'io_error'
export const STORAGE_CAUSES: readonly StorageCause[] = ['disk_full', 'read_only', 'permission', 'io_error']

export interface StorageFault {
  cause: StorageCause
  /** SQLite's or the system's code (SQLITE_FULL, ENOSPC, EACCES …). */
  code: string
  /** The file, when the system names one. */
  path?: string
}

/** How long a client is told to wait before trying again (Retry-After). */
export const STORAGE_RETRY_AFTER_SEC = 30

function causeOf(code: string): StorageCause | undefined {
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'disk_full'
  if (code === 'EROFS' || code.startsWith('SQLITE_READONLY')) return 'read_only'
  if (code === 'EACCES' || code === 'EPERM' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') return 'permission'
  if (code === 'EIO' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') return 'io_error'
  return undefined
}

/** The storage fault behind an error (its cause chain followed: drizzle wraps the driver's), or undefined. */
export function storageFaultOf(err: unknown): StorageFault | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, path } = e as { code?: unknown; path?: unknown }
    const cause = typeof code === 'string' ? causeOf(code) : undefined
    if (cause) return { cause, code: code as string, ...(typeof path === 'string' && { path }) }
  }
  return undefined
}

const WHAT: Record<StorageCause, string> = {
  disk_full: "the server's data disk is full",
  read_only: "the server's data disk is read-only",
  permission: 'the server may not write its own data (permissions)',
  io_error: "the server's data disk failed to read or write",
}

const counts: Record<StorageCause, number> = { disk_full: 0, read_only: 0, permission: 0, io_error: 0 }
let last: (StorageFault & { at: string }) | undefined

/** Storage faults seen since start, by cause (/metrics). */
export const storageFaultCounts = (): Readonly<Record<StorageCause, number>> => counts
/** The latest storage fault, for /health. */
export const lastStorageFault = () => last

/** Counts and logs a storage fault (naming its cause, code and file). */
export function noteStorageFault(fault: StorageFault, log: Log, context: Record<string, unknown> = {}): void {
  counts[fault.cause]++
  last = { ...fault, at: new Date().toISOString() }
  log.error('storage fault', { ...context, cause: fault.cause, code: fault.code, ...(fault.path && { file: fault.path }), what: WHAT[fault.cause] })
}

/**
 * The core's answer to a storage fault (undefined for any other error): StorageUnavailable, a message
 * naming the cause, and retry_after for the edges' Retry-After. Counted and logged once here.
 */
export function storageAppError(err: unknown, log: Log, context: Record<string, unknown> = {}): AppError | undefined {
  const fault = storageFaultOf(err)
  if (!fault) return undefined
  noteStorageFault(fault, log, context)
  return new AppError('StorageUnavailable', `${WHAT[fault.cause]} (${fault.code}); nothing was stored: try again later`, {
    cause: fault.cause,
    retry_after: STORAGE_RETRY_AFTER_SEC,
  })
}
