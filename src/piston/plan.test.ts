// Piston request → core plan: limits (Piston's refusals, -1 = maximum), files, names, argv, stdin.
import { describe, expect, it } from 'vitest'
import { testConfig, thrownAppError } from '../testing/evaluation.ts'
import { loadLanguages } from '../languages.ts'
import { normaliseJobSpec } from '../evaluation/job-spec.ts'
import { configuredLimits, configuredMinima, planExecution, runWithArgs } from './plan.ts'
import type { Runtime } from './runtimes.ts'
import { parseExecuteRequest } from './schemas.ts'

const langs = loadLanguages()
const config = testConfig()
const rt = (code: string, language = code.toLowerCase()): Runtime => ({ language, code, aliases: [], version: '1.0.0', lang: langs.get(code)! })
const py = rt('PYTHON3', 'python')
const c = rt('C', 'c')
const req = (extra: Record<string, unknown> = {}) => parseExecuteRequest({ language: 'x', version: '*', files: [{ content: 'print(1)' }], ...extra })
const plan = (extra: Record<string, unknown> = {}, runtime = py) => planExecution(config, langs, runtime, req(extra))
const refusal = (extra: Record<string, unknown>, runtime = py) => thrownAppError(() => plan(extra, runtime)).detail

describe('limits', () => {
  const max = configuredLimits(config, langs, py.lang)

  it('are the config caps in Piston units (ms, bytes)', () => {
    expect(max).toMatchObject({ run_cpu_time: 5000, run_timeout: 12000, run_memory_limit: 262144 * 1024 })
    expect(configuredLimits(config, langs, langs.get('JAVA14')!).compile_cpu_time).toBe(30000)
  })

  it("take Piston's defaults: 3 s wall, CPU up to it, the server's default memory", () => {
    expect(plan()).toMatchObject({ wallTimeSec: 3, timeLimit: 3, memoryLimit: config.limits.default_memory_kb })
    expect(plan()).not.toHaveProperty('compileTimeSec')
  })

  it('map ms and bytes to the core', () => {
    expect(plan({ run_timeout: 2000, run_cpu_time: 500, run_memory_limit: 64 << 20 })).toMatchObject({ wallTimeSec: 2, timeLimit: 0.5, memoryLimit: 65536 })
    expect(plan({ run_timeout: 1500 })).toMatchObject({ wallTimeSec: 1.5, timeLimit: 1.5 })
  })

  it('read -1 as the maximum, and 0 / null as not given (as Piston does)', () => {
    expect(plan({ run_timeout: -1, run_memory_limit: -1, run_cpu_time: -1 })).toMatchObject({ wallTimeSec: 12, timeLimit: 5, memoryLimit: 262144 })
    expect(plan({ run_timeout: 0, run_memory_limit: null })).toMatchObject({ wallTimeSec: 3, memoryLimit: config.limits.default_memory_kb })
  })

  it('set the compile limit only when tighter than the language’s own', () => {
    expect(plan({ compile_timeout: 10000 }, c)).toMatchObject({ compileTimeSec: 10 })
    expect(plan({ compile_timeout: -1 }, c)).not.toHaveProperty('compileTimeSec')
    expect(plan({ compile_cpu_time: 2000, compile_timeout: 10000, compile_memory_limit: 128 << 20 }, c)).toMatchObject({ compileTimeSec: 2, compileMemoryKb: 131072 })
  })

  it.each([
    [{ run_timeout: 12001 }, 'run_timeout cannot exceed the configured limit of 12000'],
    [{ run_cpu_time: 5001 }, 'run_cpu_time cannot exceed the configured limit of 5000'],
    [{ run_memory_limit: 262144 * 1024 + 1 }, 'run_memory_limit cannot exceed the configured limit of 268435456'],
    [{ compile_timeout: 10 ** 9 }, 'compile_timeout cannot exceed the configured limit of 32000'],
    [{ run_timeout: -5 }, 'run_timeout must be non-negative'],
    // Piston's order: memory limits before timeouts, compile before run
    [{ run_timeout: -5, compile_memory_limit: -2 }, 'compile_memory_limit must be non-negative'],
    // under the server's floors (which the core would raise to silently): refused in Piston's words
    [{ run_memory_limit: (16 << 20) - 1 }, 'run_memory_limit cannot be less than the configured minimum of 16777216'],
    [{ run_memory_limit: 1 }, 'run_memory_limit cannot be less than the configured minimum of 16777216'],
    [{ compile_memory_limit: 1 << 20 }, 'compile_memory_limit cannot be less than the configured minimum of 16777216'],
    [{ run_cpu_time: 99 }, 'run_cpu_time cannot be less than the configured minimum of 100'],
    [{ compile_cpu_time: 50 }, 'compile_cpu_time cannot be less than the configured minimum of 100'],
    [{ compile_timeout: 99 }, 'compile_timeout cannot be less than the configured minimum of 100'],
    [{ run_timeout: 49 }, 'run_timeout cannot be less than the configured minimum of 50'],
  ])('%j → %s', (extra, message) => expect(refusal(extra)).toBe(message))

  it('at the floors: taken as given, and the core keeps them as they are (no silent raise)', () => {
    const p = plan({ run_memory_limit: 16 << 20, compile_memory_limit: 16 << 20, run_cpu_time: 100, compile_cpu_time: 100, run_timeout: 50 }, c)
    expect(p).toMatchObject({ memoryLimit: 16384, compileMemoryKb: 16384, timeLimit: 0.1, compileTimeSec: 0.1, wallTimeSec: 0.05 })
    // the floors are the core's own: one step under each is raised by the core, each floor is kept
    const min = configuredMinima(config)
    const kept = normaliseJobSpec(config, { wallTimeSec: min.run_timeout / 1000, compileTimeSec: min.compile_cpu_time / 1000, compileMemoryKb: min.compile_memory_limit / 1024 })
    expect(kept).toEqual({ wallTimeSec: 0.05, compileTimeSec: 0.1, compileMemoryKb: 16384 })
    const raised = normaliseJobSpec(config, { wallTimeSec: (min.run_timeout - 1) / 1000, compileTimeSec: (min.compile_cpu_time - 1) / 1000, compileMemoryKb: min.compile_memory_limit / 1024 - 1 })
    expect(raised).toEqual(kept)
    expect([min.run_cpu_time / 1000, min.run_memory_limit / 1024]).toEqual([config.limits.min_time_sec, config.limits.min_memory_kb])
    // a server with other floors
    expect(configuredMinima(testConfig({ limits: { min_time_sec: 0.25, min_memory_kb: 32768 } }))).toMatchObject({ run_cpu_time: 250, run_memory_limit: 32 << 20 })
  })
})

describe('files', () => {
  it('the first utf8 file is the program; its name is kept where the manifest names the source', () => {
    const p = plan({ files: [{ name: 'prog.py', content: 'import util' }, { name: 'util.py', content: 'X=1' }] })
    expect(p).toMatchObject({ source: 'import util', sourceFileName: 'prog.py', runArgv: ['/usr/bin/python3', 'prog.py'] })
    expect(p.files).toEqual([{ name: 'util.py', contentBase64: Buffer.from('X=1').toString('base64') }])
  })

  it('without a name the program is the manifest’s source file; other files are file<i>.code', () => {
    const p = plan({ files: [{ content: 'a' }, { content: 'b' }, { name: '', content: 'c' }] })
    expect(p.sourceFileName).toBeUndefined()
    expect(p.runArgv).toBeUndefined()
    expect(p.files!.map((f) => f.name)).toEqual(['file1.code', 'file2.code'])
  })

  it('decodes base64 and hex data files; a data file is never the program', () => {
    const p = plan({ files: [{ name: 'd.bin', content: 'AAEC', encoding: 'base64' }, { content: 'print(1)' }, { name: 'h.bin', content: 'ff00', encoding: 'hex' }] })
    expect(p.source).toBe('print(1)')
    expect(p.files).toEqual([
      { name: 'd.bin', contentBase64: 'AAEC' },
      { name: 'h.bin', contentBase64: Buffer.from([0xff, 0]).toString('base64') },
    ])
  })

  it('keeps the bytes of every file as sent: any byte (invalid UTF-8, NUL) in base64 and hex, the UTF-8 of text', () => {
    const odd = Buffer.from([0x41, 0xff, 0xfe, 0x00, 0xed, 0xa0, 0x80, 0x0a])
    const p = plan({ files: [{ content: 'print("é\u0000😀")' }, { name: 'b.bin', content: odd.toString('base64'), encoding: 'base64' }, { name: 'h.bin', content: odd.toString('hex'), encoding: 'hex' }, { name: 't.txt', content: '€\u0000' }] })
    expect(Buffer.from(p.source, 'utf8')).toEqual(Buffer.from('print("é\0😀")'))
    expect(p.files!.map((f) => [f.name, Buffer.from(f.contentBase64, 'base64')])).toEqual([['b.bin', odd], ['h.bin', odd], ['t.txt', Buffer.from('€\0')]])
  })

  it('refuses a lone surrogate in text (no bytes stand for it) rather than writing U+FFFD, in a file or stdin', () => {
    expect(refusal({ files: [{ content: 'print(1) #\ud800' }] })).toBe('files[0].content is not valid utf8 text (it holds a lone surrogate): send bytes with encoding base64 or hex')
    expect(refusal({ files: [{ content: 'print(1)' }, { name: 'x.txt', content: '\udc00' }] })).toMatch(/^files\[1\]\.content is not valid utf8 text/)
    expect(refusal({ stdin: 'a\udbffb' })).toBe('stdin is not valid text (it holds a lone surrogate, which no bytes stand for)')
    expect(plan({ stdin: '\ud83d\ude00' }).input).toBe('😀\n')
  })

  it('compiles the other code files of the program’s kind with it (C)', () => {
    const p = plan({ files: [{ name: 'a.c', content: 'int main(){}' }, { name: 'b.c', content: 'int f;' }, { name: 'notes.txt', content: 'x' }] }, c)
    expect(p.compileArgv).toEqual(langs.get('C')!.compile!.flatMap((a) => (a === 'main.c' ? ['a.c', 'b.c'] : [a])))
    expect(p.runArgv).toBeUndefined()
  })

  it("keeps a wrapper's fixed source name (Java's Main.java)", () => {
    const p = plan({ files: [{ name: 'Hello.java', content: 'class Hello {}' }] }, rt('JAVA14', 'java'))
    expect(p.sourceFileName).toBeUndefined()
  })

  it.each([
    [{ files: [{ content: 'AA==', encoding: 'base64' }] }, 'files must include at least one utf8 encoded file'],
    [{ files: [] }, 'files must include at least one utf8 encoded file'],
    [{ files: [{ content: 'x' }, { content: '***', encoding: 'base64' }] }, 'files[1].content is not valid base64'],
    [{ files: [{ content: 'x' }, { content: 'abc', encoding: 'hex' }] }, 'files[1].content is not valid hex'],
    [{ files: [{ name: 'a.py', content: 'x' }, { name: 'a.py', content: 'y' }] }, 'files[1].name repeats the name of files[0]'],
  ])('%j → %s', (extra, message) => expect(refusal(extra)).toBe(message))

  it('refuses more bytes than limits.source_max_bytes in all', () => {
    const big = 'x'.repeat(config.limits.source_max_bytes / 2 + 1)
    expect(thrownAppError(() => plan({ files: [{ content: big }, { content: big }] })).code).toBe('PayloadTooLarge')
  })
})

describe('stdin and args', () => {
  it('adds a final newline to stdin, as Piston does', () => {
    expect(plan({ stdin: 'a' }).input).toBe('a\n')
    expect(plan({ stdin: 'a\n' }).input).toBe('a\n')
    expect(plan().input).toBe('\n')
  })

  it('passes args as argv items after the program', () => {
    expect(plan({ args: ['1', '$(id)', '; rm'] }).runArgv).toEqual(['/usr/bin/python3', 'main.py', '1', '$(id)', '; rm'])
  })

  it('puts JVM arguments after the main class (the @argfile the compile wrote)', () => {
    const run = langs.get('JAVA14')!.run
    expect(runWithArgs(run, ['a', 'b'])).toEqual([...run.slice(1), '@.arbiter-main-class', 'a', 'b'])
    expect(runWithArgs(run, [])).toBe(run)
  })
})
