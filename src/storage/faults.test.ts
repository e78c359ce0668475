import { describe, expect, test } from 'vitest'
import { silentLog } from '../log.ts'
import { storageAppError, storageFaultCounts, storageFaultOf } from './faults.ts'

const err = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(code), { code, ...extra })

describe('storage faults', () => {
  test.each([
    ['SQLITE_FULL', 'disk_full'],
    ['ENOSPC', 'disk_full'],
    ['EDQUOT', 'disk_full'],
    ['EROFS', 'read_only'],
    ['SQLITE_READONLY', 'read_only'],
    ['SQLITE_READONLY_DBMOVED', 'read_only'],
    ['EACCES', 'permission'],
    ['EPERM', 'permission'],
    ['SQLITE_IOERR_WRITE', 'io_error'],
  ])('%s is a storage fault: %s', (code, cause) => {
    expect(storageFaultOf(err(code))?.cause).toBe(cause)
  })

  test('found behind a wrapper (drizzle wraps the driver error in cause), with the file it names', () => {
    const inner = err('EACCES', { path: '/data/problems/blobs/ab/x.tmp' })
    expect(storageFaultOf(Object.assign(new Error('Failed query'), { cause: inner }))).toEqual({ cause: 'permission', code: 'EACCES', path: '/data/problems/blobs/ab/x.tmp' })
  })

  test('anything else is not one', () => {
    for (const e of [new Error('x'), err('SQLITE_CONSTRAINT_UNIQUE'), err('ENOENT'), 'text', null, undefined]) expect(storageFaultOf(e)).toBeUndefined()
  })

  test('the core answer: StorageUnavailable naming the cause, with retry_after; counted', () => {
    const before = storageFaultCounts().disk_full
    const e = storageAppError(err('SQLITE_FULL'), silentLog())!
    expect(e.code).toBe('StorageUnavailable')
    expect(e.detail).toBe("the server's data disk is full (SQLITE_FULL); nothing was stored: try again later")
    expect(e.data).toEqual({ cause: 'disk_full', retry_after: 30 })
    expect(storageFaultCounts().disk_full).toBe(before + 1)
    expect(storageAppError(new Error('bug'), silentLog())).toBeUndefined()
  })
})
