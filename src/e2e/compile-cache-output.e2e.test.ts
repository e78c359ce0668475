// What a compile printed, on a compile cache hit: the same source submitted twice through each face
// shows the same compile output both times (a compiler prints its warnings every time), the second
// from the cache. An entry kept before the cache kept the output is compiled again, never shown empty.
// Real server, real jail, a cache folder of its own.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { V4Reply } from '../hackerearth/schemas.ts'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'

const cacheDir = mkdtempSync(join(tmpdir(), 'arbiter-cache-output-e2e-'))
let server: RunningServer
let secret: string

beforeAll(async () => {
  server = await startServer({ configToml: `[paths]\ncompile_cache = "${cacheDir}"` })
  secret = await server.createClient('cache-output-e2e')
}, 180_000)
afterAll(async () => {
  await server?.stop()
  server?.cleanup()
  rmSync(cacheDir, { recursive: true, force: true })
})

const entries = () => readdirSync(cacheDir).filter((n) => /^[0-9a-f]{64}$/.test(n))
/** The entries a call added to the cache. */
async function added<T>(f: () => Promise<T>): Promise<{ value: T; added: string[] }> {
  const before = new Set(entries())
  const value = await f()
  return { value, added: entries().filter((n) => !before.has(n)) }
}

/** A C program whose compile warns (a #warning, printed whatever the flags) and which runs cleanly. */
const warning = (word: string) => `#include <stdio.h>\n#warning ${word}\nint main(void) { puts("ran ${word}"); return 0; }\n`

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any
const judge0 = async (sub: Record<string, unknown>): Promise<Any> => {
  const r = await fetch(`${server.url}/judge0/submissions?wait=true&fields=*`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Auth-Token': secret }, body: JSON.stringify(sub) })
  const body = await r.json()
  expect(r.status, JSON.stringify(body)).toBe(201)
  return body
}

/** A zip of files, made by Python's zipfile (the test clients' interpreter). */
const zipOf = (files: Record<string, string>) =>
  execFileSync('/var/lib/arbiter/test-clients/venv/bin/python', ['-c', 'import io,json,zipfile,base64,sys\nb=io.BytesIO()\nz=zipfile.ZipFile(b,"w")\nfor n,t in json.load(sys.stdin).items(): z.writestr(n,t)\nz.close()\nsys.stdout.write(base64.b64encode(b.getvalue()).decode())'], {
    input: JSON.stringify(files),
    encoding: 'utf8',
  })

// made before any request: a pause of seconds between two requests (Python's start on a loaded machine)
// can meet the server closing the kept-alive connection the next request is sent on
const zip = zipOf({ compile: 'echo "building: step one"\necho "note: on stderr" >&2\nprintf "built\\n" > out.txt\n', run: 'cat out.txt\n' })

describe('a compile cache hit shows what the compile printed', { timeout: 120_000 }, () => {
  test('Judge0 (C): compile_output has the warning both times, the second compile taken from the cache', async () => {
    const sub = { language_id: 50, source_code: warning('judge0-twice') }
    const first = await added(() => judge0(sub))
    expect(first.added, 'the first compile is kept').toHaveLength(1)
    expect(first.value).toMatchObject({ status: { id: 3 }, stdout: 'ran judge0-twice\n' })
    expect(first.value.compile_output).toMatch(/warning: #warning judge0-twice/)
    const again = await added(() => judge0(sub))
    expect(again.added, 'the second is a hit: nothing new kept').toEqual([])
    expect(again.value).toMatchObject({ status: { id: 3 }, stdout: 'ran judge0-twice\n' })
    expect(again.value.compile_output).toBe(first.value.compile_output)
  })

  test("Judge0's multi-file program (89): what its compile script printed, both times", async () => {
    const first = await added(() => judge0({ language_id: 89, additional_files: zip }))
    expect(first.added).toHaveLength(1)
    expect(first.value).toMatchObject({ status: { id: 3 }, stdout: 'built\n', compile_output: 'building: step one\nnote: on stderr\n' })
    const again = await added(() => judge0({ language_id: 89, additional_files: zip }))
    expect(again.added).toEqual([])
    expect(again.value).toMatchObject({ status: { id: 3 }, stdout: 'built\n', compile_output: 'building: step one\nnote: on stderr\n' })
  })

  test("Piston (c): the compile stage's stdout, stderr and output the same both times; code 0; a hit's stage took no time", async () => {
    const execute = async () => {
      const r = await fetch(`${server.url}/piston/api/v2/execute`, { method: 'POST', headers: { authorization: secret, 'content-type': 'application/json' }, body: JSON.stringify({ language: 'c', version: '*', files: [{ content: warning('piston-twice') }] }) })
      const body = (await r.json()) as Any
      expect(r.status, JSON.stringify(body)).toBe(200)
      return body
    }
    const first = await added(execute)
    expect(first.added).toHaveLength(1)
    expect(first.value.compile.stderr).toMatch(/warning: #warning piston-twice/)
    expect(first.value.run.stdout).toBe('ran piston-twice\n')
    const again = await added(execute)
    expect(again.added).toEqual([])
    for (const k of ['stdout', 'stderr', 'output', 'code', 'signal', 'status', 'message'] as const) expect(again.value.compile[k], k).toEqual(first.value.compile[k])
    expect(again.value.compile.code).toBe(0)
    // the documented choice: a hit ran no compile step now, so its stage took nothing
    expect([again.value.compile.cpu_time, again.value.compile.wall_time, again.value.compile.memory]).toEqual([0, 0, 0])
    expect(again.value.run.stdout).toBe('ran piston-twice\n')
  })

  test('HackerEarth v4 and v3: compile_status the same both times, the second compile_cached', async () => {
    const PATH = '/v4/partner/code-evaluation/submissions/'
    const http = api(server.url)
    const v4 = async () => {
      const q = (await json(await http.post(PATH, JSON.stringify({ lang: 'C', source: warning('v4-twice') }), { 'client-secret': secret, 'content-type': 'application/json' }))) as V4Reply
      let done: V4Reply | undefined
      await waitUntil(async () => (done = (await json(await http.get(`${PATH}${q.he_id}/`, { 'client-secret': secret }))) as V4Reply).request_status.code === 'REQUEST_COMPLETED', 60_000, 'completion')
      return done!
    }
    const first = await v4()
    const again = await v4()
    expect(first.result).not.toHaveProperty('compile_cached')
    expect(again.result.compile_cached).toBe(true)
    expect(again.result.compile_status).toBe(first.result.compile_status)
    expect(again.result.run_status.status).toBe('AC')
    const v3 = async () => (await json(await http.post('/code/run/', new URLSearchParams({ client_secret: secret, lang: 'C', source: warning('v3-twice'), async: '0' }).toString(), { 'content-type': 'application/x-www-form-urlencoded' }))) as Any
    const r1 = await v3()
    const r2 = await v3()
    expect(r1.compile_status, JSON.stringify(r1)).toBe('OK')
    expect(r2.compile_status).toBe(r1.compile_status)
    expect(r2.run_status.output).toBe(r1.run_status.output)
  })

  test("Jobe (c): cmpinfo the same both times (Jobe counts a compiler's stderr as a compile error: never kept)", async () => {
    const run = async () => {
      const r = await fetch(`${server.url}/jobe/index.php/restapi/runs`, { method: 'POST', headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-API-KEY': secret }, body: JSON.stringify({ run_spec: { language_id: 'c', sourcecode: warning('jobe-twice'), sourcefilename: 'prog.c' } }) })
      const body = (await r.json()) as Any
      expect(r.status, JSON.stringify(body)).toBe(200)
      return body
    }
    const first = await added(run)
    const again = await added(run)
    expect(first.value.outcome).toBe(11)
    expect(first.value.cmpinfo).toMatch(/#warning jobe-twice/)
    expect(again.value.cmpinfo).toBe(first.value.cmpinfo)
    expect([first.added, again.added]).toEqual([[], []])
  })

  test('an entry kept before the output was (no output.json) is a miss: compiled again, the warning shown, the entry replaced and then served', async () => {
    const sub = { language_id: 50, source_code: warning('kept-before') }
    const first = await added(() => judge0(sub))
    expect(first.added).toHaveLength(1)
    const [entry] = first.added
    // what the cache held before it kept a compile's output: the tree and size.json alone
    rmSync(join(cacheDir, entry, 'output.json'))
    const again = await judge0(sub)
    expect(again.compile_output, 'compiled again, not shown empty').toBe(first.value.compile_output)
    expect(existsSync(join(cacheDir, entry, 'output.json')), 'the compile again replaced the entry').toBe(true)
    const third = await added(() => judge0(sub))
    expect(third.added).toEqual([])
    expect(third.value.compile_output).toBe(first.value.compile_output)
  })
})
