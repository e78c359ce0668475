import { expect, test } from 'vitest'
import { ConfigError, parseConfig } from '../config.ts'
import { redact, redisOptions } from './connection.ts'

test('a redis URL gives user, password, database and TLS for rediss', () => {
  expect(redisOptions('redis://arbiter:p%40ss@10.0.0.5:6380/2')).toMatchObject({ host: '10.0.0.5', port: 6380, username: 'arbiter', password: 'p@ss', db: 2 })
  expect(redisOptions('redis://h').port).toBe(6379)
  expect(redisOptions('redis://h').tls).toBeUndefined()
  expect(redisOptions('rediss://u:p@queue.example:6379').tls).toEqual({ servername: 'queue.example' })
  expect(() => redisOptions('http://h')).toThrow()
})

test('the password never reaches a log or /health', () => {
  expect(redact('redis://arbiter:secret@h:1/0')).not.toContain('secret')
  expect(redact('not a url')).toBe('(unreadable url)')
})

test('config: the URL from the file or ARBITER_REDIS_URL; pool.size 0 only with it', () => {
  expect(parseConfig({ queue: { redis_url: 'redis://h' } }, {}, '/d').queue.redis_url).toBe('redis://h')
  expect(parseConfig({}, { ARBITER_REDIS_URL: 'rediss://h' }, '/d').queue.redis_url).toBe('rediss://h')
  expect(() => parseConfig({ queue: { redis_url: 'http://h' } }, {}, '/d')).toThrow(ConfigError)
  expect(() => parseConfig({ pool: { size: 0 } }, {}, '/d')).toThrow(/pool.size 0 needs queue.redis_url/)
  expect(parseConfig({ pool: { size: 0 } }, { ARBITER_REDIS_URL: 'redis://h' }, '/d').pool.size).toBe(0)
})
