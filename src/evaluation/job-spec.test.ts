import { describe, expect, test } from 'vitest'
import { normaliseJobSpec } from './job-spec.ts'
import { testConfig, thrownAppError } from '../testing/evaluation.ts'

const config = testConfig({ limits: { files_max_count: 2, files_max_bytes: 8, max_time_sec: 5, wall_extra_sec: 2, processes: 64, output_cap_bytes: 1000 } })

describe('normaliseJobSpec', () => {
  test('leaves out what is not given', () => {
    expect(normaliseJobSpec(config, {})).toEqual({})
  })

  test('clamps limits to the config caps, never refuses them', () => {
    expect(normaliseJobSpec(config, { wallTimeSec: 99, processes: 1000, outputBytes: 1e9, addressSpaceKb: 1 })).toEqual({ wallTimeSec: 12, processes: 64, outputBytes: 1000, addressSpaceKb: 4096 })
    // 0 or negative: the default (left out)
    expect(normaliseJobSpec(config, { wallTimeSec: 0, processes: -1 })).toEqual({})
  })

  test('extra CPU time, a stack limit and a repeat count: clamped, 0 or 1 left out', () => {
    expect(normaliseJobSpec(config, { cpuExtraSec: 0.5, stackKb: 8000, repeat: 3 })).toEqual({ cpuExtraSec: 0.5, stackKb: 8000, repeat: 3 })
    expect(normaliseJobSpec(config, { cpuExtraSec: 99, stackKb: 1e12, repeat: 1000 })).toEqual({ cpuExtraSec: 5, stackKb: 64 * 1024 * 1024, repeat: 20 })
    expect(normaliseJobSpec(config, { cpuExtraSec: 0, stackKb: 0, repeat: 1 })).toEqual({})
    expect(normaliseJobSpec(config, { stackKb: 0.4, repeat: 2.6 })).toEqual({ stackKb: 1, repeat: 3 })
  })

  test('refuses file names that are not plain, twice-given names, bad base64 and too many or too large files', () => {
    const code = (f: () => unknown) => thrownAppError(f).code
    expect(code(() => normaliseJobSpec(config, { files: [{ name: '../etc', contentBase64: '' }] }))).toBe('InvalidArgument')
    expect(code(() => normaliseJobSpec(config, { files: [{ name: 'a', contentBase64: '' }, { name: 'a', contentBase64: '' }] }))).toBe('InvalidArgument')
    expect(code(() => normaliseJobSpec(config, { files: [{ name: 'a', contentBase64: '%%%%' }] }))).toBe('InvalidArgument')
    expect(code(() => normaliseJobSpec(config, { files: [1, 2, 3].map((i) => ({ name: `f${i}`, contentBase64: '' })) }))).toBe('PayloadTooLarge')
    expect(code(() => normaliseJobSpec(config, { files: [{ name: 'a', contentBase64: 'YWFhYWFhYWFhYQ==' }] }))).toBe('PayloadTooLarge')
    expect(code(() => normaliseJobSpec(config, { sourceFileName: 'x', files: [{ name: 'x', contentBase64: '' }] }))).toBe('InvalidArgument')
    expect(normaliseJobSpec(config, { files: [{ name: 'data.txt', contentBase64: 'aGk=\n' }] })).toEqual({ files: [{ name: 'data.txt', contentBase64: 'aGk=' }] })
  })

  test('files are counted at their decoded size, padding no byte: exactly files_max_bytes in all fits, one byte more does not', () => {
    // 8 bytes as 4 + 4 ('YWFhYQ==' twice: 16 base64 characters, 12 by the 3/4 rule without the padding taken off)
    expect(normaliseJobSpec(config, { files: [{ name: 'a', contentBase64: 'YWFhYQ==' }, { name: 'b', contentBase64: 'YWFhYQ==' }] }).files).toHaveLength(2)
    // 4 + 4, unpadded
    expect(normaliseJobSpec(config, { files: [{ name: 'a', contentBase64: 'YWFhYQ' }, { name: 'b', contentBase64: 'YWFhYQ' }] }).files).toHaveLength(2)
    // 5 + 4
    expect(thrownAppError(() => normaliseJobSpec(config, { files: [{ name: 'a', contentBase64: 'YWFhYWE=' }, { name: 'b', contentBase64: 'YWFhYQ==' }] })).code).toBe('PayloadTooLarge')
  })

  test('argv items must be strings', () => {
    expect(thrownAppError(() => normaliseJobSpec(config, { compileArgv: ['gcc', 3 as unknown as string] })).code).toBe('InvalidArgument')
    expect(thrownAppError(() => normaliseJobSpec(config, { runArgv: [] })).code).toBe('InvalidArgument')
    expect(normaliseJobSpec(config, { compileArgv: [], runArgv: ['./a', 'x y; rm -rf /'] })).toEqual({ compileArgv: [], runArgv: ['./a', 'x y; rm -rf /'] })
  })

  test('a compile check marker is a word of 16 to 64 letters, digits, - or _ (a program cannot hit it by chance)', () => {
    expect(normaliseJobSpec(config, { compileCheckMarker: 'a'.repeat(16) })).toEqual({ compileCheckMarker: 'a'.repeat(16) })
    for (const bad of ['', 'short', 'a'.repeat(65), `${'a'.repeat(16)}\n`, `${'a'.repeat(16)} x`, 42 as unknown as string])
      expect(thrownAppError(() => normaliseJobSpec(config, { compileCheckMarker: bad })).code).toBe('InvalidArgument')
  })
})
