// Judge0 CE 1.13.1's API under /judge0: submissions (one, batch), languages, statuses, about,
// config_info, system_info, workers, authenticate/authorize. Every route needs X-Auth-Token (an
// Arbiter client secret, as a header or a query parameter, the two places Judge0 reads it).
import { cpus, totalmem, freemem, arch } from 'node:os'
import { Hono, type Context, type MiddlewareHandler } from 'hono'
import type { Deps } from '../deps.ts'
import { isAppError } from '../errors.ts'
import { findClientBySecret } from '../clients/clients.ts'
import { readBody } from '../http/body.ts'
import { documented } from '../http/route-docs.ts'
import { submissions } from '../storage/schema.ts'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { badRequest, forbidden, Judge0Reply, judge0Error, notFound, unauthorized } from './errors.ts'
import { batchReply, boundedCompleted, boundedSubmissions, jsonParts } from './bounded-reply.ts'
import { judge0Docs } from './openapi-docs.ts'
import { NOT_UTF8_BATCH_ERROR, NOT_UTF8_ERROR, NotUtf8, requestedFields, type Field } from './replies.ts'
import { checkContext, createSubmission, JUDGE0, judge0Language, judge0Languages, judge0Ranges } from './service.ts'
import { STATUSES } from './statuses.ts'
import { checkSubmission, defaultsFor } from './validate.ts'

/** The API version served; the official SDK resolves its language aliases by it. */
export const JUDGE0_VERSION = '1.13.1'
export const MAX_BATCH = 20

/**
 * GET /isolate: Judge0 answers `isolate --version` as text. Programs here never run in isolate, so the
 * text says what they run in instead (a client that shows it tells the truth).
 */
export const ISOLATE_TEXT = [
  'Arbiter jail (no isolate here): programs run in nsjail under a privilege-separated supervisor',
  'Sandbox: Linux namespaces, cgroup limits (memory, pids), CPU and wall time kept by the supervisor, a seccomp allow-list, no network',
  'Limits: per program (enable_per_process_and_thread_* are refused); GET /config_info shows the ranges',
  '',
].join('\n')

/** GET /license: Judge0 answers its own license as text. This server is not Judge0, so it says whose it is. */
export const LICENSE_TEXT = [
  'Arbiter: a self-hosted code evaluation appliance serving the Judge0 CE 1.13.1 API under /judge0.',
  '',
  "Arbiter is its own software, not Judge0: it contains none of Judge0's code, and Judge0's license",
  '(GNU GPL v3, which covers Judge0 itself) is not the license of this server. For the terms this',
  'server is run under, ask its operator.',
  '',
].join('\n')

function auth(deps: Pick<Deps, 'db'>): MiddlewareHandler {
  return async (c, next) => {
    const secret = (c.req.header('x-auth-token') ?? c.req.query('X-Auth-Token') ?? '').trim()
    const client = secret ? findClientBySecret(deps.db, secret) : undefined
    if (!client) throw unauthorized()
    c.set('client', client)
    await next()
  }
}

const isTrue = (v: string | undefined) => v === 'true'

function fieldsOf(c: Context): readonly Field[] {
  const r = requestedFields(c.req.query('fields'))
  if (!r.ok) throw badRequest(r.error)
  return r.fields
}

export function judge0Routes(deps: Deps): Hono {
  const app = new Hono()
  app.use(auth(deps))
  // the bytes of its strings reach the jail as sent: a body that is not UTF-8 is refused, never patched
  const body = readBody(deps.config.server.body_limit_bytes, { strictUtf8: true })

  // POST /judge0/submissions
  app.post('/submissions', body, documented(judge0Docs.create, async (c: Context) => {
    const fields = fieldsOf(c)
    const base64 = isTrue(c.req.query('base64_encoded'))
    const wait = isTrue(c.req.query('wait'))
    const checked = await checkSubmission(c.var.body, base64, checkContext(deps))
    if (!checked.ok) return c.json(checked.errors, 422)
    const name = judge0Language(deps, checked.input.languageId)!.described.name
    const { row, done } = await createSubmission(deps, c.var.client, checked.input, name, wait)
    if (!wait) return c.json({ token: row.publicId }, 201)
    try {
      // not done within judge0.wait_max_sec: whatever the fields, its token and status, so the client can tell and poll
      const budget = deps.config.judge0.reply_max_bytes
      // done: the completed row is in hand; not done: read again, it may have moved on since it was accepted
      const part = done
        ? await boundedCompleted(row, fields, base64, budget)
        : (await boundedSubmissions(deps, c.var.client, [row.publicId], [...fields, 'token', 'status'], base64, budget)).parts[0]!
      return jsonParts([part], 201)
    } catch (err) {
      // the submission was made: its token goes back with why it cannot be shown, so the client can read it another way
      if (err instanceof NotUtf8) return c.json({ error: NOT_UTF8_ERROR, token: row.publicId }, 201)
      if (err instanceof Judge0Reply && err.status === 413) return c.json({ ...(err.body as object), token: row.publicId }, 201)
      throw err
    }
  }))

  // GET /judge0/submissions: Judge0 lists every submission to its administrator only
  app.get('/submissions', documented(judge0Docs.index, () => {
    throw forbidden()
  }))

  // POST /judge0/submissions/batch
  app.post('/submissions/batch', body, documented(judge0Docs.batchCreate, async (c: Context) => {
    const base64 = isTrue(c.req.query('base64_encoded'))
    const list = (c.var.body as { submissions?: unknown }).submissions
    const items = Array.isArray(list) ? list : []
    if (items.length > MAX_BATCH) throw badRequest(`number of submissions in a batch should be less than or equal to ${MAX_BATCH}`)
    if (items.length === 0) throw badRequest('there should be at least one submission in a batch')
    const ctx = checkContext(deps)
    const out: unknown[] = []
    let created = false
    let overQuota = false
    // each item answered on its own, as Judge0's batch_create does (a token, or why it was refused):
    // an item past the client's quota or queue cap is refused alone, and every item stored (counted,
    // and run) has its token in the answer
    for (const item of items) {
      const checked = await checkSubmission(item, base64, ctx)
      if (!checked.ok) {
        out.push(checked.errors)
        continue
      }
      const name = judge0Language(deps, checked.input.languageId)!.described.name
      try {
        const { row } = await createSubmission(deps, c.var.client, checked.input, name, false)
        out.push({ token: row.publicId })
        created = true
      } catch (err) {
        // the client's queue filled up or its quota ran out part-way: the items already stored keep their
        // tokens, the rest say so
        if (!(isAppError(err) && (err.code === 'QueueFull' || err.code === 'QuotaExceeded'))) throw err
        if (err.code === 'QueueFull') c.header('Retry-After', String(err.data.retry_after))
        else overQuota = true
        out.push({ error: err.detail })
      }
    }
    // Judge0: 201 when any item was stored, else 422; none stored because the quota is used up is the
    // 429 a single submission gets, with the same per-item body
    return c.json(out, created ? 201 : overQuota ? 429 : 422)
  }))

  // GET /judge0/submissions/batch?tokens=…
  app.get('/submissions/batch', documented(judge0Docs.batchShow, async (c: Context) => {
    const fields = fieldsOf(c)
    const base64 = isTrue(c.req.query('base64_encoded'))
    // Ruby's split(","): trailing empty strings dropped
    const tokens = (c.req.header('tokens') ?? c.req.query('tokens') ?? '').trim().split(',')
    while (tokens.length && tokens[tokens.length - 1] === '') tokens.pop()
    if (tokens.length > MAX_BATCH) throw badRequest(`number of submissions in a batch should be less than or equal to ${MAX_BATCH}`)
    if (tokens.length === 0) throw badRequest('there should be at least one submission in a batch')
    try {
      // the reply's size is bounded before it is built (bounded-reply.ts): a token named 20 times is read once
      return await batchReply(deps, c.var.client, tokens, fields, base64, deps.config.judge0.reply_max_bytes)
    } catch (err) {
      if (err instanceof NotUtf8) throw badRequest(NOT_UTF8_BATCH_ERROR)
      throw err
    }
  }))

  // GET /judge0/submissions/{token}
  app.get('/submissions/:token', documented(judge0Docs.show, async (c: Context) => {
    const fields = fieldsOf(c)
    try {
      const [part] = (await boundedSubmissions(deps, c.var.client, [c.req.param('token') ?? ''], fields, isTrue(c.req.query('base64_encoded')), deps.config.judge0.reply_max_bytes)).parts
      if (!part) throw notFound()
      return jsonParts([part])
    } catch (err) {
      if (err instanceof NotUtf8) throw badRequest(NOT_UTF8_ERROR)
      throw err
    }
  }))

  // DELETE /judge0/submissions/{token}: an administrator route of Judge0
  app.delete('/submissions/:token', documented(judge0Docs.destroy, () => {
    throw forbidden()
  }))

  // GET /judge0/languages
  app.get('/languages', documented(judge0Docs.languages, (c) => c.json(judge0Languages(deps).map((l) => ({ id: l.id, name: l.name })))))
  // GET /judge0/languages/all
  app.get('/languages/all', documented(judge0Docs.languagesAll, (c) => c.json(judge0Languages(deps).map((l) => ({ id: l.id, name: l.name, is_archived: l.is_archived })))))
  // GET /judge0/languages/{id}
  app.get('/languages/:id', documented(judge0Docs.language, (c) => {
    const id = c.req.param('id') ?? ''
    const found = /^\d+$/.test(id) ? judge0Language(deps, Number(id)) : undefined
    if (!found) throw notFound()
    return c.json(found.described)
  }))

  // GET /judge0/statuses
  app.get('/statuses', documented(judge0Docs.statuses, (c) => c.json(STATUSES)))

  // GET /judge0/about
  app.get('/about', documented(judge0Docs.about, (c) => {
    const site = deps.config.server.public_url || new URL(c.req.url).origin
    return c.json({ version: JUDGE0_VERSION, homepage: `${site}/docs`, source_code: `${site}/openapi.json`, maintainer: 'Arbiter (Judge0 CE 1.13.1 API)' })
  }))
  // GET /judge0/version
  app.get('/version', documented(judge0Docs.version, (c) => c.text(JUDGE0_VERSION)))

  // GET /judge0/isolate
  app.get('/isolate', documented(judge0Docs.isolate, (c) => c.text(ISOLATE_TEXT)))
  // GET /judge0/license
  app.get('/license', documented(judge0Docs.license, (c) => c.text(LICENSE_TEXT)))

  // GET /judge0/config_info
  app.get('/config_info', documented(judge0Docs.configInfo, (c) => c.json(configInfo(deps))))

  // GET /judge0/system_info
  app.get('/system_info', documented(judge0Docs.systemInfo, (c) => c.json(systemInfo())))

  // GET /judge0/workers
  app.get('/workers', documented(judge0Docs.workers, (c) => {
    const waiting = deps.db
      .select({ n: sql<number>`count(*)` })
      .from(submissions)
      .where(and(eq(submissions.state, 'queued'), inArray(submissions.api, [JUDGE0])))
      .get()?.n ?? 0
    const size = deps.pool.size
    const busy = Math.min(size, deps.pool.busy)
    return c.json([{ queue: JUDGE0_VERSION, size: waiting, available: size, idle: size - busy, working: busy, paused: 0, failed: 0 }])
  }))

  // POST /judge0/authenticate
  app.post('/authenticate', documented(judge0Docs.authenticate, (c) => c.body(null, 200)))
  // POST /judge0/authorize: no administrator token exists here
  app.post('/authorize', documented(judge0Docs.authorize, () => {
    throw forbidden()
  }))

  // an unknown path under /judge0 answers as Rails does (the app's own 404 body is HackerEarth's)
  app.all('*', () => {
    throw notFound()
  })
  return app.onError(judge0Error(deps.log))
}

/** Judge0's config_info attributes, with this server's values. */
export function configInfo(deps: Pick<Deps, 'config'>) {
  const r = judge0Ranges(deps.config)
  const d = defaultsFor(r)
  return {
    maintenance_mode: false,
    enable_wait_result: true,
    enable_compiler_options: true,
    allowed_languages_for_compile_options: [] as string[],
    enable_command_line_arguments: true,
    enable_submission_delete: false,
    enable_callbacks: true,
    callbacks_max_tries: deps.config.outbox.max_attempts,
    callbacks_timeout: deps.config.outbox.timeout_ms / 1000,
    enable_additional_files: true,
    max_queue_size: 100,
    cpu_time_limit: d.cpuTimeLimit,
    max_cpu_time_limit: r.maxCpuTimeLimit,
    cpu_extra_time: d.cpuExtraTime,
    max_cpu_extra_time: r.maxCpuExtraTime,
    wall_time_limit: d.wallTimeLimit,
    max_wall_time_limit: r.maxWallTimeLimit,
    memory_limit: d.memoryLimit,
    max_memory_limit: r.maxMemoryLimit,
    stack_limit: d.stackLimit,
    max_stack_limit: r.maxStackLimit,
    max_processes_and_or_threads: d.maxProcessesAndOrThreads,
    max_max_processes_and_or_threads: r.maxMaxProcessesAndOrThreads,
    enable_per_process_and_thread_time_limit: false,
    allow_enable_per_process_and_thread_time_limit: false,
    enable_per_process_and_thread_memory_limit: false,
    allow_enable_per_process_and_thread_memory_limit: false,
    max_file_size: d.maxFileSize,
    max_max_file_size: r.maxMaxFileSize,
    number_of_runs: d.numberOfRuns,
    max_number_of_runs: r.maxNumberOfRuns,
    redirect_stderr_to_stdout: false,
    max_extract_size: Math.floor(deps.config.limits.files_max_bytes / 1024),
    enable_batched_submissions: true,
    max_submission_batch_size: MAX_BATCH,
    submission_cache_duration: 0,
    use_docs_as_homepage: false,
    allow_enable_network: false,
    enable_network: false,
  }
}

/** The shape of Judge0's system_info (lscpu's and free's lines as name → value). */
function systemInfo(): Record<string, string> {
  const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)}Gi`
  const list = cpus()
  return {
    Architecture: arch() === 'x64' ? 'x86_64' : arch(),
    'CPU(s)': String(list.length),
    'Model name': list[0]?.model ?? 'unknown',
    Mem: gib(totalmem()),
    'Mem free': gib(freemem()),
  }
}
