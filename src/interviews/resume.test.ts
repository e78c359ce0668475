import { readdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../config.ts'
import { AppError } from '../errors.ts'
import {
  downloadResume,
  type ResumeFetchOptions,
  readStoredResume,
  RESUME_MAX_BYTES,
  signedResumeUrl,
  storeResume,
  verifyResumeSignature,
} from './resume.ts'
import { isRefusedAddress } from '../jobs/outbound-guard.ts'
import { testDeps } from '../testing/interviews.ts'

const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(size - 9, 0x20)])

let server: Server
let base: string
let bytesSentOfEndless = 0
// a second server on another loopback address, the far end of the redirect tests
let other: Server
let otherBase: string

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? ''
    if (url === '/ok.pdf') return res.end(pdf(1000))
    if (url === '/exact.pdf') return res.end(pdf(RESUME_MAX_BYTES))
    if (url === '/over.pdf') return res.end(pdf(RESUME_MAX_BYTES + 1))
    if (url === '/over-chunked.pdf') {
      // no Content-Length: the cap must be found while reading
      res.setHeader('transfer-encoding', 'chunked')
      res.write(pdf(RESUME_MAX_BYTES))
      return res.end('x')
    }
    if (url === '/endless.pdf') {
      res.setHeader('transfer-encoding', 'chunked')
      res.write('%PDF-1.4\n')
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer)
        bytesSentOfEndless += chunk.length
        res.write(chunk)
      }, 1)
      res.on('close', () => clearInterval(timer))
      return
    }
    if (url === '/page.html') return res.end('<html>%PDF-1.4 not really</html>')
    if (url === '/renamed.pdf') return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    if (url === '/empty.pdf') return res.end()
    if (url === '/redirect') return res.writeHead(302, { location: '/ok.pdf' }).end()
    if (url === '/to-other') return res.writeHead(302, { location: `${otherBase}/ok.pdf` }).end()
    if (url === '/loop') return res.writeHead(302, { location: '/loop' }).end()
    if (url === '/slow-headers') return void setTimeout(() => res.end(pdf(100)), 5000)
    if (url === '/stall') {
      res.setHeader('content-length', '5000')
      res.write('%PDF-1.4\n')
      return // never finishes
    }
    if (url === '/reset') {
      res.setHeader('content-length', '5000')
      res.write('%PDF-1.4\n')
      return void setTimeout(() => res.socket?.destroy(), 20)
    }
    res.statusCode = 404
    res.end('not found')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  other = createServer((req, res) => {
    if (req.url === '/ok.pdf') return res.end(pdf(1000))
    // by name: localhost is 127.0.0.1, the first server
    if (req.url === '/to-localhost') return res.writeHead(302, { location: `${base.replace('127.0.0.1', 'localhost')}/ok.pdf` }).end()
    res.statusCode = 404
    res.end()
  })
  await new Promise<void>((r) => other.listen(0, '127.0.0.2', r))
  otherBase = `http://127.0.0.2:${(other.address() as AddressInfo).port}`
})
afterAll(() => {
  for (const s of [server, other]) {
    s.closeAllConnections()
    s.close()
  }
})

async function codeOf(url: string, over: Record<string, unknown> = {}, options: ResumeFetchOptions = {}) {
  const deps = testDeps({ resume_timeout_ms: 1000, ...over })
  try {
    const b = await downloadResume(deps, url, options)
    return `OK ${b.length}`
  } catch (e) {
    if (!(e instanceof AppError)) throw e
    return e.code
  }
}

describe('downloadResume', () => {
  it.each([
    ['/ok.pdf', 'OK 1000'],
    ['/exact.pdf', `OK ${RESUME_MAX_BYTES}`],
    ['/over.pdf', 'INVALIDSIZEERROR'],
    ['/over-chunked.pdf', 'INVALIDSIZEERROR'],
    ['/page.html', 'INVALIDFILETYPEERROR'],
    ['/renamed.pdf', 'INVALIDFILETYPEERROR'],
    ['/empty.pdf', 'INVALIDFILETYPEERROR'],
    ['/missing.pdf', 'INVALIDRESUMEURL'],
    ['/redirect', 'OK 1000'],
    ['/loop', 'INVALIDRESUMEURL'],
    ['/slow-headers', 'INVALIDRESUMEURL'],
    ['/stall', 'UPLOADERROR'],
    ['/reset', 'UPLOADERROR'],
  ])('%s → %s', async (path, want) => expect(await codeOf(base + path)).toBe(want))

  it('stops reading an endless body just past 2 MB', async () => {
    bytesSentOfEndless = 0
    expect(await codeOf(`${base}/endless.pdf`)).toBe('INVALIDSIZEERROR')
    await new Promise((r) => setTimeout(r, 100))
    expect(bytesSentOfEndless).toBeLessThan(RESUME_MAX_BYTES * 4)
  })

  it('cannot reach a closed port', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    expect(await codeOf(`http://127.0.0.1:${port}/x.pdf`)).toBe('INVALIDRESUMEURL')
  })

  it.each([`ftp://example.com/x.pdf`, 'not a url', 'http://nonexistent.invalid/x.pdf'])('refuses %s', async (url) =>
    expect(await codeOf(url)).toBe('INVALIDRESUMEURL')
  )

  it('refuses loopback and private hosts unless allowed (literal, by name)', async () => {
    const guard = { allow_private_resume_hosts: false }
    expect(await codeOf(`${base}/ok.pdf`, guard)).toBe('INVALIDRESUMEURL')
    expect(await codeOf(base.replace('127.0.0.1', 'localhost') + '/ok.pdf', guard)).toBe('INVALIDRESUMEURL')
    expect(await codeOf(base.replace('127.0.0.1', '[::ffff:127.0.0.1]') + '/ok.pdf', guard)).toBe('INVALIDRESUMEURL')
    expect(await codeOf(`http://169.254.169.254/latest/meta-data/`, guard)).toBe('INVALIDRESUMEURL')
    // decimal, octal and hex spellings of 127.0.0.1, IPv4-mapped in hex, NAT64
    const port = base.split(':').at(-1)
    for (const host of ['2130706433', '0177.0.0.1', '0x7f.1', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]']) {
      expect(await codeOf(`http://${host}:${port}/ok.pdf`, guard)).toBe('INVALIDRESUMEURL')
    }
  })

  it('checks every redirect hop: an allowed first hop redirecting to a private address is refused', async () => {
    const guard = { allow_private_resume_hosts: false }
    // the real check, except for the one address of the first hop (a stand-in for a public host)
    const except = (allowed: string): ResumeFetchOptions => ({ isRefusedAddress: (a) => a !== allowed && isRefusedAddress(a) })
    // controls: without the guard both redirects are followed to a PDF, and with it an allowed
    // first hop may redirect within itself
    expect(await codeOf(`${base}/to-other`)).toBe('OK 1000')
    expect(await codeOf(`${otherBase}/to-localhost`)).toBe('OK 1000')
    expect(await codeOf(`${base}/redirect`, guard, except('127.0.0.1'))).toBe('OK 1000')
    // literal: 127.0.0.1 (allowed) → 302 → 127.0.0.2 (loopback, refused)
    expect(await codeOf(`${base}/to-other`, guard, except('127.0.0.1'))).toBe('INVALIDRESUMEURL')
    // by name: 127.0.0.2 (allowed) → 302 → localhost, resolved to 127.0.0.1 (refused)
    expect(await codeOf(`${otherBase}/to-localhost`, guard, except('127.0.0.2'))).toBe('INVALIDRESUMEURL')
  })

  it('refuses a loopback resume_url with the default configuration (the guard is on unless switched off)', async () => {
    const dataDir = join(tmpdir(), 'arbiter-resume-default-config') // never written to
    const config = parseConfig({}, {}, dataDir)
    expect(config.interviews.allow_private_resume_hosts).toBe(false)
    await expect(downloadResume({ config }, `${base}/ok.pdf`)).rejects.toMatchObject({ code: 'INVALIDRESUMEURL' })
    // control: the same URL downloads once the switch is on
    const allowed = parseConfig({ interviews: { allow_private_resume_hosts: true } }, {}, dataDir)
    expect((await downloadResume({ config: allowed }, `${base}/ok.pdf`)).length).toBe(1000)
  })
})

describe('stored resumes and signed links', () => {
  it('stores atomically (no temp file left) and reads back', async () => {
    const deps = testDeps()
    const name = await storeResume(deps.config.dataDir, pdf(100))
    expect(name).toMatch(/^[0-9a-f]{32}\.pdf$/)
    expect(readdirSync(join(deps.config.dataDir, 'resumes'))).toEqual([name])
    expect((await readStoredResume(deps.config.dataDir, name)).length).toBe(100)
    await expect(readStoredResume(deps.config.dataDir, '../config.toml')).rejects.toThrow()
  })

  it('signs links that expire and are bound to the interview and the file', () => {
    const deps = testDeps({ resume_link_ttl_sec: 60 })
    const url = new URL(signedResumeUrl(deps, 'a'.repeat(32), 'f.pdf'))
    expect(url.pathname).toBe(`/partner/service/interviews/${'a'.repeat(32)}/resume/`)
    const expires = url.searchParams.get('expires')!
    const sig = url.searchParams.get('signature')!
    expect(verifyResumeSignature(deps, 'a'.repeat(32), 'f.pdf', expires, sig)).toBe(true)
    expect(verifyResumeSignature(deps, 'b'.repeat(32), 'f.pdf', expires, sig)).toBe(false)
    expect(verifyResumeSignature(deps, 'a'.repeat(32), 'g.pdf', expires, sig)).toBe(false)
    expect(verifyResumeSignature(deps, 'a'.repeat(32), 'f.pdf', String(Number(expires) + 1), sig)).toBe(false)
    expect(verifyResumeSignature(deps, 'a'.repeat(32), 'f.pdf', expires, undefined)).toBe(false)
    deps.advance(61_000)
    expect(verifyResumeSignature(deps, 'a'.repeat(32), 'f.pdf', expires, sig)).toBe(false)
  })
})
