// Live config (SIGHUP, `systemctl reload arbiter`): which keys a running server takes at once, and the
// diff of a re-read file against the running config. The running Config object is updated in place,
// so every service that reads deps.config.<key> per request sees the new value.
import type { Config } from './config.ts'

/** Keys (`section` = all of its keys, or `section.key`) that apply without a restart. */
export const LIVE_KEYS = [
  'limits',
  'languages.enabled',
  'server.cors_origins',
  'server.max_connections_per_address',
  'server.first_request_timeout_sec',
  'server.keep_alive_timeout_sec',
  'server.body_bytes_in_flight_per_address',
  'server.body_bytes_in_flight',
  'interviews.rate_per_minute',
  'interviews.rate_per_day',
  'retention.submissions_days',
  'retention.outputs_days',
  'retention.resumes_days',
  'retention.interviews_days',
  'retention.outbox_days',
  'pool.size',
  'evaluation.max_queued_per_client',
  'metrics',
] as const

const isLive = (section: string, key: string) =>
  (LIVE_KEYS as readonly string[]).includes(section) || (LIVE_KEYS as readonly string[]).includes(`${section}.${key}`)

export interface ReloadReport {
  /** `section.key` changed and now in effect. */
  applied: string[]
  /** `section.key` changed in the file but only a restart applies it. */
  needsRestart: string[]
}

type Sections = Record<string, Record<string, unknown>>

/** Copies the live keys that differ from `next` into `running`; reports the rest. */
export function applyLiveConfig(running: Config, next: Config): ReloadReport {
  const report: ReloadReport = { applied: [], needsRestart: [] }
  const cur = running as unknown as Sections
  const nxt = next as unknown as Sections
  for (const section of Object.keys(nxt)) {
    if (section === 'dataDir') continue
    for (const key of Object.keys(nxt[section])) {
      if (JSON.stringify(cur[section][key]) === JSON.stringify(nxt[section][key])) continue
      if (isLive(section, key)) {
        cur[section][key] = structuredClone(nxt[section][key])
        report.applied.push(`${section}.${key}`)
      } else {
        report.needsRestart.push(`${section}.${key}`)
      }
    }
  }
  return report
}
