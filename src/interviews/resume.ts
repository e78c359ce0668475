// Candidate resumes: download resume_url once (SSRF guard, deadline, 2 MB cap, PDF by its bytes), store it
// atomically under <data>/resumes/, and sign the URLs B1 hands out for it.
import { eq } from 'drizzle-orm'
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import http from 'node:http'
import https from 'node:https'
import { join } from 'node:path'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { CutOff, readUpTo, TooLarge } from '../http/body.ts'
import { isRefusedAddress, outboundGuard, type OutboundGuard } from '../jobs/outbound-guard.ts'
import { meta } from '../storage/schema.ts'

export const RESUME_MAX_BYTES = 2 * 1024 * 1024
const MAX_REDIRECTS = 3
const PDF_MAGIC = Buffer.from('%PDF-')

const invalidUrl = () => new AppError('INVALIDRESUMEURL')

function get(url: URL, guard: OutboundGuard | undefined, signal: AbortSignal): Promise<http.IncomingMessage> {
  // a literal address skips lookup entirely, so it is checked here; a name through the guard's lookup
  try {
    guard?.checkLiteral(url)
  } catch (err) {
    return Promise.reject(err as Error)
  }
  const lib = url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const req = lib.get(url, {
      ...(guard ? { lookup: guard.lookup as never } : {}),
      signal,
      agent: false,
      headers: { accept: 'application/pdf, */*', 'accept-encoding': 'identity', 'user-agent': 'Arbiter resume fetcher' },
    })
    req.on('response', resolve)
    req.on('error', reject)
  })
}

export interface ResumeFetchOptions {
  /**
   * The SSRF guard's test of an address (literal or resolved), applied on every hop; default
   * isRefusedAddress (jobs/outbound-guard.ts). Only tests pass another, to let one loopback hop through and refuse the next.
   */
  isRefusedAddress?: (address: string) => boolean
}

/** Fetches the resume into memory (≤ 2 MB). Each failure is the spec's ecode. */
export async function downloadResume(
  deps: Pick<Deps, 'config'>,
  resumeUrl: string,
  { isRefusedAddress: refusedAddress = isRefusedAddress }: ResumeFetchOptions = {}
): Promise<Buffer> {
  const { allow_private_resume_hosts: allowPrivate, resume_timeout_ms: timeoutMs } = deps.config.interviews
  const guard = allowPrivate ? undefined : outboundGuard({ refused: refusedAddress })
  const signal = AbortSignal.timeout(timeoutMs)
  let url: URL
  try {
    url = new URL(resumeUrl)
  } catch {
    throw invalidUrl()
  }
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidUrl()
    let res: http.IncomingMessage
    try {
      res = await get(url, guard, signal)
    } catch {
      // refused, unresolvable, private, TLS failure or too slow to answer: not downloadable
      throw invalidUrl()
    }
    const status = res.statusCode ?? 0
    if (status >= 300 && status < 400 && res.headers.location && hop < MAX_REDIRECTS) {
      res.destroy()
      try {
        url = new URL(res.headers.location, url)
      } catch {
        throw invalidUrl()
      }
      continue
    }
    if (status < 200 || status >= 300) {
      res.destroy()
      throw invalidUrl()
    }
    const declared = Number(res.headers['content-length'])
    if (Number.isFinite(declared) && declared > RESUME_MAX_BYTES) {
      res.destroy()
      throw new AppError('INVALIDSIZEERROR')
    }
    const body = await readResume(res)
    if (body.length < PDF_MAGIC.length || !body.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
      throw new AppError('INVALIDFILETYPEERROR')
    }
    return body
  }
}

/** The body, stopping as soon as it passes RESUME_MAX_BYTES (the rest is never read). */
async function readResume(res: http.IncomingMessage): Promise<Buffer> {
  let body: Buffer
  try {
    body = await readUpTo(res, RESUME_MAX_BYTES)
  } catch (err) {
    if (err instanceof TooLarge) throw new AppError('INVALIDSIZEERROR')
    // the transfer broke off (reset, deadline): the download itself failed
    if (err instanceof CutOff) throw new AppError('UPLOADERROR')
    throw err
  }
  if (!res.complete) throw new AppError('UPLOADERROR')
  return body
}

// ── storage ────────────────────────────────────────────────────────────────────────────────────────

const resumeDir = (dataDir: string) => join(dataDir, 'resumes')

/** Writes the file under a fresh name (temp file, fsync, rename) and returns the name. */
export async function storeResume(dataDir: string, bytes: Buffer): Promise<string> {
  const dir = resumeDir(dataDir)
  const name = `${randomUUID().replace(/-/g, '')}.pdf`
  const tmp = join(dir, `.tmp-${name}`)
  try {
    await mkdir(dir, { recursive: true })
    const fh = await open(tmp, 'wx', 0o600)
    try {
      await fh.writeFile(bytes)
      await fh.datasync()
    } finally {
      await fh.close()
    }
    await rename(tmp, join(dir, name))
    return name
  } catch {
    await rm(tmp, { force: true }).catch(() => {})
    throw new AppError('UPLOADERROR')
  }
}

const SAFE_NAME = /^[0-9a-f]{32}\.pdf$/

export async function readStoredResume(dataDir: string, name: string): Promise<Buffer> {
  if (!SAFE_NAME.test(name)) throw new Error(`bad resume file name ${name}`)
  return readFile(join(resumeDir(dataDir), name))
}

export async function removeResume(dataDir: string, name: string | null): Promise<void> {
  if (!name || !SAFE_NAME.test(name)) return
  await rm(join(resumeDir(dataDir), name), { force: true }).catch(() => {})
}

// ── signed links ───────────────────────────────────────────────────────────────────────────────────

const KEY = 'resume_link_key'

/** The installation's signing key, made on first use and kept in the meta table. */
function signingKey(deps: Pick<Deps, 'db' | 'now'>): Buffer {
  deps.db
    .insert(meta)
    .values({ key: KEY, value: randomBytes(32).toString('base64'), updatedAt: deps.now() })
    .onConflictDoNothing()
    .run()
  const row = deps.db.select().from(meta).where(eq(meta.key, KEY)).get()
  return Buffer.from(row!.value, 'base64')
}

const sign = (key: Buffer, interviewId: string, fileName: string, expires: number) =>
  createHmac('sha256', key).update(`${interviewId}\n${fileName}\n${expires}`).digest('base64url')

/** A URL of this server that serves the stored resume until it expires (the file name is signed too). */
export function signedResumeUrl(deps: Pick<Deps, 'db' | 'now' | 'config'>, interviewId: string, fileName: string): string {
  const expires = Math.floor(deps.now().getTime() / 1000) + deps.config.interviews.resume_link_ttl_sec
  const signature = sign(signingKey(deps), interviewId, fileName, expires)
  return `${deps.config.server.public_url}/partner/service/interviews/${interviewId}/resume/?expires=${expires}&signature=${signature}`
}

export function verifyResumeSignature(
  deps: Pick<Deps, 'db' | 'now'>,
  interviewId: string,
  fileName: string,
  expires: string | undefined,
  signature: string | undefined
): boolean {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false
  if (Number(expires) * 1000 < deps.now().getTime()) return false
  const want = Buffer.from(sign(signingKey(deps), interviewId, fileName, Number(expires)))
  const got = Buffer.from(signature)
  return want.length === got.length && timingSafeEqual(want, got)
}
