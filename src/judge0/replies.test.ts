import { describe, expect, it } from 'vitest'
import { ALL_FIELDS, decimalString, decode64, encode64, NotUtf8, requestedFields, shapeSubmission, type Judge0Record } from './replies.ts'

const record = (over: Partial<Judge0Record> = {}): Judge0Record => ({
  source_code: 'print("hi")',
  language_id: 71,
  stdin: null,
  expected_output: null,
  stdout: 'hi\n',
  status_id: 3,
  created_at: new Date('2026-11-26T10:00:00.123Z'),
  finished_at: new Date('2026-11-26T10:00:01Z'),
  time: 0.0123,
  memory: 3456,
  stderr: null,
  token: '6f1c3b1e-2d44-4c63-9a59-0b6a3f1c2d3e',
  number_of_runs: 1,
  cpu_time_limit: 5,
  cpu_extra_time: 1,
  wall_time_limit: 10,
  memory_limit: 128000,
  stack_limit: 64000,
  max_processes_and_or_threads: 60,
  enable_per_process_and_thread_time_limit: false,
  enable_per_process_and_thread_memory_limit: false,
  max_file_size: 1024,
  compile_output: null,
  exit_code: 0,
  exit_signal: null,
  message: null,
  wall_time: 0.05,
  compiler_options: null,
  command_line_arguments: null,
  redirect_stderr_to_stdout: false,
  callback_url: null,
  additional_files: null,
  enable_network: false,
  status: { id: 3, description: 'Accepted' },
  language: { id: 71, name: 'Python (3.13.5)' },
  ...over,
})

describe('Judge0 replies', () => {
  it('fields=* is exactly the 35 attributes, in the serializer order', () => {
    const r = requestedFields('*')
    expect(r.ok && r.fields.length).toBe(35)
    const body = shapeSubmission(record(), ALL_FIELDS, false)
    expect(Object.keys(body)).toEqual([...ALL_FIELDS])
    expect(Object.keys(body)).toHaveLength(35)
  })

  it('default fields come in the order Judge0 sends them', () => {
    const r = requestedFields(undefined)
    if (!r.ok) throw new Error()
    expect(Object.keys(shapeSubmission(record(), r.fields, false))).toEqual(['stdout', 'time', 'memory', 'stderr', 'token', 'compile_output', 'message', 'status'])
    const e = requestedFields('')
    expect(e.ok && e.fields).toEqual(r.fields)
  })

  it('a chosen subset follows the serializer order, not the request\'s', () => {
    const r = requestedFields('status,stdout,language_id')
    if (!r.ok) throw new Error()
    expect(Object.keys(shapeSubmission(record(), r.fields, false))).toEqual(['language_id', 'stdout', 'status'])
  })

  it('unknown fields are named in the error', () => {
    expect(requestedFields('stdout,foo,bar')).toEqual({ ok: false, error: 'invalid fields: [foo, bar]' })
  })

  it('decimals are strings, datetimes have milliseconds and Z', () => {
    const body = shapeSubmission(record(), ALL_FIELDS, false)
    expect(body.time).toBe('0.0123')
    expect(body.cpu_time_limit).toBe('5.0')
    expect(body.cpu_extra_time).toBe('1.0')
    expect(body.wall_time).toBe('0.05')
    expect(body.created_at).toBe('2026-11-26T10:00:00.123Z')
    expect(body.finished_at).toBe('2026-11-26T10:00:01.000Z')
    expect(body.memory).toBe(3456)
    expect(decimalString(null)).toBeNull()
    expect(decimalString(0)).toBe('0.0')
  })

  it("base64 is Ruby's encode64: 60 characters a line, each line ended by \\n", () => {
    expect(encode64('hello, Judge0\n')).toBe('aGVsbG8sIEp1ZGdlMAo=\n')
    const long = 'x'.repeat(100)
    const enc = encode64(long)
    expect(enc.split('\n').map((l) => l.length)).toEqual([60, 60, 16, 0])
    expect(decode64(enc).toString()).toBe(long)
    expect(encode64('')).toBe('')
    const body = shapeSubmission(record({ message: 'Exited with error status 1' }), ALL_FIELDS, true)
    expect(body.stdout).toBe('aGkK\n')
    expect(body.source_code).toBe(encode64('print("hi")'))
    expect(body.message).toBe(encode64('Exited with error status 1'))
    expect(body.stderr).toBeNull()
  })

  it('text that is not UTF-8 needs base64', () => {
    const r = record({ stdout: new Uint8Array([0xfe, 0x0a]) })
    expect(() => shapeSubmission(r, ['stdout'], false)).toThrow(NotUtf8)
    expect(shapeSubmission(r, ['stdout'], true)).toEqual({ stdout: '/go=\n' })
  })

  it('additional_files is always base64', () => {
    const body = shapeSubmission(record({ additional_files: new Uint8Array([1, 2, 3]) }), ['additional_files'], false)
    expect(body.additional_files).toBe('AQID\n')
  })
})
