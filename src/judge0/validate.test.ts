import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import type { Language } from '../languages.ts'
import { loadLanguages } from '../languages.ts'
import { entryById } from './languages.ts'
import { testConfig } from '../testing/evaluation.ts'
import { judge0Ranges } from './service.ts'
import { checkSubmission, type CheckContext } from './validate.ts'
import { makeZip } from '../testing/zips.ts'

const lang = (code: string, over: Partial<Language> = {}): Language => ({
  code,
  aliases: [],
  name: code,
  toolchain: 't',
  root: 'trixie',
  packages: ['p'],
  sourceFile: 'main.c',
  compile: ['gcc', '-O2', '-o', 'main', 'main.c', '-lm'],
  run: ['./main'],
  version: ['gcc'],
  versionPattern: '(.*)',
  env: {},
  compileLimits: {},
  runMemoryHeadroomKb: 0,
  prepare: [],
  artifacts: [],
  selftest: 'x',
  selftestError: 'y',
  judge0: [],
  jobe: code.toLowerCase(),
  ...over,
})
const manifest = loadLanguages()
const langs: Record<number, Language> = {
  50: lang('C'),
  71: lang('PYTHON3', { sourceFile: 'main.py', compile: undefined, run: ['/usr/bin/python3', 'main.py'] }),
  44: manifest.get('EXECUTABLE')!,
  89: manifest.get('MULTIFILE')!,
}
const ctx: CheckContext = {
  ranges: {
    minCpuTimeLimit: 0.1,
    maxCpuTimeLimit: 15,
    maxCpuExtraTime: 5,
    maxWallTimeLimit: 20,
    minMemoryLimit: 2048,
    maxMemoryLimit: 512000,
    maxStackLimit: 128000,
    maxMaxProcessesAndOrThreads: 120,
    maxMaxFileSize: 4096,
    maxNumberOfRuns: 20,
  },
  languageOf: (id) => (langs[id] ? { entry: entryById(manifest, id)!, lang: langs[id]! } : undefined),
  sourceMaxBytes: 1000,
  executableMaxBytes: 3000,
  inputMaxBytes: 1000,
  zip: { maxFiles: 4, totalBytes: 10_000 },
}

/** A minimal zip with stored or deflated entries (no external tool). */
function zip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text)
    const packed = deflateRawSync(data)
    const nameBuf = Buffer.from(name)
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(8, 8)
    local.writeUInt32LE(crc, 14); local.writeUInt32LE(packed.length, 18); local.writeUInt32LE(data.length, 22); local.writeUInt16LE(nameBuf.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(8, 10)
    central.writeUInt32LE(crc, 16); central.writeUInt32LE(packed.length, 20); central.writeUInt32LE(data.length, 24); central.writeUInt16LE(nameBuf.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, nameBuf, packed)
    centrals.push(central, nameBuf)
    offset += 30 + nameBuf.length + packed.length
  }
  const cd = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(Object.keys(files).length, 8); end.writeUInt16LE(Object.keys(files).length, 10)
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, cd, end])
}
function crc32(buf: Buffer): number {
  let c = ~0
  for (const b of buf) {
    c ^= b
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1
  }
  return ~c >>> 0
}

describe('checkSubmission', () => {
  it('fills Judge0 defaults and reads numbers and booleans the Rails way', async () => {
    const r = await checkSubmission({ source_code: 'print(1)', language_id: '71', cpu_time_limit: '2.5', redirect_stderr_to_stdout: 'true' }, false, ctx)
    if (!r.ok) throw new Error(JSON.stringify(r.errors))
    expect(r.input).toMatchObject({ languageId: 71, cpuTimeLimit: 2.5, cpuExtraTime: 1, wallTimeLimit: 10, memoryLimit: 128000, stackLimit: 64000, maxProcessesAndOrThreads: 60, maxFileSize: 1024, numberOfRuns: 1, redirectStderrToStdout: true, stdin: null, expectedOutput: null })
    expect(r.input.compileArgv).toBeUndefined()
    expect(r.input.runArgv).toBeUndefined()
  })

  it('a missing language_id gets both of Judge0\'s messages, first in the body', async () => {
    const r = await checkSubmission({ source_code: '', cpu_time_limit: 99 }, false, ctx)
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.errors).toEqual({
      source_code: ["can't be blank"],
      language_id: ["can't be blank", "language with id  doesn't exist"],
      cpu_time_limit: ['must be less than or equal to 15.0'],
    })
    expect(Object.keys(r.errors)).toEqual(['source_code', 'language_id', 'cpu_time_limit'])
  })

  it('refuses out of range with Rails messages, each field in Judge0 order', async () => {
    const r = await checkSubmission(
      { source_code: 'x', language_id: 150000, memory_limit: 100, wall_time_limit: 0.5, number_of_runs: 0, max_processes_and_or_threads: 'abc', stack_limit: 1e9, max_file_size: -1, cpu_extra_time: true, compiler_options: 'x'.repeat(513) },
      false,
      ctx
    )
    if (r.ok) throw new Error()
    expect(r.errors).toEqual({
      number_of_runs: ['must be greater than 0'],
      cpu_extra_time: ['is not a number'],
      wall_time_limit: ['must be greater than or equal to 1.0'],
      memory_limit: ['must be greater than or equal to 2048'],
      stack_limit: ['must be less than or equal to 128000'],
      max_processes_and_or_threads: ['is not a number'],
      max_file_size: ['must be greater than or equal to 0'],
      compiler_options: ['is too long (maximum is 512 characters)'],
      language_id: ["language with id 150000 doesn't exist"],
    })
  })

  it("refuses a memory_limit or cpu_time_limit under the server's floor (which the core would raise), never raises it", async () => {
    // limits.min_memory_kb 16384 and min_time_sec 0.1 (the defaults), through the ranges built from a config
    const floors = { ...ctx, ranges: judge0Ranges(testConfig()) }
    expect(floors.ranges).toMatchObject({ minMemoryLimit: 16384, minCpuTimeLimit: 0.1 })
    const low = await checkSubmission({ source_code: 'x', language_id: 71, memory_limit: 16383, cpu_time_limit: 0.05 }, false, floors)
    if (low.ok) throw new Error('taken')
    expect(low.errors).toEqual({ cpu_time_limit: ['must be greater than or equal to 0.1'], memory_limit: ['must be greater than or equal to 16384'] })
    // Judge0's own floor still answers below 2048
    const tiny = await checkSubmission({ source_code: 'x', language_id: 71, memory_limit: 100 }, false, floors)
    expect(tiny.ok ? null : tiny.errors).toEqual({ memory_limit: ['must be greater than or equal to 16384'] })
    // at the floors: taken as given; 0 stays Judge0's "no CPU limit"
    const at = await checkSubmission({ source_code: 'x', language_id: 71, memory_limit: '16384', cpu_time_limit: '0.1' }, false, floors)
    if (!at.ok) throw new Error(JSON.stringify(at.errors))
    expect([at.input.memoryLimit, at.input.cpuTimeLimit]).toEqual([16384, 0.1])
    const zero = await checkSubmission({ source_code: 'x', language_id: 71, cpu_time_limit: 0 }, false, floors)
    expect(zero.ok && zero.input.cpuTimeLimit).toBe(0)
    // a server whose floor is under Judge0's: Judge0's 2048 applies
    const loose = judge0Ranges(testConfig({ limits: { min_memory_kb: 1024, min_time_sec: 0.01 } }))
    expect(loose).toMatchObject({ minMemoryLimit: 2048, minCpuTimeLimit: 0.01 })
    const r = await checkSubmission({ source_code: 'x', language_id: 71, memory_limit: 2047, cpu_time_limit: 0.005 }, false, { ...ctx, ranges: loose })
    expect(r.ok ? null : r.errors).toEqual({ cpu_time_limit: ['must be greater than or equal to 0.01'], memory_limit: ['must be greater than or equal to 2048'] })
    // a floor above Judge0's defaults raises the defaults, so the record shows what runs
    const high = judge0Ranges(testConfig({ limits: { min_memory_kb: 200000, min_time_sec: 6, max_time_sec: 10, default_time_sec: 6 } }))
    const d = await checkSubmission({ source_code: 'x', language_id: 71 }, false, { ...ctx, ranges: high })
    expect(d.ok && [d.input.memoryLimit, d.input.cpuTimeLimit]).toEqual([200000, 6])
  })

  it('refuses the network, per-process limits and compiler options of an interpreter', async () => {
    const r = await checkSubmission({ source_code: 'x', language_id: 71, enable_network: true, enable_per_process_and_thread_time_limit: 'true', compiler_options: '-O2' }, false, ctx)
    if (r.ok) throw new Error()
    expect(r.errors).toEqual({
      enable_per_process_and_thread_time_limit: ['this option cannot be enabled'],
      compiler_options: ['setting compiler options is only allowed for compiled languages'],
      enable_network: ['enabling network is not allowed'],
    })
    const off = await checkSubmission({ source_code: 'x', language_id: 71, enable_network: false }, false, ctx)
    expect(off.ok).toBe(true)
  })

  it('decodes base64 request text and splits options and arguments into argv items', async () => {
    const b = (s: string) => Buffer.from(s).toString('base64')
    const r = await checkSubmission({ source_code: b('int main(){}'), stdin: b('1 2\n'), expected_output: b('3'), language_id: 50, compiler_options: '-DMSG="a b" -Wall', command_line_arguments: "one 'two three'" }, true, ctx)
    if (!r.ok) throw new Error(JSON.stringify(r.errors))
    expect(r.input.sourceCode.toString()).toBe('int main(){}')
    expect(r.input.stdin?.toString()).toBe('1 2\n')
    expect(r.input.expectedOutput?.toString()).toBe('3')
    expect(r.input.compileArgv).toEqual(['gcc', '-O2', '-o', 'main', '-DMSG=a b', '-Wall', 'main.c', '-lm'])
    expect(r.input.runArgv).toEqual(['./main', 'one', 'two three'])
  })

  it('unzips additional_files into plain files and refuses folders and hidden names', async () => {
    const ok = await checkSubmission({ source_code: 'x', language_id: 71, additional_files: zip({ 'helper.py': 'X = 1\n', 'main.py': 'ignored' }).toString('base64') }, false, ctx)
    if (!ok.ok) throw new Error(JSON.stringify(ok.errors))
    expect(ok.input.files.map((f) => [f.name, f.content.toString()])).toEqual([['helper.py', 'X = 1\n']])
    for (const name of ['dir/a.py', '.hidden', '../x']) {
      const r = await checkSubmission({ source_code: 'x', language_id: 71, additional_files: zip({ [name]: 'x' }).toString('base64') }, false, ctx)
      expect(!r.ok && r.errors.additional_files?.[0]).toMatch(/only plain file names|a path with \.\./)
    }
    const bad = await checkSubmission({ source_code: 'x', language_id: 71, additional_files: 'bm90IGEgemlw' }, false, ctx)
    expect(!bad.ok && bad.errors.additional_files?.[0]).toMatch(/^is not a zip archive/)
    const big = await checkSubmission({ source_code: 'x', language_id: 71, additional_files: zip({ 'a.txt': 'x'.repeat(20_000) }).toString('base64') }, false, ctx)
    expect(!big.ok && big.errors.additional_files).toEqual(['inflates to more than 10000 bytes'])
  })

  it('keeps the bytes sent: Base64 of any bytes (invalid UTF-8, NULs) decodes to exactly them, plain text to its UTF-8', async () => {
    const bytes = {
      source_code: Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x00, 0x0a, 0x70, 0x0a]),
      stdin: Buffer.from([0x41, 0xff, 0xfe, 0x0a]),
      expected_output: Buffer.from([0x41, 0xc3, 0x28, 0x00, 0x0a]),
    }
    const sent = Object.fromEntries(Object.entries(bytes).map(([k, v]) => [k, v.toString('base64')]))
    const r = await checkSubmission({ ...sent, language_id: 71 }, true, ctx)
    if (!r.ok) throw new Error(JSON.stringify(r.errors))
    expect([r.input.sourceCode, r.input.stdin, r.input.expectedOutput]).toEqual([bytes.source_code, bytes.stdin, bytes.expected_output])
    const text = await checkSubmission({ source_code: 'print("é\u0000")', stdin: '€\n', expected_output: '\u{1F600}', language_id: 71 }, false, ctx)
    if (!text.ok) throw new Error(JSON.stringify(text.errors))
    expect([text.input.sourceCode, text.input.stdin, text.input.expectedOutput]).toEqual([Buffer.from('print("é\0")'), Buffer.from('€\n'), Buffer.from('😀')])
    // sizes are the bytes' (1000 bytes of 0xff is 1000, not the 3000 of its replacement characters)
    const ff = await checkSubmission({ source_code: Buffer.alloc(1000, 0xff).toString('base64'), language_id: 71 }, true, ctx)
    expect(ff.ok).toBe(true)
  })

  it('refuses a lone surrogate in plain text (no bytes stand for it) on each text attribute, pointing at base64_encoded', async () => {
    for (const lone of ['\ud800', 'a\udc00b', 'x\udbff']) {
      const r = await checkSubmission({ source_code: `print(1)#${lone}`, stdin: lone, expected_output: lone, language_id: 71 }, false, ctx)
      if (r.ok) throw new Error(`accepted ${JSON.stringify(lone)}`)
      const message = 'is not valid Unicode text (it holds a lone surrogate), use base64_encoded=true query parameter to send bytes'
      expect(r.errors).toEqual({ source_code: [message], stdin: [message], expected_output: [message] })
    }
    const pair = await checkSubmission({ source_code: 'print("\ud83d\ude00")', language_id: 71 }, false, ctx)
    expect(pair.ok).toBe(true)
  })

  it('refuses sources and inputs over the caps, and a callback that is not http(s)', async () => {
    const r = await checkSubmission({ source_code: 'x'.repeat(1001), stdin: 'y'.repeat(1001), language_id: 71, callback_url: 'ftp://x' }, false, ctx)
    if (r.ok) throw new Error()
    expect(r.errors).toEqual({
      source_code: ['is too long (maximum is 1000 bytes)'],
      callback_url: ['is not an http(s) URL'],
      stdin: ['is too long (maximum is 1000 bytes)'],
    })
  })

  it('89, a multi-file program: the zip\'s run script is the source, its compile script the compile step, run with bash', { timeout: 60_000 }, async () => {
    const z = makeZip([['compile', 'gcc -o prog main.c\n'], ['run.sh', './prog\n'], ['run', 'echo never\n'], ['main.c', 'int main(){}\n']])
    const r = await checkSubmission({ language_id: 89, additional_files: z.toString('base64'), command_line_arguments: 'a b' }, false, ctx)
    if (!r.ok) throw new Error(JSON.stringify(r.errors))
    // Judge0's order: run.sh before run, compile.sh before compile; a project's scripts get no arguments
    expect([r.input.project, r.input.sourceFileName, r.input.sourceCode.toString(), r.input.compileArgv, r.input.runArgv]).toEqual([true, 'run.sh', './prog\n', ['bash', 'compile'], ['bash', 'run.sh']])
    expect(r.input.files.map((f) => f.name).sort()).toEqual(['compile', 'main.c', 'run'])
    // no compile script: no compile step
    const plain = await checkSubmission({ language_id: 89, additional_files: makeZip([['run', 'echo hi\n']]).toString('base64') }, false, ctx)
    expect(plain.ok && [plain.input.sourceFileName, plain.input.compileArgv, plain.input.runArgv, plain.input.files]).toEqual(['run', [], ['bash', 'run'], []])
  })

  it('89 refuses a source, a missing zip, a zip without a run script and compiler options, as Judge0 words them', { timeout: 60_000 }, async () => {
    const r = await checkSubmission({ language_id: 89, source_code: 'echo hi', compiler_options: '-O2' }, false, ctx)
    expect(!r.ok && r.errors).toEqual({ source_code: ['must be blank'], additional_files: ["can't be blank"], compiler_options: ['setting compiler options is only allowed for compiled languages'] })
    const none = await checkSubmission({ language_id: 89, additional_files: makeZip([['compile', 'true\n']]).toString('base64') }, false, ctx)
    expect(!none.ok && none.errors).toEqual({ additional_files: ['holds no run script (run.sh or run) for the multi-file program'] })
    const long = await checkSubmission({ language_id: 89, additional_files: makeZip([['run', '#'.repeat(1001)]]).toString('base64') }, false, ctx)
    expect(!long.ok && long.errors).toEqual({ additional_files: ['holds a run script (run) longer than 1000 bytes'] })
    const link = await checkSubmission({ language_id: 89, additional_files: makeZip([['run', 'x', { link: true }]]).toString('base64') }, false, ctx)
    expect(!link.ok && link.errors).toEqual({ additional_files: ['holds "run": not a regular file (a link or a device)'] })
  })

  it('44, an executable: the bytes sent, within limits.executable_max_bytes instead of the source cap', async () => {
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(2000, 0xff)])
    const r = await checkSubmission({ language_id: 44, source_code: elf.toString('base64') }, true, ctx)
    if (!r.ok) throw new Error(JSON.stringify(r.errors))
    expect(r.input.sourceCode).toEqual(elf)
    const big = await checkSubmission({ language_id: 44, source_code: Buffer.alloc(3001, 1).toString('base64') }, true, ctx)
    expect(!big.ok && big.errors).toEqual({ source_code: ['is too long (maximum is 3000 bytes)'] })
    // every other language keeps the source cap
    const c = await checkSubmission({ language_id: 50, source_code: Buffer.alloc(2000, 0x41).toString('base64') }, true, ctx)
    expect(!c.ok && c.errors).toEqual({ source_code: ['is too long (maximum is 1000 bytes)'] })
    // Judge0's 44 has no compile command
    const opts = await checkSubmission({ language_id: 44, source_code: 'x', compiler_options: '-O2' }, false, ctx)
    expect(!opts.ok && opts.errors).toEqual({ compiler_options: ['setting compiler options is only allowed for compiled languages'] })
  })
})
