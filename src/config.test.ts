import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { configTable, ConfigError, loadConfig } from './config.ts'

const made: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-config-'))
  made.push(dir)
  return dir
}
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

describe('loadConfig', () => {
  it('writes a commented default config.toml when absent, and reads it back', () => {
    const dir = freshDir()
    const cfg = loadConfig({ ARBITER_DATA: dir })
    const text = readFileSync(join(dir, 'config.toml'), 'utf8')
    expect(text).toMatch(/^# Address the HTTP server listens on\./m)
    expect(text).toMatch(/^\[limits\]$/m)
    expect(cfg.dataDir).toBe(dir)
    expect(cfg.limits.max_time_sec).toBe(5)
    expect(cfg.limits.max_memory_kb).toBe(262144)
    expect(loadConfig({ ARBITER_DATA: dir })).toEqual(cfg)
  })

  it('lets PORT and ARBITER_PUBLIC_URL override the file', () => {
    const dir = freshDir()
    writeFileSync(join(dir, 'config.toml'), '[server]\nport = 9000\npublic_url = "http://file.example"\n')
    const cfg = loadConfig({ ARBITER_DATA: dir, PORT: '9123', ARBITER_PUBLIC_URL: 'http://127.0.0.1:9123/' })
    expect(cfg.server.port).toBe(9123)
    expect(cfg.server.public_url).toBe('http://127.0.0.1:9123')
  })

  it('points the default public URL at the port the server listens on (PORT or server.port)', () => {
    const fresh = freshDir()
    expect(loadConfig({ ARBITER_DATA: fresh }).server.public_url).toBe('http://localhost:8080')
    // the default file written above leaves public_url unset: PORT alone moves every link
    expect(loadConfig({ ARBITER_DATA: fresh, PORT: '9321' }).server.public_url).toBe('http://localhost:9321')
    const dir = freshDir()
    writeFileSync(join(dir, 'config.toml'), '[server]\nport = 9000\n')
    expect(loadConfig({ ARBITER_DATA: dir }).server.public_url).toBe('http://localhost:9000')
    // a file written before (public_url = the old default) follows the port too
    writeFileSync(join(dir, 'config.toml'), '[server]\nport = 9000\npublic_url = "http://localhost:8080"\n')
    expect(loadConfig({ ARBITER_DATA: dir }).server.public_url).toBe('http://localhost:9000')
    writeFileSync(join(dir, 'config.toml'), '[server]\nport = 9000\npublic_url = "https://judge.example/"\n')
    expect(loadConfig({ ARBITER_DATA: dir }).server.public_url).toBe('https://judge.example')
  })

  it.each([
    ['[server]\nport = "eighty"\n', /server\.port/],
    ['[limits]\nmax_time_sec = -1\n', /limits\.max_time_sec/],
    ['[server]\nprot = 80\n', /prot/],
    ['[nonsense]\nx = 1\n', /nonsense/],
    ['[server\n', /not valid TOML/],
  ])('refuses %j naming the key', (toml, key) => {
    const dir = freshDir()
    writeFileSync(join(dir, 'config.toml'), toml)
    expect(() => loadConfig({ ARBITER_DATA: dir })).toThrow(ConfigError)
    expect(() => loadConfig({ ARBITER_DATA: dir })).toThrow(key)
  })

  it('refuses a bad PORT from the environment', () => {
    expect(() => loadConfig({ ARBITER_DATA: freshDir(), PORT: 'x' })).toThrow(/server\.port/)
  })
})

describe('docs/admin/configuration.md', () => {
  it('shows the configuration table generated from the schema (npx tsx scripts/config-table.ts --write)', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'docs', 'admin', 'configuration.md'), 'utf8')
    expect(readme).toContain(configTable())
  })
})
