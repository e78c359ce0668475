// The Piston v2 API end to end: the real server, jail and toolchains, driven by the real clients
// (piston-client from npm, aiopyston and piston_rspy from PyPI, installed by scripts/install-test-clients.sh)
// exactly as their documentation shows but for the base URL, and by raw HTTP for every field, refusal
// and auth rule.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import semver from 'semver'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PistonExecuteReply, PistonRuntime } from '../piston/schemas.ts'
import { json, startServer, type RunningServer } from '../testing/harness.ts'

const CLIENTS = process.env.ARBITER_TEST_CLIENTS ?? '/var/lib/arbiter/test-clients'
const PISTON_CLIENT = join(CLIENTS, 'npm', 'node_modules', 'piston-client', 'index.js')
const PYTHON = join(CLIENTS, 'venv', 'bin', 'python')
const DRIVER = join(import.meta.dirname, 'piston-clients.py')

let server: RunningServer
let secret: string
let base: string

beforeAll(async () => {
  if (!existsSync(PISTON_CLIENT) || !existsSync(PYTHON)) throw new Error('the Piston test clients are missing: bash scripts/install-test-clients.sh')
  server = await startServer()
  secret = await server.createClient('piston-e2e')
  base = `${server.url}/piston`
}, 60_000)

afterAll(async () => {
  await server?.stop()
  server?.cleanup()
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { authorization: secret, 'content-type': 'application/json', ...headers } })
const execute = async (body: unknown, headers: Record<string, string> = {}) => {
  const r = await post('/api/v2/execute', body, headers)
  return { status: r.status, body: (await json(r)) as Any }
}
const py = (content: string, extra: Record<string, unknown> = {}) => ({ language: 'python', version: '*', files: [{ content }], ...extra })

/** Runs the Python driver with one client and its calls; one result per call. */
async function drive(client: 'aiopyston' | 'rspy', spec: { base: string; key?: string; calls: Any[]; gather?: boolean }): Promise<Any[]> {
  const r = await execa(PYTHON, [DRIVER], { input: JSON.stringify({ client, ...spec }), timeout: 120_000 })
  return JSON.parse(r.stdout)
}

const C_HELLO = '#include <stdio.h>\nint main(int c, char **v) { char s[64] = ""; scanf("%63s", s); printf("hi %s %d\\n", s, c - 1); return 0; }\n'
const JAVA_ARGS = 'public class Main { public static void main(String[] a) { System.out.println("java " + String.join(",", a)); } }\n'

describe('piston-client (npm), documented calls with only `server` changed', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let piston: any
  beforeAll(async () => {
    piston = (await import(PISTON_CLIENT)).default
  })

  test('runtimes() and execute() on several languages, the key in the base path (it cannot send a header)', async () => {
    const client = piston({ server: `${base}/${secret}` })
    const runtimes = await client.runtimes()
    expect(runtimes.length).toBeGreaterThan(10)
    for (const rt of runtimes) expect(PistonRuntime.parse(rt)).toEqual(rt)
    // its own "newest" pick (a string sort) lands on Python 3
    const python = await client.execute('python', 'import sys; print(sys.version_info[0], sys.argv[1:])')
    expect(python.language).toBe('python')
    expect(python.version).toMatch(/^3\.\d+\.\d+$/)
    expect(python.run).toMatchObject({ stdout: "3 ['1', '2', '3']\n", stderr: '', code: 0, signal: null })
    const c = await client.execute('c', C_HELLO, { stdin: 'there', args: [] })
    expect(PistonExecuteReply.parse(c)).toEqual(c)
    expect(c.compile).toMatchObject({ code: 0 })
    expect(c.run.stdout).toBe('hi there 0\n')
    const js = await client.execute({ language: 'javascript', files: [{ name: 'index.js', content: 'console.log(process.argv.slice(2).join("+"))' }], args: ['a', 'b'] })
    expect(js.run.stdout).toBe('a+b\n')
    const java = await client.execute('java', JAVA_ARGS)
    expect(java.compile.code).toBe(0)
    expect(java.run.stdout).toBe('java 1,2,3\n')
  })

  test('errors come back as its result: an unknown language, and no key', async () => {
    const client = piston({ server: `${base}/${secret}` })
    // piston-client finds no runtime, sends no version: Piston's text
    expect(await client.execute('intercal', 'x')).toEqual({ message: 'version is required as a string' })
    expect(await client.execute('python', 'x', { version: '9' })).toEqual({ message: 'python-9 runtime is unknown' })
    const anonymous = piston({ server: base })
    const refused = await anonymous.runtimes()
    expect(refused.message).toMatch(/API key is required/)
  })
})

describe('a base64 file through the clients that send `encoding`', () => {
  const bytes = Buffer.from([0xff, 0x00, 0x41, 0x0a, 0x80])
  const reader = 'import sys\ndata = open("data.bin", "rb").read()\nprint(list(data), sys.argv[1:])'

  test('piston-client: files with encoding base64 beside the program', async () => {
    const client = (await import(PISTON_CLIENT)).default({ server: `${base}/${secret}` })
    const r = await client.execute({ language: 'python', files: [{ name: 'main.py', content: reader }, { name: 'data.bin', content: bytes.toString('base64'), encoding: 'base64' }], args: ['b64'] })
    expect(r.run).toMatchObject({ stdout: `${JSON.stringify([...bytes]).replace(/,/g, ', ')} ['b64']\n`, code: 0 })
  })

  test("piston_rspy: File(encoding='base64') and hex; a base64 file that is not base64 is Piston's 400", async () => {
    const [b64, hex, bad] = await drive('rspy', {
      base: `${base}/${secret}/api/v2`,
      calls: [
        { op: 'execute', language: 'python', files: [{ name: 'main.py', content: reader }, { name: 'data.bin', content: bytes.toString('base64'), encoding: 'base64' }] },
        { op: 'execute', language: 'python', files: [{ name: 'main.py', content: reader }, { name: 'data.bin', content: bytes.toString('hex'), encoding: 'hex' }] },
        { op: 'execute', language: 'python', files: [{ name: 'main.py', content: reader }, { name: 'data.bin', content: '%%%', encoding: 'base64' }] },
      ],
    })
    const printed = `${JSON.stringify([...bytes]).replace(/,/g, ', ')} []\n`
    expect(b64).toMatchObject({ status: 200, is_ok: true, run: { stdout: printed } })
    expect(hex.run.stdout).toBe(printed)
    expect(bad).toMatchObject({ status: 400, is_ok: false })
    expect(bad.run.stderr).toBe('400 Bad Request: {"message":"files[1].content is not valid base64"}')
  })
})

describe('aiopyston (PyPI), documented calls with only base_url and api_key changed', () => {
  test('runtimes, languages, execute on several languages, with the key as the Authorization header', async () => {
    const out = await drive('aiopyston', {
      base: `${base}/api/v2/`,
      key: secret,
      calls: [
        { op: 'runtimes' },
        { op: 'languages' },
        { op: 'get_runtimes', language: 'py' },
        { op: 'execute', language: 'python', files: [{ content: 'print(input()[::-1])' }], stdin: 'olleh' },
        { op: 'execute', language: 'python', version: '2', files: [{ content: 'print "two"' }] },
        { op: 'execute', language: 'c++', files: [{ content: '#include <iostream>\nint main(){std::cout<<"cpp"<<std::endl;}', name: 'main.cpp' }] },
        { op: 'execute', language: 'go', files: [{ content: 'package main\nimport "fmt"\nfunc main(){ fmt.Println("go") }' }] },
        { op: 'execute', language: 'rust', files: [{ content: 'fn main(){ println!("rust"); }' }] },
        { op: 'execute', language: 'python', files: [{ content: 'x' }], version: '1.0' },
        { op: 'execute', language: 'python', files: [{ content: 'x' }], run_timeout: 10 ** 9 },
      ],
    })
    const [runtimes, languages, pyRuntimes, rev, two, cpp, go, rust, unknown, tooLong] = out
    expect(runtimes.runtimes.find((r: Any) => r.language === 'c').runtime).toBe('gcc')
    expect(languages.languages).toEqual(expect.arrayContaining(['python', 'python3.9', 'c', 'c++', 'java']))
    expect(pyRuntimes.runtimes).toEqual([expect.stringMatching(/^python-3\./)])
    expect(rev).toMatchObject({ run_stdout: 'hello\n', success: true, compile_code: null })
    expect(two.raw).toMatchObject({ language: 'python', version: '2.7.18', run: { stdout: 'two\n' } })
    expect(cpp).toMatchObject({ run_stdout: 'cpp\n', compile_code: 0 })
    expect(go.run_stdout).toBe('go\n')
    expect(rust.run_stdout).toBe('rust\n')
    expect(unknown).toEqual({ error: 'ExecutionError', message: 'python-1.0 runtime is unknown' })
    expect(tooLong).toEqual({ error: 'ExecutionError', message: 'run_timeout cannot exceed the configured limit of 12000' })
  })

  test('a wrong key is refused (401), not run', async () => {
    const [r] = await drive('aiopyston', { base: `${base}/api/v2/`, key: 'wrong', calls: [{ op: 'runtimes' }] })
    expect(r).toEqual({ error: 'UnexpectedError', message: expect.stringContaining('Invalid API key') })
  })
})

describe('piston_rspy (PyPI), documented calls with only the url changed', () => {
  test('fetch_runtimes and execute with the README example, the key in the url or by with_url_and_key', async () => {
    const readme = { op: 'execute', language: 'python', version: '3', files: [{ name: 'main.py', content: 'for i in range(10): print(i)' }] }
    const [runtimes, res, errorRun, ts] = await drive('rspy', {
      base: `${base}/${secret}/api/v2`,
      calls: [
        { op: 'runtimes' },
        readme,
        { op: 'execute', language: 'c', files: [{ name: 'main.c', content: 'int main(){ return *(volatile int*)0; }' }] },
        { op: 'execute', language: 'typescript', files: [{ name: 'main.ts', content: 'const n: number = 6 * 7\nconsole.log(n)' }] },
      ],
    })
    expect(runtimes.runtimes.some((r: Any) => r.language === 'python' && r.version === '2.7.18')).toBe(true)
    expect(res).toMatchObject({ language: 'python', status: 200, is_ok: true, compile: null })
    expect(res.run.output).toBe([...Array(10).keys()].map((i) => `${i}\n`).join(''))
    expect(errorRun.run).toMatchObject({ signal: 'SIGSEGV', code: null, ok: false })
    expect(errorRun.compile).toMatchObject({ code: 0 })
    expect(ts.run.stdout).toBe('42\n')
    const [viaKey] = await drive('rspy', { base: `${base}/api/v2`, key: secret, calls: [readme] })
    expect(viaKey.run.stdout).toBe(res.run.stdout)
    // a 400 comes back as piston_rs words it: the status and Piston's body in stderr
    const [bad] = await drive('rspy', { base: `${base}/api/v2`, key: secret, calls: [{ ...readme, language: 'nope' }] })
    expect(bad).toMatchObject({ status: 400, is_ok: false })
    expect(bad.run.stderr).toBe('400 Bad Request: {"message":"nope-3 runtime is unknown"}')
  })
})

describe('GET /api/v2/runtimes and /packages', () => {
  test('3-part semver of the real toolchains; one name per version order; packages as installed; both bases; trailing slash', async () => {
    const rts: Any[] = await json(await fetch(`${base}/api/v2/runtimes/`, { headers: { authorization: secret } }))
    expect(rts.find((r) => r.language === 'python' && r.version.startsWith('3.'))).toMatchObject({ aliases: ['py', 'py3', 'python3'] })
    expect(rts.find((r) => r.language === 'python3.9')).toMatchObject({ version: '3.9.2' })
    expect(rts.find((r) => r.language === 'java')).toMatchObject({ version: '21.0.13' })
    for (const r of rts) expect(r.version).toMatch(/^\d+\.\d+\.\d+$/)
    // the provisioned versions: within a language, a client's string sort picks what semver picks
    for (const language of new Set(rts.map((r) => r.language))) {
      const versions = rts.filter((r) => r.language === language).map((r) => r.version)
      const byString = [...versions].sort().reverse()
      const bySemver = [...versions].sort((a, b) => (semver.gt(a, b) ? -1 : 1))
      expect(byString, language).toEqual(bySemver)
    }
    expect(await json(await fetch(`${base}/${secret}/api/v2/runtimes`))).toEqual(rts)
    const packages: Any[] = await json(await fetch(`${base}/${secret}/api/v2/packages`))
    expect(packages).toEqual(rts.map((r) => ({ language: r.language, language_version: r.version, installed: true })))
  })

  test.each(['POST', 'DELETE'])('%s /packages is refused: the admin provisions', async (method) => {
    const r = await fetch(`${base}/api/v2/packages`, { method, headers: { authorization: secret }, body: JSON.stringify({ language: 'python', version: '3.10.0' }) })
    expect(r.status).toBe(405)
    expect((await json(r)).message).toMatch(/installed by the administrator/)
  })

  test('anything else under /piston is a Piston-shaped 404, the key never echoed', async () => {
    const r = await fetch(`${base}/${secret}/api/v2/connect`)
    expect(r.status).toBe(404)
    const body = await json(r)
    expect(body.message).toBe('GET /piston/…/api/v2/connect is not served')
  })
})

describe('auth', () => {
  test('no key, an unknown one, a revoked one: 401 {message}', async () => {
    const name = 'piston-revoked'
    const revoked = await server.createClient(name)
    await server.cli(['clients', 'revoke', name])
    const cases: [string, Record<string, string>][] = [
      ['/api/v2/runtimes', {}],
      ['/api/v2/runtimes', { authorization: 'f'.repeat(40) }],
      [`/${'f'.repeat(40)}/api/v2/runtimes`, {}],
      ['/api/v2/runtimes', { authorization: revoked }],
      [`/${revoked}/api/v2/execute`, {}],
    ]
    for (const [path, headers] of cases) {
      const r = await fetch(`${base}${path}`, { method: path.endsWith('execute') ? 'POST' : 'GET', headers, body: path.endsWith('execute') ? JSON.stringify(py('print(1)')) : undefined })
      expect(r.status, path).toBe(401)
      expect(Object.keys(await json(r))).toEqual(['message'])
    }
    expect(server.query("select count(*) n from submissions where api = 'piston' and client_id = (select id from clients where name = ?)", name)[0]).toEqual({ n: 0 })
  })

  test('`Bearer <key>` works too', async () => {
    const r = await execute(py('print(7)'), { authorization: `Bearer ${secret}` })
    expect(r.body.run.stdout).toBe('7\n')
  })

  test('anonymous only when piston.anonymous_client names a client; a quota used up is 429', async () => {
    const other = await startServer({ configToml: '[piston]\nanonymous_client = "guest"\n' })
    try {
      const anon = () => fetch(`${other.url}/piston/api/v2/execute`, { method: 'POST', body: JSON.stringify(py('print(8)')) })
      // the named client does not exist yet: still refused
      expect((await anon()).status).toBe(401)
      await other.createClient('guest', 1)
      const first = await anon()
      expect(first.status).toBe(200)
      expect((await json(first)).run.stdout).toBe('8\n')
      const second = await anon()
      expect(second.status).toBe(429)
      expect(Object.keys(await json(second))).toEqual(['message'])
    } finally {
      await other.stop()
      other.cleanup()
    }
  }, 120_000)
})

describe('POST /api/v2/execute: fields', () => {
  test('the body is JSON whatever its Content-Type (text/plain, none, form)', async () => {
    for (const type of ['text/plain;charset=UTF-8', '', 'application/x-www-form-urlencoded']) {
      const r = await execute(py('print("ct")'), { 'content-type': type })
      expect(r.status, type).toBe(200)
      expect(r.body.run.stdout).toBe('ct\n')
    }
  })

  test('the whole reply: run fields, times in ms, memory in bytes; no compile for an interpreted language', async () => {
    const r = await execute(py('import sys; print("o"); print("e", file=sys.stderr); sys.exit(3)'))
    expect(r.status).toBe(200)
    expect(PistonExecuteReply.strict().parse(r.body)).toEqual(r.body)
    expect(r.body).not.toHaveProperty('compile')
    expect(r.body.run).toMatchObject({ stdout: 'o\n', stderr: 'e\n', output: 'o\ne\n', code: 3, signal: null, status: 'RE', message: 'Exited with error status 3' })
    expect(r.body.run.cpu_time).toBeGreaterThan(0)
    expect(r.body.run.wall_time).toBeGreaterThanOrEqual(r.body.run.cpu_time * 0.5)
    expect(r.body.run.memory).toBeGreaterThan(1 << 20)
  })

  test('bytes stay bytes: a text file, stdin and base64/hex files reach the program exactly (NULs, non-ASCII, invalid UTF-8)', async () => {
    const odd = Buffer.from([0x41, 0xff, 0xfe, 0x00, 0xed, 0xa0, 0x80, 0x0a])
    const r = await execute({
      language: 'python',
      version: '3.x',
      stdin: 'é\u0000€😀',
      files: [
        { name: 'main.py', content: 'import sys\nfor n in ["t.txt", "b.bin", "h.bin"]: print(open(n, "rb").read().hex())\nprint(sys.stdin.buffer.read().hex())\n' },
        { name: 't.txt', content: 'é\u0000😀' },
        { name: 'b.bin', content: odd.toString('base64'), encoding: 'base64' },
        { name: 'h.bin', content: odd.toString('hex'), encoding: 'hex' },
      ],
    })
    expect(r.status).toBe(200)
    expect(r.body.run.stdout).toBe([Buffer.from('é\0😀'), odd, odd, Buffer.from('é\0€😀\n')].map((b) => b.toString('hex')).join('\n') + '\n')
    const lone = await execute(py('print(1)', { stdin: 'a\ud800' }))
    expect([lone.status, lone.body.message]).toEqual([400, 'stdin is not valid text (it holds a lone surrogate, which no bytes stand for)'])
  })

  test('stdin gets a final newline as in Piston; args are argv items, never a shell', async () => {
    const r = await execute(py('import sys; print(repr(sys.stdin.read()), sys.argv[1:])', { stdin: 'a\nb', args: ['$(id)', '; ls', '*'] }))
    expect(r.body.run.stdout).toBe("'a\\nb\\n' ['$(id)', '; ls', '*']\n")
  })

  test('files: the first utf8 file runs under its own name; other files sit beside it (utf8, base64, hex)', async () => {
    const r = await execute({
      language: 'python',
      version: '3.x',
      files: [
        { name: 'prog.py', content: 'import helper, os; print(__file__, helper.X, open("data.bin","rb").read(), open("h.bin","rb").read(), sorted(os.listdir(".")))' },
        { name: 'helper.py', content: 'X = 41 + 1' },
        { name: 'data.bin', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' },
        { name: 'h.bin', content: 'ff00', encoding: 'hex' },
      ],
    })
    expect(r.status).toBe(200)
    expect(r.body.run.stdout).toMatch(/^(\/work\/)?prog\.py 42 b'\\x00\\x01\\x02' b'\\xff\\x00' \[.*'data\.bin', 'h\.bin', 'helper\.py'.*'prog\.py'.*\]\n$/)
  })

  test('C: every .c file is compiled with the program; a compile error is compile and run alike', async () => {
    const multi = await execute({
      language: 'c',
      version: '*',
      files: [
        { name: 'main.c', content: 'int twice(int);\n#include <stdio.h>\nint main(){ printf("%d\\n", twice(21)); }' },
        { name: 'lib.c', content: 'int twice(int x){ return 2 * x; }' },
      ],
    })
    expect(multi.body.run.stdout).toBe('42\n')
    const broken = await execute({ language: 'c', version: '*', files: [{ name: 'main.c', content: 'int main( { }' }] })
    expect(broken.status).toBe(200)
    expect(broken.body.compile).toMatchObject({ code: 1, status: 'RE', message: 'Exited with error status 1', stdout: '' })
    expect(broken.body.compile.stderr).toMatch(/error/)
    expect(broken.body.run).toEqual(broken.body.compile)
  })

  test('limits: CPU time, wall clock, memory, output, each as Piston reports it', async () => {
    const cpu = await execute(py('while True: pass', { run_timeout: 3000, run_cpu_time: 500 }))
    expect(cpu.body.run).toMatchObject({ status: 'TO', message: 'Time limit exceeded', signal: 'SIGKILL', code: null })
    const wall = await execute(py('import time; time.sleep(5)', { run_timeout: 600 }))
    expect(wall.body.run).toMatchObject({ status: 'TO', message: 'Time limit exceeded (wall clock)', signal: 'SIGKILL' })
    const mem = await execute(py('x = bytearray(200 << 20); print(len(x))', { run_memory_limit: 64 << 20 }))
    expect(mem.body.run).toMatchObject({ signal: 'SIGKILL', status: 'SG', message: 'Memory limit exceeded' })
    const roomy = await execute(py('x = bytearray(100 << 20); print(len(x))', { run_memory_limit: -1 }))
    expect(roomy.body.run.stdout).toBe(`${100 << 20}\n`)
    const flood = await execute(py('while True: print("x" * 1000)'))
    expect(flood.body.run).toMatchObject({ status: 'OL', signal: 'SIGKILL' })
  })

  test("run limits at the server's floors are applied as given (16 MiB, 100 ms), not raised", async () => {
    const mem = await execute(py('x = bytearray(40 << 20); print(len(x))', { run_memory_limit: 16 << 20 }))
    expect(mem.body.run).toMatchObject({ status: 'SG', message: 'Memory limit exceeded', signal: 'SIGKILL' })
    expect(mem.body.run.memory).toBeLessThanOrEqual(16 << 20)
    const cpu = await execute({ language: 'c', version: '*', files: [{ content: '#include <time.h>\nint main(void){ while ((double)clock() / CLOCKS_PER_SEC < 1) ; return 0; }' }], run_cpu_time: 100, run_timeout: 3000 })
    expect(cpu.body.run).toMatchObject({ status: 'TO', message: 'Time limit exceeded' })
    expect(cpu.body.run.cpu_time).toBeLessThan(250)
  })

  test('a signal and a version range pick', async () => {
    const seg = await execute(py('import os, signal; os.kill(os.getpid(), signal.SIGSEGV)'))
    expect(seg.body.run).toMatchObject({ status: 'SG', signal: 'SIGSEGV', message: 'Caught fatal signal 11', code: null })
    const two = await execute(py('import sys; print(sys.version_info[:2])', { version: '<3' }))
    expect(two.body).toMatchObject({ version: '2.7.18', run: { stdout: '(2, 7)\n' } })
    const alias = await execute({ language: 'python3.9', version: '3.9.x', files: [{ content: 'import sys; print(sys.version_info[:2])' }] })
    expect(alias.body.run.stdout).toBe('(3, 9)\n')
  })
})

describe('compile limits: compile_cpu_time, compile_timeout and compile_memory_limit stop a heavy compile', () => {
  // a distinct comment per request: a compile served from the compile cache would run nothing
  const fresh = () => `// ${Math.random()}\n`
  // constant evaluation of ~800 000 loop steps: about a second of g++ CPU
  const constexprSpin = () =>
    `${fresh()}constexpr long spin(long n) { long s = 0; for (long i = 0; i < n; i++) for (long j = 0; j < n; j++) s += (i ^ j) & 7; return s; }\n` +
    'constexpr long V = spin(900);\n#include <cstdio>\nint main() { std::printf("%ld\\n", V); }\n'
  const iostream = () => `${fresh()}#include <iostream>\nint main() { std::cout << "io" << std::endl; }\n`
  const cpp = (content: string, limits: Record<string, number> = {}) => ({ language: 'c++', version: '*', files: [{ name: 'main.cpp', content }], ...limits })

  test('the same sources compile without them (the controls)', async () => {
    const spun = await execute(cpp(constexprSpin()))
    expect(spun.body.compile).toMatchObject({ code: 0, status: null })
    expect(spun.body.compile.cpu_time).toBeGreaterThan(300)
    expect(spun.body.run.stdout).toBe('2834968\n')
    const io = await execute(cpp(iostream()))
    expect(io.body.compile).toMatchObject({ code: 0, status: null })
    expect(io.body.compile.memory).toBeGreaterThan(24 << 20)
    expect(io.body.run.stdout).toBe('io\n')
  })

  test('compile_cpu_time 200 and compile_timeout 300: the compile is stopped, TO, and run is a copy of compile (as Piston replies)', async () => {
    const byCpu = await execute(cpp(constexprSpin(), { compile_cpu_time: 200 }))
    expect(byCpu.status).toBe(200)
    expect(byCpu.body.compile).toMatchObject({ status: 'TO', message: 'Time limit exceeded', signal: 'SIGKILL', code: null, stdout: '' })
    expect(byCpu.body.compile.cpu_time).toBeLessThan(400)
    expect(byCpu.body.run).toEqual(byCpu.body.compile)
    const byTimeout = await execute(cpp(constexprSpin(), { compile_timeout: 300 }))
    expect(byTimeout.body.compile).toMatchObject({ status: 'TO', signal: 'SIGKILL', code: null })
    expect(byTimeout.body.compile.wall_time).toBeLessThan(1500)
    expect(byTimeout.body.run).toEqual(byTimeout.body.compile)
  })

  test("compile_memory_limit 16 MiB (the floor): cc1plus is killed, SG 'Memory limit exceeded', g++'s own words in stderr", async () => {
    const r = await execute(cpp(iostream(), { compile_memory_limit: 16 << 20 }))
    expect(r.status).toBe(200)
    expect(r.body.compile).toMatchObject({ status: 'SG', message: 'Memory limit exceeded', signal: 'SIGKILL', code: null })
    expect(r.body.compile.stderr).toMatch(/Killed signal terminated program cc1plus/)
    expect(r.body.compile.memory).toBeLessThanOrEqual(16 << 20)
    expect(r.body.run).toEqual(r.body.compile)
  })

  test('through piston_rspy (set_compile_timeout, set_compile_memory_limit): what the client sees', async () => {
    const [slow, big, ok] = await drive('rspy', {
      base: `${base}/${secret}/api/v2`,
      calls: [
        { op: 'execute', language: 'c++', files: [{ name: 'main.cpp', content: constexprSpin() }], compile_timeout: 200 },
        { op: 'execute', language: 'c++', files: [{ name: 'main.cpp', content: iostream() }], compile_memory_limit: 16 << 20 },
        { op: 'execute', language: 'c++', files: [{ name: 'main.cpp', content: iostream() }], compile_timeout: 20000, compile_memory_limit: -1 },
      ],
    })
    // the response is fine (is_ok is its HTTP status); the compile stage is not
    expect(slow).toMatchObject({ status: 200, is_ok: true, compile: { signal: 'SIGKILL', code: null, ok: false } })
    expect(slow.run).toEqual(slow.compile)
    expect(big).toMatchObject({ status: 200, compile: { signal: 'SIGKILL', code: null } })
    expect(big.compile.stderr).toMatch(/cc1plus/)
    expect(ok).toMatchObject({ is_ok: true, compile: { code: 0 }, run: { stdout: 'io\n' } })
  })
})

describe('POST /api/v2/execute: refusals with Piston’s texts, nothing stored', () => {
  const stored = () => server.query<{ n: number }>("select count(*) n from submissions where api = 'piston'")[0].n
  test.each([
    [{ version: '*', files: [{ content: 'x' }] }, 'language is required as a string'],
    [{ language: 'python', files: [{ content: 'x' }] }, 'version is required as a string'],
    [{ language: 'python', version: '*' }, 'files is required as an array'],
    [{ language: 'python', version: '*', files: [{ name: 'a.py' }] }, 'files[0].content is required as a string'],
    [{ language: 'python', version: '3.8', files: [{ content: 'x' }] }, 'python-3.8 runtime is unknown'],
    [{ language: 'Python', version: '*', files: [{ content: 'x' }] }, 'Python-* runtime is unknown'],
    [{ language: 'python', version: '*', files: [{ content: 'AA==', encoding: 'base64' }] }, 'files must include at least one utf8 encoded file'],
    [{ language: 'python', version: '*', files: [{ content: 'x' }], run_timeout: 'slow' }, 'If specified, run_timeout must be a number'],
    [{ language: 'python', version: '*', files: [{ content: 'x' }], run_memory_limit: 1 << 30 }, 'run_memory_limit cannot exceed the configured limit of 268435456'],
    [{ language: 'python', version: '*', files: [{ content: 'x' }], compile_timeout: -3 }, 'compile_timeout must be non-negative'],
    // under the server's floors, which the core would otherwise raise to without a word
    [{ language: 'python', version: '*', files: [{ content: 'x' }], run_memory_limit: 1 << 20 }, 'run_memory_limit cannot be less than the configured minimum of 16777216'],
    [{ language: 'c', version: '*', files: [{ content: 'int main(){}' }], compile_memory_limit: (16 << 20) - 1 }, 'compile_memory_limit cannot be less than the configured minimum of 16777216'],
    [{ language: 'python', version: '*', files: [{ content: 'x' }], run_cpu_time: 50 }, 'run_cpu_time cannot be less than the configured minimum of 100'],
    [{ language: 'c', version: '*', files: [{ content: 'int main(){}' }], compile_cpu_time: 99 }, 'compile_cpu_time cannot be less than the configured minimum of 100'],
    [{ language: 'c', version: '*', files: [{ content: 'int main(){}' }], compile_timeout: 10 }, 'compile_timeout cannot be less than the configured minimum of 100'],
    [{ language: 'python', version: '*', files: [{ content: 'x' }], run_timeout: 20 }, 'run_timeout cannot be less than the configured minimum of 50'],
    [{ language: 'python', version: '*', files: [{ name: '../evil.py', content: 'x' }] }, "files[0].name must be a plain file name (letters, digits and _+=@,.- and space; no '/', no '..', not starting with '.'; at most 255 characters)"],
    [{ language: 'python', version: '*', files: [{ content: 'x' }, { name: 'sub/dir.txt', content: 'x' }] }, "files[1].name must be a plain file name (letters, digits and _+=@,.- and space; no '/', no '..', not starting with '.'; at most 255 characters)"],
    [{ language: 'python', version: '*', files: [{ content: 'x', encoding: 'latin1' }] }, 'files[0].encoding must be one of utf8, base64, hex'],
    [{ language: 'python', version: '*', files: [{ content: 'x' }, { content: '%%%', encoding: 'base64' }] }, 'files[1].content is not valid base64'],
    [{ language: 'python', version: '*', files: [{ content: 'x' }], args: [1, 2] }, 'If specified, args must be an array of strings'],
    ['{"language": "python", ', 'the body is not valid JSON'],
  ])('%j → 400 %s', async (body, message) => {
    const before = stored()
    const r = await execute(body)
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ message })
    expect(stored()).toBe(before)
  })
})

describe('concurrency', () => {
  test('16 at once through piston-client and 16 through piston_rspy: each gets its own output, none lost', async () => {
    const piston = (await import(PISTON_CLIENT)).default({ server: `${base}/${secret}` })
    const prog = (i: number) => `import sys; print(${i}, sys.stdin.read().strip(), sys.argv[1:])`
    const js = await Promise.all(
      Array.from({ length: 16 }, (_, i) => piston.execute('python', prog(i), { stdin: `in-${i}`, args: [`a${i}`] }))
    )
    js.forEach((r, i) => expect(r.run?.stdout, JSON.stringify(r)).toBe(`${i} in-${i} ['a${i}']\n`))
    const calls = Array.from({ length: 16 }, (_, i) => ({ op: 'execute', language: i % 2 ? 'c' : 'python', files: [{ content: i % 2 ? `#include <stdio.h>\nint main(){ char s[32]; scanf("%31s", s); printf("${i} %s\\n", s); }` : `print(${i}, input())` }], stdin: `s${i}` }))
    const rs = await drive('rspy', { base: `${base}/${secret}/api/v2`, calls, gather: true })
    rs.forEach((r, i) => expect(r.run?.stdout, JSON.stringify(r)).toBe(`${i} s${i}\n`))
    expect(server.query("select count(*) n from submissions where api = 'piston' and state != 'completed'")[0]).toEqual({ n: 0 })
  }, 240_000)
})
