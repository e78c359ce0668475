import { eq } from 'drizzle-orm'
import { afterEach, describe, expect, test } from 'vitest'
import { revokeClient } from '../clients/clients.ts'
import { addClient, createTestDeps, tempDir, testConfig, until, type TestDeps } from '../testing/evaluation.ts'
import { createFakePool, echo, okRun, type Behaviour } from '../testing/fake-pool.ts'
import type { Job } from '../jobs/types.ts'
import { submissions } from '../storage/schema.ts'
import { createFileCache, type FileCache } from './file-cache.ts'
import { fileCacheLimits, JOBE_PREFIX, jobeRoutes } from './routes.ts'
import { PY_CHECK_AND_RUN_PYC, PY_SYNTAX_CHECK } from './languages.ts'
import { JobeResult } from './schemas.ts'

let deps: TestDeps
afterEach(() => deps?.stop())

const latin1 = (bytes: number[]) => Buffer.from(bytes).toString('latin1')

/** Programs by their source: what the fake jail answers. */
const behaviours: Record<string, Behaviour> = {
  stderr: () => ({ compile: { ok: true, message: '' }, run: okRun({ stdout: 'out', stderr: 'warning\n' }) }),
  exit3: () => ({ compile: { ok: true, message: '' }, run: okRun({ status: 'exit', exitCode: 3, stdout: 'x' }) }),
  time: () => ({ compile: { ok: true, message: '' }, run: okRun({ status: 'time', signal: 'SIGKILL', stdout: 'partial' }) }),
  wall: () => ({ compile: { ok: true, message: '' }, run: okRun({ status: 'wall', signal: 'SIGKILL' }) }),
  output: () => ({ compile: { ok: true, message: '' }, run: okRun({ status: 'output', stdout: 'HelloHello' }) }),
  memory: () => ({ compile: { ok: true, message: '' }, run: okRun({ status: 'memory', signal: 'SIGKILL' }) }),
  segv: () => ({ compile: { ok: true, message: '' }, run: okRun({ status: 'signal', signal: 'SIGSEGV', exitCode: null }) }),
  bytes: () => ({ compile: { ok: true, message: '' }, run: okRun({ stdout: latin1([0x48, 0x0a, 0x01, 0x06, 0xc0, 0xc9, 0x0a]) }) }),
  utf8: () => ({ compile: { ok: true, message: '' }, run: okRun({ stdout: Buffer.from('Un rôle délétère\n').toString('latin1') }) }),
  internal: () => ({ compile: { ok: true, message: '' }, run: okRun({ status: 'internal', message: 'jail broke' }) }),
}
const behave: Behaviour = (job) => (behaviours[job.source] ?? echo)(job)

function setup(opts: { quota?: number; config?: Record<string, Record<string, unknown>>; pool?: ReturnType<typeof createFakePool>; wrap?: (cache: FileCache) => FileCache } = {}) {
  deps = createTestDeps({ pool: opts.pool ?? createFakePool({ behave }), config: testConfig({ limits: { max_memory_kb: 262144 }, ...opts.config }) })
  const cache = createFileCache(tempDir('arbiter-jobe-files-'), fileCacheLimits(deps.config))
  const app = jobeRoutes(deps, opts.wrap ? opts.wrap(cache) : cache)
  const key = addClient(deps, { name: 'moodle', quota: opts.quota })
  const req = (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'X-API-KEY': key }) =>
    app.request(`${JOBE_PREFIX}/${path}`, { method, headers, ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }) })
  const run = async (spec: Record<string, unknown>, headers?: Record<string, string>) => {
    const r = await req('POST', 'runs', { run_spec: spec }, headers)
    const retryAfter = r.headers.get('retry-after')
    return { status: r.status, body: await r.json(), ...(retryAfter !== null && { retryAfter }) }
  }
  const put = (id: string, text: string, k = key) => req('PUT', `files/${id}`, { file_contents: Buffer.from(text).toString('base64') }, { 'X-API-KEY': k, 'Content-Type': 'application/json' })
  return { app, key, req, run, put }
}

const c = (source: string, extra: Record<string, unknown> = {}) => ({ language_id: 'c', sourcecode: source, ...extra })
const lastJob = (): Job => deps.pool.jobs.at(-1)!

describe('Jobe auth', () => {
  test('a missing, unknown or revoked key is 403 on every route; OPTIONS needs none', async () => {
    const { req, key } = setup()
    for (const [method, path] of [['GET', 'languages'], ['POST', 'runs'], ['PUT', 'files/abcdefgh1'], ['HEAD', 'files/abcdefgh1']]) {
      expect((await req(method!, path!, method === 'POST' ? { run_spec: c('x') } : undefined, {})).status).toBe(403)
      expect((await req(method!, path!, undefined, { 'X-API-KEY': 'nope' })).status).toBe(403)
    }
    expect(await (await req('GET', 'languages', undefined, {})).json()).toBe('Missing API key')
    revokeClient(deps.db, new Date(), 'moodle')
    expect((await req('GET', 'languages', undefined, { 'X-API-KEY': key })).status).toBe(403)
    const pre = await req('OPTIONS', 'runs', undefined, { Origin: 'https://moodle.example', 'Access-Control-Request-Method': 'POST' })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/X-API-KEY/)
  })

  test('a client whose quota is used up is 401; a run counts as one submission', async () => {
    const { run } = setup({ quota: 1 })
    expect((await run(c('a'))).status).toBe(200)
    const r = await run(c('b'))
    expect(r).toEqual({ status: 401, body: 'API usage quota exceeded' })
  })
})

describe('Jobe routes', () => {
  test("GET languages lists the offered languages under Jobe's names, then every other one under its code in lowercase", async () => {
    const { req } = setup()
    const list = (await (await req('GET', 'languages')).json()) as [string, string][]
    // the test toolchains: C, CPP, JAVA, JAVASCRIPT_NODE, PYTHON3, PYTHON (Jobe's names; no PHP, no Pascal),
    // and CPP11, CPP17, CSHARP, JAVA8, JAVASCRIPT, which Jobe does not name
    expect(list.map((l) => l[0])).toEqual(['c', 'cpp', 'python3', 'java', 'nodejs', 'python2', 'cpp11', 'cpp17', 'csharp', 'java8', 'javascript'])
    expect(list.every((l) => typeof l[1] === 'string')).toBe(true)
    // what languages.enabled leaves out is neither listed nor run, whatever its name
    const { req: req2, run } = setup({ config: { languages: { enabled: ['C', 'CPP17'] } } })
    expect(((await (await req2('GET', 'languages')).json()) as [string, string][]).map((l) => l[0])).toEqual(['c', 'cpp17'])
    expect(await run({ language_id: 'csharp', sourcecode: 'x' })).toEqual({ status: 400, body: "Language 'csharp' is not known" })
    expect((await run({ language_id: 'CPP17', sourcecode: 'x' })).status).toBe(200)
  })

  test('anything else under the prefix is 404', async () => {
    const { req } = setup()
    for (const [m, p] of [['GET', 'runs'], ['POST', 'languages'], ['GET', 'files/abcdefgh1'], ['DELETE', 'files/abcdefgh1'], ['GET', 'nothing'], ['PUT', 'files/a.b']]) expect((await req(m!, p!)).status, `${m} ${p}`).toBe(404)
  })

  test("400s with Jobe's texts", async () => {
    const { req, run } = setup()
    const text = async (r: Response) => [r.status, await r.json()]
    expect(await text(await req('POST', 'runs', 'not json'))).toEqual([400, 'Non-JSON post data received'])
    expect(await text(await req('POST', 'runs', { other: 1 }))).toEqual([400, 'No run_spec attribute found in post data'])
    expect(await run({ language_id: 'c' })).toEqual({ status: 400, body: "run_spec is missing the required attribute 'sourcecode'" })
    expect(await run({ sourcecode: 'x' })).toEqual({ status: 400, body: "run_spec is missing the required attribute 'language_id'" })
    expect(await run({ language_id: 'cobol', sourcecode: 'x' })).toEqual({ status: 400, body: "Language 'cobol' is not known" })
    // provisioned nowhere here: not known either
    expect(await run({ language_id: 'PHP', sourcecode: 'x' })).toEqual({ status: 400, body: "Language 'php' is not known" })
    expect(await run(c('x', { parameters: { cputime: 121 } }))).toEqual({ status: 400, body: 'cputime exceeds maximum allowed on this Jobe server (120 secs)' })
    expect(await run(c('x', { sourcefilename: '../x.c' }))).toEqual({ status: 400, body: 'The sourcefilename for the run_spec is illegal' })
    expect(await run(c('x', { sourcefilename: '.hidden.c' }))).toEqual({ status: 400, body: 'The sourcefilename for the run_spec is illegal' })
    expect((await run(c('x', { file_list: [['short', 'f']] }))).body).toMatch(/^Invalid file specifier/)
    expect((await run(c('x', { file_list: [['abcdefgh1', '../f']] }))).body).toMatch(/^Invalid file specifier/)
    expect(await run(c('x', { parameters: { compileargs: ['-O2', 3] } }))).toEqual({ status: 400, body: "Parameter 'compileargs' must be a list of strings" })
    expect(await run(c('x', { parameters: { runargs: 'a b' } }))).toEqual({ status: 400, body: "Parameter 'runargs' must be a list of strings" })
    expect(deps.pool.jobs).toHaveLength(0)
  })

  test("a run is 200 with Jobe's result object; unknown members are ignored and the body is JSON whatever its Content-Type", async () => {
    const { req } = setup()
    const r = await req('POST', 'runs', { run_spec: { ...c('x'), input: 'hi', jobeserver: 'localhost', debug: true }, extra: 1 }, { 'X-API-KEY': (await addClient(deps)) as string, 'Content-Type': 'application/x-www-form-urlencoded' })
    expect(r.status).toBe(200)
    const body = await r.json()
    expect(JobeResult.parse(body)).toEqual({ run_id: null, outcome: 15, cmpinfo: '', stdout: 'hi', stderr: '' })
    expect(deps.db.select().from(submissions).get()).toMatchObject({ api: 'jobe', language: 'C', async: false })
  })

  test("outcomes follow Jobe's rules: stderr decides, not the exit status", async () => {
    const { run } = setup()
    const outcome = async (src: string) => (await run(c(src))).body
    expect(await outcome('stderr')).toMatchObject({ outcome: 12, stdout: 'out', stderr: 'warning\n' })
    expect(await outcome('exit3')).toMatchObject({ outcome: 15, stdout: 'x', stderr: '' })
    expect(await outcome('time')).toMatchObject({ outcome: 13, stdout: 'partial' })
    expect(await outcome('wall')).toMatchObject({ outcome: 13 })
    expect(await outcome('output')).toMatchObject({ outcome: 13, stdout: 'HelloHello' })
    expect(await outcome('memory')).toMatchObject({ outcome: 17 })
    expect(await outcome('segv')).toMatchObject({ outcome: 12, stderr: 'Segmentation fault\n' })
    expect(await outcome('COMPILE_ERROR')).toMatchObject({ outcome: 11, cmpinfo: expect.stringMatching(/error: expected/), stdout: '', stderr: '' })
    expect(await outcome('bytes')).toMatchObject({ outcome: 15, stdout: 'H\n\\x01\\x06\\xc0\\xc9\n' })
    expect(await outcome('utf8')).toMatchObject({ outcome: 15, stdout: 'Un rôle délétère\n' })
    expect(await outcome('internal')).toMatchObject({ outcome: 20 })
    expect(await outcome('!** TESTING OVERLOAD EXCEPTION **!')).toEqual({ run_id: null, outcome: 21, cmpinfo: '', stdout: '', stderr: '' })
  })

  test("Jobe's commands and limits become the job's argv and limits, split into words, never a shell", async () => {
    const { run } = setup({ config: { limits: { max_time_sec: 5 } } })
    await run(c('x'))
    expect(lastJob()).toMatchObject({
      language: 'C',
      sourceFileName: 'prog.c',
      compileArgv: ['gcc', '-fuse-ld=gold', '-Wall', '-Werror', '-std=c99', '-x', 'c', '-o', 'prog.c.exe', 'prog.c'],
      runArgv: ['./prog.c.exe'],
      timeLimitSec: 5,
      wallTimeSec: 10,
      addressSpaceKb: 400000,
      processes: 30,
      compileStderrFails: true,
      outputEncoding: 'latin1',
      // the Jobe API's own memory cap, not limits.max_memory_kb (262144 here): Jobe's address-space
      // defaults decide under it; its own output caps, keeping Jobe's 2,048,000 bytes of each stream
      memoryLimitKb: 1_572_864,
      outputBytes: 64 << 20,
      outputKeptBytes: 2_048_000,
    })
    await run(c('x', { sourcefilename: 'test.c', parameters: { cputime: 2, memorylimit: 64, numprocs: 7, streamsize: 0.5, compileargs: ['-O2 -DX="a b"'], linkargs: ['-lm'], runargs: ['a;b', '$HOME'] } }))
    expect(lastJob()).toMatchObject({
      compileArgv: ['gcc', '-fuse-ld=gold', '-O2', '-DX=a b', '-o', 'test.c.exe', 'test.c', '-lm'],
      runArgv: ['./test.c.exe', 'a;b', '$HOME'],
      timeLimitSec: 2,
      wallTimeSec: 4,
      addressSpaceKb: 64000,
      processes: 7,
      outputBytes: 64 << 20,
      outputKeptBytes: 512_000,
    })
    // streamsize past jobe.stream_max_bytes keeps that much
    await run(c('x', { parameters: { streamsize: 100 } }))
    expect(lastJob().outputKeptBytes).toBe(4_096_000)
    // memorylimit 0: the jail's memory cap only; numeric parameters given as anything else take Jobe's default
    await run(c('x', { parameters: { memorylimit: 0, cputime: 'lots', numprocs: '9' } }))
    expect(lastJob().addressSpaceKb).toBeUndefined()
    expect(lastJob()).toMatchObject({ timeLimitSec: 5, processes: 9 })

    await run({ language_id: 'python3', sourcecode: 'print(1)', parameters: { interpreterargs: ['-c "print(\\"Blah\\")"'] } })
    expect(lastJob()).toMatchObject({ language: 'PYTHON3', sourceFileName: 'prog.py', compileArgv: ['python3', '-I', '-S', '-c', PY_SYNTAX_CHECK, 'prog.py'], runArgv: ['python3', '-c', 'print("Blah")', 'prog.py'], addressSpaceKb: 1000000 })
    // Jobe's default flags: the check and the run in one jailed process, under a marker of its own per job
    await run({ language_id: 'python3', sourcecode: 'print(1)' })
    const merged = lastJob()
    expect(merged.compileCheckMarker).toMatch(/^[0-9a-f]{24}$/)
    expect(merged).toMatchObject({ compileArgv: [], runArgv: ['python3', '-BE', PY_CHECK_AND_RUN_PYC, merged.compileCheckMarker, 'prog.py'] })
    await run({ language_id: 'python3', sourcecode: 'print(1)' })
    expect(lastJob().compileCheckMarker).not.toBe(merged.compileCheckMarker)

    await run({ language_id: 'java', sourcecode: 'public class Hello {\n public static void main(String[] a) {}\n}', parameters: { memorylimit: 100, numprocs: 2 } })
    expect(lastJob()).toMatchObject({ sourceFileName: 'Hello.java', compileArgv: ['javac', 'Hello.java'], runArgv: ['java', '-Xrs', '-Xss8m', '-Xmx200m', 'Hello'] })
    // Java disregards memorylimit and keeps its own process limit
    expect(lastJob().addressSpaceKb).toBeUndefined()
    expect(lastJob().processes).toBeUndefined()
    await run({ language_id: 'java', sourcecode: 'class X {}', sourcefilename: 'prog.java', parameters: { main_class: 'Main' } })
    expect(lastJob()).toMatchObject({ sourceFileName: 'prog.java', runArgv: ['java', '-Xrs', '-Xss8m', '-Xmx200m', 'Main'] })
    await run({ language_id: 'java', sourcecode: 'class X {}', sourcefilename: 'Thing.java' })
    expect(lastJob()).toMatchObject({ sourceFileName: 'Thing.java', runArgv: ['java', '-Xrs', '-Xss8m', '-Xmx200m', 'Thing'] })

    await run({ language_id: 'nodejs', sourcecode: 'x', parameters: { runargs: ['1'] } })
    expect(lastJob()).toMatchObject({ language: 'JAVASCRIPT_NODE', sourceFileName: 'prog.js', compileArgv: [], runArgv: ['node', '--use_strict', 'prog.js', '1'] })
    expect(lastJob().compileStderrFails).toBeFalsy()
    await run({ language_id: 'cpp', sourcecode: 'x' })
    expect(lastJob()).toMatchObject({ language: 'CPP', compileArgv: ['g++', '-fuse-ld=gold', '-Wall', '-Werror', '-o', 'prog.cpp.exe', 'prog.cpp'] })
    await run({ language_id: 'python2', sourcecode: 'x', parameters: { runargs: ['1'] } })
    expect(lastJob()).toMatchObject({ language: 'PYTHON', sourceFileName: 'prog.py2', compileArgv: [], runArgv: ['python2.7', '-BESs', 'prog.py2', '1'], addressSpaceKb: 400000, processes: 30 })
  })

  test("nodejs has Jobe's 400 MB address-space default, as Jobe applies it; a request's memorylimit replaces it", async () => {
    const { run } = setup()
    await run({ language_id: 'nodejs', sourcecode: 'x' })
    expect(lastJob().addressSpaceKb).toBe(400000)
    await run({ language_id: 'nodejs', sourcecode: 'x', parameters: { memorylimit: 1000 } })
    expect(lastJob().addressSpaceKb).toBe(1000000)
    await run({ language_id: 'nodejs', sourcecode: 'x', parameters: { memorylimit: 0 } })
    expect(lastJob().addressSpaceKb).toBeUndefined()
  })

  test("a language Jobe does not name runs with the manifest's own commands and file name, runargs after the program", async () => {
    const { run } = setup()
    const cpp17 = deps.languages.get('CPP17')!
    // CodeRunner names every source __tester__.<language>: checked, but the manifest's commands name their own file
    await run({ language_id: 'cpp17', sourcecode: 'x', sourcefilename: '__tester__.cpp17', parameters: { runargs: ['a b', '$HOME'], compileargs: ['-O0'], interpreterargs: ['-x'] } })
    const job = lastJob()
    expect(job).toMatchObject({ language: 'CPP17', sourceFileName: cpp17.sourceFile, runArgv: [...cpp17.run, 'a', 'b', '$HOME'] })
    // no compile argv of its own: the manifest's compile step runs; its warnings do not fail it
    expect(job.compileArgv).toBeUndefined()
    expect(job.compileStderrFails).toBeFalsy()
    // no address-space limit and the toolchain's own process limit unless the request sets them
    expect(job.addressSpaceKb).toBeUndefined()
    expect(job.processes).toBeUndefined()
    await run({ language_id: 'javascript', sourcecode: 'x', parameters: { memorylimit: 900, numprocs: 12 } })
    expect(lastJob()).toMatchObject({ language: 'JAVASCRIPT', addressSpaceKb: 900000, processes: 12 })
    // a file may not take the name the source is written under
    expect((await run({ language_id: 'cpp17', sourcecode: 'x', file_list: [['abcdefgh1', cpp17.sourceFile]] })).body).toMatch(/^Invalid file specifier/)
    expect((await run({ language_id: 'cpp17', sourcecode: 'x', sourcefilename: '../x' })).body).toBe('The sourcefilename for the run_spec is illegal')
  })

  test("files: PUT is exactly 204, HEAD 204/404, a run naming an unknown id is 404 and CodeRunner's retry after the PUT works", async () => {
    const { req, run, put } = setup()
    const spec = { language_id: 'python3', sourcecode: 'x', file_list: [['abcdef123456', 'data.txt']] }
    expect(await run(spec)).toEqual({ status: 404, body: 'One or more of the specified files is missing/unavailable' })
    expect(deps.pool.jobs).toHaveLength(0)
    expect((await req('HEAD', 'files/abcdef123456')).status).toBe(404)
    const p = await put('abcdef123456', 'hello file')
    expect(p.status).toBe(204)
    expect(await p.text()).toBe('')
    expect((await req('HEAD', 'files/abcdef123456')).status).toBe(204)
    expect((await run(spec)).status).toBe(200)
    expect(deps.pool.files.at(-1)).toEqual([{ name: 'data.txt', contentBase64: Buffer.from('hello file').toString('base64') }])
    // a PUT replaces the content under the same id
    await put('abcdef123456', 'second')
    await run(spec)
    expect(Buffer.from(deps.pool.files.at(-1)![0]!.contentBase64, 'base64').toString()).toBe('second')
  })

  test('a file_list naming one upload many times past limits.files_max_bytes in all: 413 before the file is read, nothing queued', async () => {
    let reads = 0
    const { run, put } = setup({
      config: { limits: { max_memory_kb: 262144, files_max_bytes: 100_000 } },
      wrap: (cache) => ({ ...cache, locate: (client, id) => (reads++, cache.locate(client, id)) }),
    })
    expect((await put('big0000001', 'x'.repeat(40_000))).status).toBe(204)
    const named = (n: number) => Array.from({ length: n }, (_, i) => ['big0000001', `f${i}.txt`])
    expect(await run(c('x', { file_list: named(3) }))).toEqual({ status: 413, body: 'the files of file_list come to more than 100000 bytes' })
    expect(await run(c('x', { file_list: named(65) }))).toEqual({ status: 413, body: 'file_list has more than 64 entries' })
    expect(reads).toBe(0)
    expect(deps.pool.jobs).toHaveLength(0)
    // within the cap: located once, however many names
    expect((await run(c('x', { file_list: named(2) }))).status).toBe(200)
    expect(reads).toBe(1)
    expect(deps.pool.files.at(-1)!.map((f) => f.name)).toEqual(['f0.txt', 'f1.txt'])
  })

  test('a PUT of a file larger than the cache itself is 413, and the cache keeps what it had', async () => {
    const { req, put } = setup({ config: { jobe: { file_cache_bytes: 8192 } } })
    expect((await put('small00001', 'kept')).status).toBe(204)
    const r = await put('large00001', 'x'.repeat(8193))
    expect([r.status, await r.json()]).toEqual([413, 'put: file large00001 is larger than the file cache (8192 bytes)'])
    expect((await req('HEAD', 'files/small00001')).status).toBe(204)
    expect((await req('HEAD', 'files/large00001')).status).toBe(404)
  })

  test('a PUT without file_contents or with bad base64 is 400', async () => {
    const { req } = setup()
    expect((await req('PUT', 'files/abcdefgh1', { nope: 1 })).status).toBe(400)
    const bad = await req('PUT', 'files/abcdefgh1', { file_contents: '%%%' })
    expect([bad.status, await bad.json()]).toEqual([400, 'put: contents of file abcdefgh1 are not valid base-64'])
  })

  test("files are per client: another client's file is unknown to this one", async () => {
    const { req, run, put } = setup()
    const other = addClient(deps, { name: 'other' })
    expect((await put('sharedid123', 'mine', other)).status).toBe(204)
    expect((await req('HEAD', 'files/sharedid123')).status).toBe(404)
    expect((await run({ language_id: 'c', sourcecode: 'x', file_list: [['sharedid123', 'f.txt']] })).status).toBe(404)
    expect((await req('HEAD', 'files/sharedid123', undefined, { 'X-API-KEY': other })).status).toBe(204)
  })

  test('a run that cannot start within jobe.wait_timeout_sec answers 21 and never runs; one that started is waited for', async () => {
    const pool = createFakePool({ size: 1, behave })
    const { run } = setup({ pool, config: { pool: { size: 1 }, jobe: { wait_timeout_sec: 0.3 } } })
    pool.hold()
    const first = run(c('first', { input: '1' }))
    await until(() => pool.jobs.length === 1)
    const second = await run(c('second'))
    expect(second).toEqual({ status: 200, body: { run_id: null, outcome: 21, cmpinfo: '', stdout: '', stderr: '' } })
    pool.release()
    // the first had started: it is answered when done, after the deadline
    expect((await first).body).toMatchObject({ outcome: 15, stdout: '1' })
    await new Promise((r) => setTimeout(r, 100))
    expect(pool.jobs.map((j) => j.source)).toEqual(['first'])
    expect(deps.db.select().from(submissions).where(eq(submissions.source, 'second')).get()).toMatchObject({ state: 'completed', failure: expect.stringMatching(/withdrawn/) })
  })

  test("a client whose queue is full (evaluation.max_queued_per_client) gets Jobe's overload, outcome 21, with Retry-After, and nothing is stored", async () => {
    const pool = createFakePool({ size: 1, behave })
    const { run } = setup({ pool, config: { pool: { size: 1 }, evaluation: { max_queued_per_client: 1 }, jobe: { wait_timeout_sec: 5 } } })
    pool.hold()
    const first = run(c('first', { input: '1' })) // running
    await until(() => pool.jobs.length === 1)
    const second = run(c('second', { input: '2' })) // queued: the client's one
    await until(() => deps.db.select().from(submissions).where(eq(submissions.source, 'second')).get() !== undefined)
    const third = await run(c('third'))
    // Retry-After too: CodeRunner ignores it, but a client that honours it waits as the other APIs say
    expect(third).toEqual({ status: 200, body: { run_id: null, outcome: 21, cmpinfo: '', stdout: '', stderr: '' }, retryAfter: '5' })
    expect(deps.db.select().from(submissions).where(eq(submissions.source, 'third')).get()).toBeUndefined()
    pool.release()
    expect((await first).body).toMatchObject({ outcome: 15 })
    expect((await second).body).toMatchObject({ outcome: 15, stdout: '2' })
  })
})
