// What a protocol adds to a job (JobSpec), for real in the jail: extra files, the source's own name,
// compile and run argv overrides, an address-space limit, a process limit, an output cap, the stderr
// redirect, a compile cache key that includes the files, extra CPU time, a stack limit, a repeated run.
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

  // burns CPU until the process has used 1.2 s of it, then exits 0
  const burn12 = '#include <time.h>\nint main(void) { while ((double)clock() / CLOCKS_PER_SEC < 1.2) ; return 0; }\n'

  it('extra CPU time: a 1.2 s program at a 1 s limit with 0.5 s extra ends on its own, judged TLE from its measured time', { timeout: 60_000 }, async () => {
    const graced = await runner.run(job({ source: burn12, timeLimitSec: 1, cpuExtraSec: 0.5 }))
    expect(graced.run).toMatchObject({ status: 'time', exitCode: 0, signal: null })
    expect(graced.run!.cpuSec).toBeGreaterThan(1.15)
    expect(graced.run!.cpuSec).toBeLessThan(1.5)
    // without it, stopped at the limit
    const stopped = await runner.run(job({ source: burn12, timeLimitSec: 1 }))
    expect(stopped.run).toMatchObject({ status: 'time', signal: 'SIGKILL' })
    expect(stopped.run!.cpuSec).toBeLessThan(1.15)
    // within its limit, the extra time changes nothing
    expect((await runner.run(job({ source: burn12, timeLimitSec: 1.5, cpuExtraSec: 0.5 }))).run).toMatchObject({ status: 'ok' })
    // past limit + extra, stopped there
    const past = await runner.run(job({ source: burn12, timeLimitSec: 0.5, cpuExtraSec: 0.3 }))
    expect(past.run).toMatchObject({ status: 'time', signal: 'SIGKILL' })
    expect(past.run!.cpuSec).toBeGreaterThan(0.75)
    expect(past.run!.cpuSec).toBeLessThan(1.1)
  })

  it("the stack limit is the run's: a 40 MB-deep recursion passes at 128000 KB and segfaults at 8000 KB", { timeout: 60_000 }, async () => {
    // each frame holds 1000 bytes the return path still reads, so the recursion is never folded into a loop
    const source =
      '#include <stdio.h>\n__attribute__((noinline)) static long down(long n) { volatile char pad[1000]; pad[0] = (char)n; if (n == 0) return 0; long r = down(n - 1); return r + 1 + pad[0] - pad[0]; }\n' +
      'int main(void) { long n; if (scanf("%ld", &n) != 1) return 2; printf("%ld", down(n)); return 0; }\n'
    const deep = (stackKb?: number) => runner.run(job({ source, input: '40000', ...(stackKb !== undefined && { stackKb }) }))
    expect((await deep(128000)).run).toMatchObject({ status: 'ok', stdout: '40000' })
    expect((await deep(8000)).run).toMatchObject({ status: 'signal', signal: 'SIGSEGV' })
    // the jail's default, 64 MB, holds it too
    expect((await deep()).run).toMatchObject({ status: 'ok', stdout: '40000' })
  })

  it('a repeated run is made that many times, each in a fresh box, and stops at the first that does not exit 0', { timeout: 60_000 }, async () => {
    // 0.2 s of CPU, then leaves a file behind: a run that finds one was not given a fresh box
    const source =
      '#include <stdio.h>\n#include <time.h>\n#include <unistd.h>\nint main(void) { while ((double)clock() / CLOCKS_PER_SEC < 0.2) ; int seen = access("left", F_OK) == 0; FILE *f = fopen("left", "w"); fputs("x", f); fclose(f); printf(seen ? "seen" : "fresh"); return 0; }\n'
    const started = Date.now()
    const r = await runner.run(job({ source, repeat: 3 }))
    const elapsed = Date.now() - started
    expect(r.run).toMatchObject({ status: 'ok', stdout: 'fresh' })
    expect(r.repeats).toHaveLength(3)
    // each entry is a run the supervisor measured: 0.2 s of CPU each, one after the other
    for (const f of r.repeats!) expect(f.cpuSec).toBeGreaterThanOrEqual(0.19)
    expect(r.repeats![2]).toEqual({ cpuSec: r.run!.cpuSec, wallSec: r.run!.wallSec, memoryKb: r.run!.memoryKb })
    expect(elapsed).toBeGreaterThan(3 * 190)
    // once is once: no repeats
    expect((await runner.run(job({ source }))).repeats).toBeUndefined()
    // a run that fails ends the repetition
    const failing = await runner.run(job({ source: 'int main(void) { return 3; }\n', repeat: 5 }))
    expect(failing.run).toMatchObject({ status: 'exit', exitCode: 3 })
    expect(failing.repeats).toHaveLength(1)
  })

  it('a file name that is not plain is refused where the worker writes it', { timeout: 60_000 }, async () => {
    await expect(runner.run(job({ language: 'PYTHON3', source: 'print(1)', files: [{ name: '../escape', contentBase64: '' }] }))).rejects.toThrow(/refusing to write/)
  })
})
