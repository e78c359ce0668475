// Pure: ISO 8601 date-times with a UTC offset, read into (instant, offset) and written back in that offset.

export interface OffsetDateTime {
  at: Date
  /** Minutes east of UTC, e.g. 330 for +05:30. */
  offsetMin: number
}

// Extended format only (the spec's examples): date, 'T', time with optional seconds and fraction, then
// Z or ±HH:MM (±HHMM is tolerated). A time without an offset is ambiguous, so it is refused.
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/i

/** null when the text is not a real date-time with an offset (2024-02-30, 25:00, +15:00 … are refused). */
export function parseOffsetDateTime(text: string): OffsetDateTime | null {
  const m = ISO.exec(text)
  if (!m) return null
  const [, y, mo, d, h, mi, s = '0', frac = '0', z, sign, oh, om] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (day > daysInMonth) return null
  let offsetMin = 0
  if (!z) {
    if (Number(oh) > 14 || Number(om) > 59) return null
    offsetMin = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om))
  }
  const ms = Math.floor(Number(`0.${frac}`) * 1000)
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000)
  return { at, offsetMin }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** 2024-05-01T10:00:00+05:30 (Z for offset 0; milliseconds only when there are some). */
export function formatOffsetDateTime(at: Date, offsetMin: number): string {
  const local = new Date(at.getTime() + offsetMin * 60_000)
  const ms = local.getUTCMilliseconds()
  const base =
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    (ms ? `.${pad(ms, 3)}` : '')
  if (offsetMin === 0) return `${base}Z`
  const abs = Math.abs(offsetMin)
  return `${base}${offsetMin < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}
