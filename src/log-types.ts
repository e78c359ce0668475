// The logger's contract (log.ts builds it), types only: deps.ts names it without loading the logger.
export type Fields = Record<string, unknown>
export type Level = 'debug' | 'info' | 'warn' | 'error'

export interface Log {
  debug(msg: string, fields?: Fields): void
  info(msg: string, fields?: Fields): void
  warn(msg: string, fields?: Fields): void
  error(msg: string, fields?: Fields): void
  child(fields: Fields): Log
}
