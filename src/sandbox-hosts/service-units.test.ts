// The service units as setup.sh installs them (placeholders filled in), checked by systemd's own
// `systemd-analyze verify`; and install-worker.sh's side of `setup.sh --worker` without starting.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'arbiter-units-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('every unit passes systemd-analyze verify', () => {
  const units = readdirSync(join(ROOT, 'scripts', 'systemd')).filter((f) => f.endsWith('.service'))
  expect(units).toContain('arbiter-worker.service')
  for (const unit of units) {
    const text = readFileSync(join(ROOT, 'scripts', 'systemd', unit), 'utf8').replaceAll('@ROOT@', ROOT).replaceAll('@DATA@', join(dir, 'data'))
    writeFileSync(join(dir, unit), text)
    const r = spawnSync('systemd-analyze', ['verify', join(dir, unit)], { encoding: 'utf8' })
    expect(r.error, 'systemd-analyze (Debian package systemd) is needed').toBeUndefined()
    expect(`${r.stdout}${r.stderr}`, unit).toBe('')
    expect(r.status, unit).toBe(0)
  }
})

test('install-worker.sh --no-start: a root-only data directory and the Redis URL in a 0600 env file; no URL at all is refused', () => {
  const data = join(dir, 'worker-data')
  const envFile = join(dir, 'etc', 'worker.env')
  const env = { ...process.env, ARBITER_DATA: data, ARBITER_WORKER_ENV: envFile }
  const refused = spawnSync('bash', ['scripts/install-worker.sh', '--no-start'], { cwd: ROOT, env, encoding: 'utf8' })
  expect(refused.status).toBe(1)
  expect(refused.stderr).toMatch(/no Redis URL: set ARBITER_REDIS_URL/)
  execFileSync('bash', ['scripts/install-worker.sh', '--no-start'], { cwd: ROOT, env: { ...env, ARBITER_REDIS_URL: 'redis://arbiter:pw@10.0.0.5:6379' }, stdio: 'pipe' })
  expect(readFileSync(envFile, 'utf8')).toBe('ARBITER_REDIS_URL=redis://arbiter:pw@10.0.0.5:6379\n')
  expect(statSync(envFile).mode & 0o777).toBe(0o600)
  expect(statSync(data).mode & 0o777).toBe(0o700)
  expect(statSync(data).uid).toBe(0)
})

test('the jail daemon of an API host with pool.size 0 idles (its unit stays up) and stops on SIGTERM', async () => {
  const { spawn } = await import('node:child_process')
  const data = join(dir, 'api-data')
  execFileSync('mkdir', ['-p', data])
  writeFileSync(join(data, 'config.toml'), '[pool]\nsize = 0\n[queue]\nredis_url = "redis://127.0.0.1:1"\n', { mode: 0o640 })
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/jail-daemon.ts'], { cwd: ROOT, env: { ...process.env, ARBITER_DATA: data }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stderr.on('data', (d) => (out += d))
  child.stdout.on('data', (d) => (out += d))
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const until = Date.now() + 20_000
  while (!out.includes('the jail daemon idles') && Date.now() < until && child.exitCode === null) await new Promise((r) => setTimeout(r, 50))
  expect(out).toContain('the jail daemon idles')
  await new Promise((r) => setTimeout(r, 500))
  expect(child.exitCode).toBeNull()
  child.kill('SIGTERM')
  expect(await exit).toBe(0)
}, 30_000)
