// The Jobe API (Jobe 2.2.x as Moodle CodeRunner and Jobe's testsubmit.py use it), at exactly
// /jobe/index.php/restapi/: GET languages, POST runs, PUT and HEAD files/{id}, OPTIONS (CORS
// preflight); anything else under the prefix is a 404. X-API-KEY holds an Arbiter client secret.
// A run is answered when it is done, but goes through the same durable queue, pool and jail as
// everything else; one that cannot start within jobe.wait_timeout_sec answers outcome 21.
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { Hono, type Context, type MiddlewareHandler } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError, coreAnswer, type CoreErrorCode } from '../errors.ts'
import { findClientBySecret } from '../clients/clients.ts'
import { evaluateWithin, type SubmissionInput } from '../evaluation/submissions.ts'
import { parseBoundedJson, rawBody } from '../http/body.ts'
import { documented } from '../http/route-docs.ts'
import { offeredLanguage, recordedVersions } from '../languages.ts'
import type { Log } from '../log.ts'
import { storageAppError } from '../storage/faults.ts'
import { createFileCache, FileTooLarge, isFileId, type FileCache, type FileCacheLimits } from './file-cache.ts'
import { JOBE_STACK_BYTES, jobeLanguages, type JobeLanguage } from './languages.ts'
import { jobeDocs } from './openapi-docs.ts'
import { jobeResult, overloadResult } from './outcome.ts'
import { MISSING_FILES, runFiles } from './run-files.ts'
import type { LinkedFile } from '../evaluation/job-spec.ts'
import { JobeError, parseRunSpec, type JobeRun } from './run-spec.ts'

export const JOBE_PREFIX = '/jobe/index.php/restapi'
/** Jobe's MB of streamsize and memorylimit: runguard's kB (x 1000), each 1024 bytes. */
export const JOBE_MB_BYTES = 1_024_000
/** Jobe's default streamsize (LanguageTask's default_params): 2,048,000 bytes of each stream. */
const JOBE_STREAMSIZE_MB = 2
/** Jobe's test hook (LanguageTask.php): this source answers outcome 21 without running. */
export const OVERLOAD_TEST_SOURCE = '!** TESTING OVERLOAD EXCEPTION **!'

// Jobe's own CORS headers (MY_cors_helper.php): CodeRunner's browser-side checks may call it directly
const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'X-API-KEY, Origin, X-Requested-With, Content-Type, Accept, Access-Control-Request-Method',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS, PUT, HEAD, DELETE',
}

type JobeStatus = 400 | 401 | 403 | 404 | 413 | 500 | 503
/** Each core code's Jobe status; 500 is our own fault, answered without detail. */
const JOBE_STATUS: Record<CoreErrorCode, JobeStatus> = {
  UnknownClient: 403,
  QuotaExceeded: 401,
  PayloadTooLarge: 413,
  NotFound: 404,
  InvalidArgument: 400,
  ArgumentMissing: 400,
  LanguageNotSupported: 400,
  MethodNotAllowed: 400,
  // the run route answers a full queue with Jobe's overload outcome (21), a 200; a file PUT whose body
  // its address's other bodies still arriving left no room for (http/body-budget.ts): try later
  QueueFull: 503,
  SandboxUnavailable: 500,
  // a full or unwritable data disk (a file PUT): try later, the cause named; a run answers outcome 21
  StorageUnavailable: 503,
  Unexpected: 500,
  Internal: 500,
}

/** THE map of every refusal to Jobe's status and JSON string body (never a stack trace). */
export function jobeErrorBody(err: unknown): { status: JobeStatus; body: string } {
  if (err instanceof JobeError) return { status: err.status, body: err.message }
  const status = err instanceof AppError ? coreAnswer(JOBE_STATUS, err.code) : undefined
  if (!status || status === 500) return { status: 500, body: 'Server exception (something went wrong on our side)' }
  return { status, body: status === 401 ? 'API usage quota exceeded' : (err as AppError).message }
}

const jobeError = (log: Log) => (thrown: Error, c: Context) => {
  const err = storageAppError(thrown, log, { method: c.req.method, path: c.req.path }) ?? thrown
  const { status, body } = jobeErrorBody(err)
  if (status === 500) log.error('jobe: unhandled', { path: c.req.path, err: String(err), stack: err.stack })
  const retry: Record<string, string> =
    err instanceof AppError && (err.code === 'StorageUnavailable' || err.code === 'QueueFull') ? { 'Retry-After': String(err.data.retry_after) } : {}
  return c.json(body, status, { ...CORS, ...retry })
}

/** X-API-KEY: a client secret; missing or unknown (or revoked): 403, as Jobe answers. */
function apiKey(deps: Pick<Deps, 'db'>): MiddlewareHandler {
  return async (c, next) => {
    const key = c.req.header('x-api-key')?.trim()
    if (!key) throw new JobeError(403, 'Missing API key')
    const client = findClientBySecret(deps.db, key)
    if (!client) throw new JobeError(403, 'Unknown API key')
    c.set('client', client)
    await next()
  }
}

/** The core's submission for a Jobe run: Jobe's commands as argv, its limits as the job's. */
export function submissionOf(deps: Pick<Deps, 'config'>, run: JobeRun, files: LinkedFile[]): SubmissionInput {
  const { config } = deps
  const { language: l, sourceFileName: src } = run
  // the syntax check in the run's own process when the language can (one jailed step, not two)
  const marker = randomBytes(12).toString('hex')
  const checkAndRun = l.checkAndRun?.(src, run.args, marker)
  const compileArgv = checkAndRun ? [] : l.compile(src, run.args)
  return {
    api: 'jobe',
    lang: l.code,
    source: run.source,
    input: run.input,
    timeLimit: run.cputime,
    maxTimeSec: config.jobe.max_cpu_time_sec,
    // the jail's own memory cap, the Jobe API's own (above Jobe's address-space defaults): Jobe's
    // memorylimit is an address-space limit under it, which decides as on Jobe
    memoryLimit: config.jobe.max_memory_kb,
    maxMemoryKb: config.jobe.max_memory_kb,
    // a request as large as a native Jobe takes (its body is bounded by jobe.request_max_bytes)
    sourceMaxBytes: config.jobe.request_max_bytes,
    inputMaxBytes: config.jobe.request_max_bytes,
    // Jobe kills a run at twice its CPU time
    wallTimeSec: run.cputime * 2,
    // Jobe's MB are runguard's kB x 1000, and its kB are 1024 bytes
    ...(run.memorylimit > 0 && { addressSpaceKb: run.memorylimit * 1000 }),
    // absent: the toolchain's own process limit (a JVM needs its threads)
    ...(run.numprocs !== undefined && { processes: run.numprocs }),
    // runguard keeps streamsize's worth of each stream, drops the rest and lets the program run on;
    // here the program may write up to jobe.output_max_bytes (past it: stopped, 13) and the reply
    // keeps the head
    outputMaxBytes: config.jobe.output_max_bytes,
    outputBytes: config.jobe.output_max_bytes,
    outputKeptBytes: Math.min(Math.round((run.streamsize > 0 ? run.streamsize : JOBE_STREAMSIZE_MB) * JOBE_MB_BYTES), config.jobe.stream_max_bytes),
    linkedFiles: files,
    sourceFileName: src,
    // absent: the manifest's own compile step
    ...(compileArgv && { compileArgv }),
    runArgv: checkAndRun ?? l.run(src, run.args),
    ...(checkAndRun && { compileCheckMarker: marker }),
    ...(l.jobeStack && { stackKb: JOBE_STACK_BYTES / 1024 }),
    compileStderrFails: l.compileStderrFails,
    outputEncoding: 'latin1',
  }
}

/** The store's caps, read from the config at each use. */
export const fileCacheLimits = (config: Deps['config']) => (): FileCacheLimits => ({
  clientFiles: config.jobe.file_cache_files,
  clientBytes: config.jobe.file_cache_bytes,
  totalFiles: config.jobe.file_store_files,
  totalBytes: config.jobe.file_store_bytes,
  ttlMs: config.jobe.file_ttl_hours * 3_600_000,
})

export function jobeRoutes(deps: Deps, cache: FileCache = createFileCache(join(deps.config.dataDir, 'jobe-files'), fileCacheLimits(deps.config))): Hono {
  const app = new Hono()
  const { config } = deps
  const auth = apiKey(deps)
  const version = (code: string) => recordedVersions(config.paths.toolchains)[code]?.version ?? 'unknown'
  const languages = jobeLanguages(deps.languages)
  const offered = (l: JobeLanguage) => offeredLanguage(deps.languages, config, l.code).ok
  const find = (name: string) => languages.find((l) => l.name === name && offered(l))
  const notFound = (c: Context) => c.json('Not found', 404, CORS)

  app.use(`${JOBE_PREFIX}/*`, async (c, next) => {
    await next()
    for (const [k, v] of Object.entries(CORS)) if (!c.res.headers.has(k)) c.res.headers.set(k, v)
  })

  // OPTIONS /jobe/index.php/restapi/* (CORS preflight)
  app.options(`${JOBE_PREFIX}/*`, documented({ tags: ['jobe'], summary: 'CORS preflight', responses: { 204: { description: 'Allowed' } } }, (c: Context) => c.body(null, 204, CORS)))

  // GET /jobe/index.php/restapi/languages
  app.get(`${JOBE_PREFIX}/languages`, auth, documented(jobeDocs.languages, (c: Context) => c.json(languages.filter(offered).map((l) => [l.name, version(l.code)]), 200, CORS)))

  // POST /jobe/index.php/restapi/runs
  app.post(`${JOBE_PREFIX}/runs`, auth, documented(jobeDocs.runs, async (c: Context) => {
    // JSON whatever the Content-Type, as Jobe reads it
    // as large as a native Jobe takes (PHP's post_max_size): a 300 KB combinator source, MBs of stdin
    let raw: Uint8Array
    try {
      raw = await rawBody(c, config.jobe.request_max_bytes)
    } catch (err) {
      // the bodies its address is still sending hold their share (http/body-budget.ts): overload, as below
      if (err instanceof AppError && err.code === 'QueueFull') return c.json(overloadResult(), 200, { ...CORS, 'Retry-After': String(err.data.retry_after) })
      throw err
    }
    let body: unknown
    try {
      body = parseBoundedJson(new TextDecoder().decode(raw))
    } catch {
      throw new JobeError(400, 'Non-JSON post data received')
    }
    const run = parseRunSpec(body, config.jobe.max_cpu_time_sec, find)
    const client = c.var.client
    // counted and summed from the store's index before a byte is read (run-files.ts)
    const files = runFiles(cache, client.id, run.files, config.limits)
    if (run.source === OVERLOAD_TEST_SOURCE) return c.json(overloadResult(), 200, CORS)
    let evaluated: Awaited<ReturnType<typeof evaluateWithin>>
    try {
      evaluated = await evaluateWithin(deps, client, submissionOf(deps, run, files), config.jobe.wait_timeout_sec * 1000)
    } catch (err) {
      // this client's queue is full (evaluation.max_queued_per_client): Jobe's own word for it is
      // outcome 21, server overload, which CodeRunner shows as "try again later" (a 429 would read to it
      // as a broken server); Retry-After says when, as the other APIs' 429s do
      if (err instanceof AppError && err.code === 'QueueFull') return c.json(overloadResult(), 200, { ...CORS, 'Retry-After': String(err.data.retry_after) })
      // an upload evicted between file_list's check and the accept's link: as if never uploaded
      if (err instanceof AppError && err.code === 'NotFound') throw new JobeError(404, MISSING_FILES)
      // the data disk full or unwritable: the same overload outcome, its cause in stderr
      const fault = storageAppError(err, deps.log, { path: c.req.path })
      if (fault) return c.json({ ...overloadResult(), stderr: fault.message }, 200, { ...CORS, 'Retry-After': String(fault.data.retry_after) })
      throw err
    }
    return c.json(evaluated.withdrawn ? overloadResult() : jobeResult(evaluated.row, run.language), 200, CORS)
  }))

  // PUT /jobe/index.php/restapi/files/{id}
  app.put(`${JOBE_PREFIX}/files/:id`, auth, documented(jobeDocs.putFile, async (c: Context) => {
    const id = c.req.param('id') ?? ''
    if (!isFileId(id)) return notFound(c)
    const max = config.jobe.file_max_bytes
    const raw = await rawBody(c, Math.ceil((max * 4) / 3) + 4096)
    let body: unknown
    try {
      body = parseBoundedJson(new TextDecoder().decode(raw))
    } catch {
      body = undefined
    }
    const b64 = (body as { file_contents?: unknown } | undefined)?.file_contents
    if (typeof b64 !== 'string') throw new JobeError(400, 'put: missing file_contents parameter')
    const clean = b64.replace(/\s+/g, '')
    if (clean.length % 4 === 1 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) throw new JobeError(400, `put: contents of file ${id} are not valid base-64`)
    const content = Buffer.from(clean, 'base64')
    if (content.length > max) throw new JobeError(413, `put: file ${id} is larger than ${max} bytes`)
    try {
      cache.put(c.var.client.id, id, content)
    } catch (err) {
      if (err instanceof FileTooLarge) throw new JobeError(413, `put: file ${id} is ${err.message}`)
      throw err
    }
    return c.body(null, 204, CORS)
  }))

  // HEAD /jobe/index.php/restapi/files/{id} (hono answers HEAD with the GET route, less the body)
  app.get(`${JOBE_PREFIX}/files/:id`, auth, documented(jobeDocs.headFile, (c: Context) => {
    if (c.req.method !== 'HEAD') return notFound(c)
    const id = c.req.param('id') ?? ''
    return c.body(null, isFileId(id) && cache.has(c.var.client.id, id) ? 204 : 404, CORS)
  }))

  app.all(JOBE_PREFIX, notFound)
  app.all(`${JOBE_PREFIX}/*`, notFound)
  return app.onError(jobeError(deps.log))
}
