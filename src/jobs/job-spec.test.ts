// What a protocol adds to a job (JobSpec), for real in the jail: extra files, the source's own name,
// compile and run argv overrides, an address-space limit, a process limit, an output cap, the stderr
// redirect, and a compile cache key that includes the files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { workerSettings } from './pool.ts'
import type { Job } from './types.ts'
import { createJobRunner, type JobRunner } from './worker.ts'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' })
const settings = workerSettings(config)
const cacheDir = mkdtempSync(join(tmpdir(), 'arbiter-spec-cache-'))
settings.compileCache = { dir: cacheDir, maxBytes: 1 << 28 }
let runner: JobRunner
beforeAll(() => void (runner = createJobRunner(settings, `spec-${process.pid}`)))
afterAll(async () => {
  await runner?.close()
  rmSync(cacheDir, { recursive: true, force: true })
})

const b64 = (s: string) => Buffer.from(s).toString('base64')
const job = (over: Partial<Job>): Job => ({ language: 'C', source: '', input: '', timeLimitSec: 2, memoryLimitKb: 262144, ...over })

describe('a job spec in the jail', () => {
  it('writes the extra files and the source under its own name; the compile and run argv are the job\'s', { timeout: 60_000 }, async () => {
    const source = '#include <stdio.h>\nint main(int c, char **v) { FILE *f = fopen("data.txt", "r"); char b[64] = {0}; fread(b, 1, 63, f); printf("%s|%s|%s", b, v[1], NAME); return 0; }\n'
    const r = await runner.run(
      job({ source, sourceFileName: 'prog.c', files: [{ name: 'data.txt', contentBase64: b64('from file') }], compileArgv: ['gcc', '-DNAME="named"', '-o', 'prog', 'prog.c'], runArgv: ['./prog', 'arg; echo no shell'] })
    )
    expect(r.compile.ok, r.compile.message).toBe(true)
    expect(r.run).toMatchObject({ status: 'ok', stdout: 'from file|arg; echo no shell|named' })
  })

  it('keys the compile cache by the files too', { timeout: 60_000 }, async () => {
    const source = '#include "inc.h"\n#include <stdio.h>\nint main(void) { printf("%d", V); return 0; }\n'
    const spec = (v: number) => job({ source, files: [{ name: 'inc.h', contentBase64: b64(`#define V ${v}\n`) }] })
    expect((await runner.run(spec(1))).run?.stdout).toBe('1')
    const again = await runner.run(spec(1))
    expect(again.compile.cached).toBe(true)
    const other = await runner.run(spec(2))
    expect(other.compile.cached).toBeFalsy()
    expect(other.run?.stdout).toBe('2')
  })

  it('an empty compile argv means no compile step (a syntax check is a compile argv of its own)', { timeout: 60_000 }, async () => {
    const bad = await runner.run(job({ language: 'PYTHON3', source: 'print(1\n', compileArgv: ['python3', '-m', 'py_compile', 'main.py'] }))
    expect(bad.compile.ok).toBe(false)
    expect(bad.compile.message).toMatch(/SyntaxError/)
    const ok = await runner.run(job({ language: 'PYTHON3', source: 'print(1)\n', compileArgv: [] }))
    expect(ok.run).toMatchObject({ status: 'ok', stdout: '1\n' })
  })

  it('an address-space limit makes a large malloc return NULL instead of the job being killed', { timeout: 60_000 }, async () => {
    const source = '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { void *p = malloc(2000000000UL); printf(p ? "got" : "null"); return 0; }\n'
    expect((await runner.run(job({ source, addressSpaceKb: 200 * 1024 }))).run).toMatchObject({ status: 'ok', stdout: 'null' })
  })

  it('the output cap, the process limit and the stderr redirect are the job\'s', { timeout: 60_000 }, async () => {
    const flood = await runner.run(job({ language: 'PYTHON3', source: 'import sys\nsys.stdout.write("x" * 5000)\n', outputBytes: 1000 }))
    expect(flood.run?.status).toBe('output')
    expect(flood.run!.stdout.length).toBeLessThanOrEqual(1000)
    const forks = await runner.run(job({ language: 'PYTHON3', source: 'import os\nn = 0\ntry:\n    for i in range(20):\n        if os.fork() == 0:\n            import time; time.sleep(2); os._exit(0)\n        n += 1\nexcept OSError:\n    pass\nprint(n)\n', processes: 5 }))
    expect(Number(forks.run?.stdout.trim())).toBeLessThan(5)
    const joined = await runner.run(job({ language: 'PYTHON3', source: 'import sys\nprint("out"); sys.stdout.flush()\nprint("err", file=sys.stderr)\n', redirectStderrToStdout: true }))
    expect(joined.run).toMatchObject({ stdout: 'out\nerr\n', stderr: '' })
  })

  it('a compile that writes to stderr fails when the job says so, and is not cached', { timeout: 60_000 }, async () => {
    const source = '#include <stdio.h>\nint main(void) { int unused; printf("x"); return 0; }\n'
    const warned = (fails: boolean) => job({ source, compileArgv: ['gcc', '-Wall', '-o', 'main', 'main.c'], compileStderrFails: fails })
    expect((await runner.run(warned(false))).run?.stdout).toBe('x')
    const failed = await runner.run(warned(true))
    expect(failed.compile.ok).toBe(false)
    expect(failed.compile.message).toMatch(/unused/)
    expect((await runner.run(warned(true))).compile).toMatchObject({ ok: false })
  })

  it('latin1 output keeps every byte', { timeout: 60_000 }, async () => {
    const source = '#include <stdio.h>\nint main(void) { printf("a\\300\\311\\n"); fprintf(stderr, "\\377"); return 0; }\n'
    const r = await runner.run(job({ source, outputEncoding: 'latin1' }))
    expect([...Buffer.from(r.run!.stdout, 'latin1')]).toEqual([0x61, 0xc0, 0xc9, 0x0a])
    expect([...Buffer.from(r.run!.stderr, 'latin1')]).toEqual([0xff])
  })

  it('a file name that is not plain is refused where the worker writes it', { timeout: 60_000 }, async () => {
    await expect(runner.run(job({ language: 'PYTHON3', source: 'print(1)', files: [{ name: '../escape', contentBase64: '' }] }))).rejects.toThrow(/refusing to write/)
  })
})
