// Root never writes through what a jail shaped, end to end: a checker program in HASKELL whose Template
// Haskell runs at compile time and leaves links named input, expected and output to host paths (and a
// program that leaves a sparse file), through the API of a server with its own pool, through the jail
// daemon's socket, and through a sandbox host fed by an API host over Redis.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseConfig } from '../config.ts'
import { startJailDaemon } from '../jobs/jail-daemon.ts'
import { createJailPool } from '../jobs/jail-pool.ts'
import { createPool } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { silentLog } from '../log.ts'
import { api, json, startServer, waitUntil, type RunningServer } from '../testing/harness.ts'
import { startRedis, type TestRedis } from '../testing/redis-server.ts'
import { apiHostToml, startWorker, stopAll, type WorkerProcess } from '../testing/sandbox-host-harness.ts'

const PATH = '/v4/partner/code-evaluation/submissions/'
const base = mkdtempSync(join(tmpdir(), 'arbiter-shaped-e2e-'))
chmodSync(base, 0o755)
const victim = join(base, 'victim')
mkdirSync(victim, { mode: 0o755 })
writeFileSync(join(victim, 'file'), 'untouched')
const victimUntouched = () => {
  expect(readFileSync(join(victim, 'file'), 'utf8')).toBe('untouched')
  expect(readdirSync(victim)).toEqual(['file'])
}

/** A checker whose compile step plants links where root writes the test's files (tag: a distinct source, so no cache hit). */
const thChecker = (tag: string) => `{-# LANGUAGE TemplateHaskell #-}
import Language.Haskell.TH (runIO)
import System.Posix.Files (createSymbolicLink)
import System.Exit

$(runIO (mapM_ (uncurry createSymbolicLink) [(${JSON.stringify(join(victim, 'file'))}, "input"), (${JSON.stringify(victim)}, "expected"), (${JSON.stringify(join(victim, 'new'))}, "output")]) >> return [])

-- ${tag}
main :: IO ()
main = exitWith (ExitFailure 1)
`
/** A program whose compile step leaves a 200 MB sparse file beside itself. */
const thSparse = `{-# LANGUAGE TemplateHaskell #-}
import Language.Haskell.TH (runIO)
import System.IO

$(runIO (withFile "big" WriteMode (\\h -> hSetFileSize h (200 * 1024 * 1024))) >> return [])

main :: IO ()
main = putStrLn "ran"
`
const C_ECHO = '#include <stdio.h>\nint main(void){int c;while((c=getchar())!=EOF)putchar(c);return 0;}'

const graded = (checkerSource: string) => ({
  lang: 'C',
  source: C_ECHO,
  test_cases: [{ input: 'hello\n', expected_output: 'hello\n' }],
  checker: { type: 'program', lang: 'HASKELL', source: checkerSource },
})

async function viaApi(server: RunningServer, secret: string, body: unknown) {
  const http = api(server.url)
  const q = await json(await http.post(PATH, JSON.stringify(body), { 'client-secret': secret, 'content-type': 'application/json' }))
  let last: any
  await waitUntil(async () => (last = await json(await http.get(`${PATH}${q.he_id}/`, { 'client-secret': secret }))).request_status.code === 'REQUEST_COMPLETED', 180_000, 'the submission')
  return last
}

afterAll(() => rmSync(base, { recursive: true, force: true }))

describe('through the API (a server with its own pool)', () => {
  let server: RunningServer
  let secret: string
  beforeAll(async () => {
    server = await startServer()
    secret = await server.createClient('shaped')
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    server?.cleanup()
  })

  test("a Template Haskell checker's links named input/expected/output: IE, nothing written through them", { timeout: 240_000 }, async () => {
    const r = await viaApi(server, secret, graded(thChecker('api')))
    const t = r.result.tests[0]
    expect(t.status, JSON.stringify(r.result)).toBe('IE')
    expect(t.checker_message).toMatch(/left a file named input/)
    victimUntouched()
  })

  test('a Template Haskell program that leaves a 200 MB sparse file: CE, nothing copied', { timeout: 240_000 }, async () => {
    const r = await viaApi(server, secret, { lang: 'HASKELL', source: thSparse, test_cases: [{ input: '', expected_output: 'ran' }] })
    expect(r.result.run_status.status, JSON.stringify(r.result)).toBe('CE')
    expect(r.result.compile_status).toMatch(/files with holes/)
  })
})

describe("through the jail daemon's socket", () => {
  test("the same checker over the socket: IE, nothing written through its links", { timeout: 240_000 }, async () => {
    const socketPath = join(base, 'run', 'jail.sock')
    const config = parseConfig({ pool: { size: 1, jail_socket: socketPath, jail_group: '0' } }, {}, join(base, 'daemon-data'))
    const daemon = await startJailDaemon(config, createPool(config), silentLog())
    try {
      const job: Job = { language: 'C', source: C_ECHO, input: '', timeLimitSec: 2, memoryLimitKb: 262144, tests: [{ input: 'hello\n', expectedOutput: 'hello\n' }], checker: { type: 'program', lang: 'HASKELL', source: thChecker('daemon') } }
      const result = await createJailPool(config).run(job)
      expect(result.tests?.[0]?.status, JSON.stringify(result)).toBe('IE')
      expect(result.tests?.[0]?.checkerMessage).toMatch(/left a file named input/)
      victimUntouched()
    } finally {
      await daemon.close()
    }
  })
})

describe('through a sandbox host', () => {
  let redis: TestRedis
  let server: RunningServer
  const workers: WorkerProcess[] = []
  beforeAll(async () => {
    redis = await startRedis()
    workers.push(await startWorker({ redisUrl: redis.url, id: 'shaped-host', slots: 1 }))
    server = await startServer({ configToml: apiHostToml(redis.url) })
  }, 180_000)
  afterAll(() => stopAll({ workers, server, redis }))

  test('the same checker on a sandbox host: IE, nothing written through its links', { timeout: 240_000 }, async () => {
    const secret = await server.createClient('shaped-hosts')
    const r = await viaApi(server, secret, graded(thChecker('host')))
    const t = r.result.tests[0]
    expect(t.status, JSON.stringify(r.result)).toBe('IE')
    expect(t.checker_message).toMatch(/left a file named input/)
    victimUntouched()
  })
})
