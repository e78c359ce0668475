// Redis connections for BullMQ, from queue.redis_url: redis://user:password@host:port/db, or rediss://
// for TLS (the server's certificate is checked against the system's CAs). The URL carries the ACL user
// and password; it is never logged whole (redact()).
import type { RedisOptions } from 'ioredis'

export function redisOptions(url: string): RedisOptions {
  const u = new URL(url)
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error(`queue.redis_url: ${u.protocol} is not redis: or rediss:`)
  const db = u.pathname.replace(/^\//, '')
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : 6379,
    ...(u.username && { username: decodeURIComponent(u.username) }),
    ...(u.password && { password: decodeURIComponent(u.password) }),
    ...(db && { db: Number(db) }),
    ...(u.protocol === 'rediss:' && { tls: { servername: u.hostname } }),
    // BullMQ's blocking calls need this; a command waits for the connection rather than failing
    maxRetriesPerRequest: null,
    // reconnect for ever, at most every 2 s: an outage is waited out, never fatal
    retryStrategy: (times: number) => Math.min(100 * times, 2000),
  }
}

/** For producers (the API host's adds and checks): fail at once while Redis is down instead of queueing in memory. */
export const producerOptions = (url: string): RedisOptions => ({ ...redisOptions(url), enableOfflineQueue: false })

/** The URL without its password, for logs and /health. */
export function redact(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(unreadable url)'
  }
}
