// One structured JSON logger (one line per event on stderr); child() adds fixed fields.
import type { Fields, Level, Log } from './log-types.ts'

export type { Fields, Level, Log }

const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export function createLog(base: Fields = {}, min: Level = 'info', sink: (line: string) => void = (line) => void process.stderr.write(line + '\n')): Log {
  const emit = (level: Level, msg: string, fields?: Fields) => {
    if (order[level] < order[min]) return
    sink(JSON.stringify({ t: new Date().toISOString(), level, msg, ...base, ...fields }))
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLog({ ...base, ...fields }, min, sink),
  }
}

/** A logger that drops everything: for tests. */
export const silentLog = (): Log => createLog({}, 'error', () => {})
